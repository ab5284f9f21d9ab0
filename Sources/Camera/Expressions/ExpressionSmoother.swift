public import HAL

/// A moving average of expression scores over the last `window` readings that found a face.
///
/// A reading with no face passes through unchanged and empties the window, so a face that comes back
/// starts fresh. A window of 1 changes nothing.
public struct ExpressionSmoother: Sendable, Hashable {
    /// How many face readings are averaged.
    public let window: Int
    private var recent: [ExpressionScores] = []

    /// Creates a smoother; `window` is at least 1.
    public init(window: Int) {
        self.window = max(1, window)
    }

    /// Takes a reading and returns it with its scores averaged over the window.
    public mutating func smooth(_ reading: ExpressionReading) -> ExpressionReading {
        guard let scores = reading.scores, let face = reading.face else {
            recent.removeAll()
            return reading
        }
        recent.append(scores)
        if recent.count > window { recent.removeFirst(recent.count - window) }
        var sums = [Double](repeating: 0, count: Expression.allCases.count)
        for entry in recent {
            for index in sums.indices { sums[index] += entry.values[index] }
        }
        let averaged = ExpressionScores(sums.map { $0 / Double(recent.count) }) ?? scores
        return ExpressionReading(timestamp: reading.timestamp, face: face, scores: averaged)
    }
}
