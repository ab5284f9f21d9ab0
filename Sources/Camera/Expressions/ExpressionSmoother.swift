public import HAL

/// A moving average of expression scores over the last `window` readings of each face.
///
/// Faces are told apart by ``HAL/ExpressionReading/faceID``; readings without one (an untracked source) share
/// one window. A reading with no face passes through unchanged and empties every window, so a face that comes
/// back starts fresh; so does a face that is missing from a frame of several. A window of 1 changes nothing.
public struct ExpressionSmoother: Sendable, Hashable {
    /// How many face readings are averaged.
    public let window: Int
    private var recent: [Int?: [ExpressionScores]] = [:]

    /// Creates a smoother; `window` is at least 1.
    public init(window: Int) {
        self.window = max(1, window)
    }

    /// Takes a reading and returns it with its scores averaged over its face's window.
    public mutating func smooth(_ reading: ExpressionReading) -> ExpressionReading {
        guard let scores = reading.scores, reading.face != nil else {
            recent.removeAll()
            return reading
        }
        var entries = recent[reading.faceID, default: []]
        entries.append(scores)
        if entries.count > window { entries.removeFirst(entries.count - window) }
        recent[reading.faceID] = entries
        var sums = [Double](repeating: 0, count: Expression.allCases.count)
        for entry in entries {
            for index in sums.indices { sums[index] += entry.values[index] }
        }
        var averaged = reading
        averaged.scores = ExpressionScores(sums.map { $0 / Double(entries.count) }) ?? scores
        return averaged
    }

    /// Takes every reading of one frame; the windows of faces not in it are emptied.
    public mutating func smooth(frame readings: [ExpressionReading]) -> [ExpressionReading] {
        let present = Set(readings.filter { $0.face != nil }.map(\.faceID))
        recent = recent.filter { present.contains($0.key) }
        return readings.map { smooth($0) }
    }
}
