import ArgumentParser
import HAL
import Synthesis
import TraceFormat

/// `hal motion simulate SCRIPT -o FILE`: turns a motion script into a trace.
struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "simulate", 
        abstract: "Generate a trace from a motion script (.motion.json). The same script gives the same bytes.")

    @Argument(help: "The motion script.")
    var script: String

    @Option(name: [.short, .long], help: "The trace file to write.")
    var out: String

    func run() throws {
        let trace = try MotionScript.load(path: script).generate(source: "sim:\(script)")
        try write(trace, to: out)
        printError("wrote \(trace.records.count) records, \(format3(trace.duration.seconds)) s, to \(out)")
    }
}
