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
    public static func loadInput(path: String, reseed seed: UInt64?) throws -> Trace {
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
        return try Trace.load(path: path)
    }

    /// Whether ``loadInput(path:reseed:)`` can give the file's trace another seed: it is a script.
    public static func isReseedable(path: String) -> Bool {
        path.hasSuffix(".motion.json") || path.hasSuffix(".walk.json") || path.hasSuffix(".expressions.json")
    }
}
