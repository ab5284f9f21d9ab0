public import TraceFormat

extension Trace {
    /// Loads a trace, or generates one from a script, by the file's name:
    /// `*.motion.json` (motion script), `*.walk.json` (GPS walk), `*.expressions.json` (expression
    /// timeline), anything else a trace file.
    public static func loadInput(path: String) throws -> Trace {
        if path.hasSuffix(".motion.json") { return try MotionScript.load(path: path).generate(source: "sim:\(path)") }
        if path.hasSuffix(".walk.json") {
            let (walk, places) = try WalkScenario.load(path: path)
            return walk.generate(places: places, source: "sim:\(path)")
        }
        if path.hasSuffix(".expressions.json") { return try ExpressionTimeline.load(path: path).generate(source: "sim:\(path)") }
        return try Trace.load(path: path)
    }
}
