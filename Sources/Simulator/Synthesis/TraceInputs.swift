public import TraceFormat

extension Trace {
    /// Loads a trace, or generates one from a script, by the file's name:
    /// `*.motion.json` (motion script), `*.walk.json` (GPS walk), `*.expressions.json` (expression
    /// timeline), anything else a trace file.
    public static func loadInput(path: String) throws -> Trace {
        try loadInput(path: path, reseed: nil)
    }

    /// ``loadInput(path:)``, with every seed of a script's noise replaced by `seed` when it is given: the walk's
    /// GPS noise, a motion script's IMU noise and environment channels' noise, an expression timeline's jitter. A
    /// recorded trace has no seed, and is read as it is. What exploration varies (`docs/exploring.md`).
    ///
    /// A script's trace of up to 250,000 records is made once per process for each seed, and a recorded trace of up
    /// to 8 MB read once, while their files hold the same bytes (`FileCache`): the scenarios of a suite share their
    /// inputs, and making the same trace again for each was a tenth of their time.
    public static func loadInput(path: String, reseed seed: UInt64?) throws -> Trace {
        guard isReseedable(path: path) else { return try loadRecorded(path: path) }
        return try generated.value(for: GeneratedKey(path: path, seed: seed), keep: { $0.records.count <= 250_000 }) {
            try generate(path: path, reseed: seed)
        }
    }

    /// A script's trace: its path, and the seed that replaced its own.
    private struct GeneratedKey: Hashable, Sendable {
        var path: String
        var seed: UInt64?
    }

    /// A recorded trace file of up to 8 MB, read once per process while the file holds the same bytes: the
    /// scenarios of a suite replay the same recordings.
    private static func loadRecorded(path: String) throws -> Trace {
        guard (TracePath.fileSize(path) ?? .max) <= 8 << 20 else { return try Trace.load(path: path) }
        // A file that cannot be read is Trace.load's error to report, and nothing is kept.
        var readable = false
        return try recorded.value(for: path, keep: { _ in readable }) {
            readable = (try? FileReads.read(path: path)) != nil
            return try Trace.load(path: path)
        }
    }

    /// The recorded traces read, by path.
    private static let recorded = FileCache<String, Trace>(capacity: 8)

    /// The scripts' traces made, with the files each read.
    private static let generated = FileCache<GeneratedKey, Trace>(capacity: 8)

    /// The trace of the script at `path`, made now.
    private static func generate(path: String, reseed seed: UInt64?) throws -> Trace {
        if path.hasSuffix(".motion.json") {
            var script = try MotionScript.load(path: path)
            if let seed {
                script.noise?.seed = seed
                if let channels = script.environment {
                    script.environment = channels.map { var channel = $0; channel.seed = seed; return channel }
                }
            }
            return script.generate(source: "sim:\(path)")
        }
        if path.hasSuffix(".walk.json") {
            var (walk, places) = try WalkScenario.load(path: path)
            if let seed { walk.seed = seed }
            return walk.generate(places: places, source: "sim:\(path)")
        }
        if path.hasSuffix(".expressions.json") {
            var timeline = try ExpressionTimeline.load(path: path)
            if let seed { timeline.seed = seed }
            return timeline.generate(source: "sim:\(path)")
        }
        preconditionFailure("\(path) is not a script")
    }

    /// Whether ``loadInput(path:reseed:)`` can give the file's trace another seed: it is a script.
    public static func isReseedable(path: String) -> Bool {
        path.hasSuffix(".motion.json") || path.hasSuffix(".walk.json") || path.hasSuffix(".expressions.json")
    }
}
