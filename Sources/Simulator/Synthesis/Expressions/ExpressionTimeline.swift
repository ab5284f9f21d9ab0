public import TraceFormat
public import HAL

/// A scripted facial-expression sensor: which expression the face shows, when, and how strongly.
///
/// ```json
/// {"rate": 5, "duration": 20, "seed": 7, "jitter": 0.03, "face": [177, 66, 95, 95],
///  "segments": [{"from": 0, "to": 2, "noFace": true},
///               {"from": 2, "to": 4, "expression": "happy", "score": 0.9}]}
/// ```
///
/// A segment with `"noReading": true` gives no readings at all, as a camera that is off or covered.
/// Outside every segment the face is neutral at ``restingScore``. `jitter` adds seeded Gaussian
/// noise (σ) to the shown expression's score, clamped to 0…1; the other six share the rest equally.
public struct ExpressionTimeline: Sendable, Hashable, Codable {
    /// Readings per second.
    public var rate: Double
    /// Seconds of readings, from timestamp 0.
    public var duration: Double
    /// The noise seed.
    public var seed: UInt64?
    /// σ of the noise on the shown score.
    public var jitter: Double?
    /// The face box `[x, y, width, height]`, pixels.
    public var face: [Int]?
    /// What the face shows, and when.
    public var segments: [Segment]
    /// The neutral score outside segments, 0.8 by default.
    public var restingScore: Double?

    /// One stretch of the timeline.
    public struct Segment: Sendable, Hashable, Codable {
        /// Start, seconds.
        public var from: Double
        /// End, seconds (exclusive).
        public var to: Double
        /// The expression shown.
        public var expression: Expression?
        /// Its score, 0…1.
        public var score: Double?
        /// No face in view.
        public var noFace: Bool?
        /// No readings at all: the camera is off.
        public var noReading: Bool?
    }

    /// Reads and checks a timeline file.
    public static func load(path: String) throws -> ExpressionTimeline {
        let timeline: ExpressionTimeline = try ScriptFile.decode(path: path)
        try timeline.validate(file: path)
        return timeline
    }

    /// Checks the numbers, naming the field.
    public func validate(file: String? = nil) throws {
        guard rate > 0, rate <= 1000 else { throw ScriptError.located(file: file, "rate: \(rate) is not within 0 to 1000 Hz") }
        guard duration > 0, duration <= 86_400 else { throw ScriptError.located(file: file, "duration: \(duration) is not within 0 to 86400 s") }
        try ScriptFile.checkRecordCount(duration * rate, file: file)
        if let face, face.count != 4 || face[2] <= 0 || face[3] <= 0 {
            throw ScriptError.located(file: file, "face: expected [x, y, width, height] with a positive size")
        }
        if let jitter, !(0...1).contains(jitter) { throw ScriptError.located(file: file, "jitter: \(jitter) is not within 0 to 1") }
        for (index, segment) in segments.enumerated() {
            let field = "segments[\(index)]"
            guard segment.from >= 0, segment.to > segment.from else { throw ScriptError.located(file: file, "\(field): expected 0 ≤ from < to") }
            if segment.noFace == true || segment.noReading == true {
                if segment.expression != nil || (segment.noFace == true && segment.noReading == true) {
                    throw ScriptError.located(file: file, "\(field): noFace, noReading and expression are exclusive")
                }
            } else {
                guard segment.expression != nil else { throw ScriptError.located(file: file, "\(field).expression: missing (or set noFace or noReading)") }
                guard let score = segment.score, (0...1).contains(score) else {
                    throw ScriptError.located(file: file, "\(field).score: expected a number within 0 to 1")
                }
            }
        }
    }

    /// The timeline as a trace with one `face` expression channel.
    public func generate(source: String = "sim:expressions") -> Trace {
        let channel = TraceChannel(id: "face", kind: .expression, source: source + "#face", rate: rate, name: "Scripted expressions", backend: "sim")
        var random = SeededRandom(seed: seed ?? 1)
        let box = face.map { FaceBox(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) } ?? FaceBox(x: 270, y: 190, width: 100, height: 100)
        var records: [TraceRecord] = []
        let count = Int((duration * rate).rounded(.down))
        for index in 0..<count {
            let time = Double(index) / rate
            let timestamp = Timestamp(nanoseconds: Int64((time * 1e9).rounded()))
            let noise = random.gaussian() * (jitter ?? 0)
            let segment = segments.last { (time >= $0.from) && (time < $0.to) }
            if segment?.noReading == true { continue }
            if segment?.noFace == true {
                records.append(TraceRecord(channel: 0, reading: .expression(.noFace(at: timestamp))))
                continue
            }
            let expression = segment?.expression ?? .neutral
            let score = min(1, max(0, (segment?.score ?? restingScore ?? 0.8) + noise))
            let rounded = (score * 1e4).rounded() / 1e4
            records.append(TraceRecord(channel: 0, reading: .expression(
                ExpressionReading(timestamp: timestamp, face: box, scores: ExpressionScores(peak: expression, score: rounded)))))
        }
        return Trace(header: TraceHeader(channels: [channel], metadata: ["generator": "ExpressionTimeline"]), records: records)
    }
}
