import ArgumentParser
import HAL
import TraceFormat

/// `hal convert IN OUT`: a trace from another container, as JSON Lines.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a trace to JSON Lines: a ROS 2 recording in MCAP, or a JSON Lines trace (rewritten canonically).",
        discussion: """
            A ROS 2 recording's sensor_msgs topics (Imu, MagneticField, NavSatFix, Image, CompressedImage) become \
            channels; other topics are listed and skipped. Image frames go into OUT's frames folder (OUT.frames/). \
            docs/interop.md has the mapping, with units and frames.
            """)

    @Argument(help: "The trace to read: .jsonl, or .mcap holding a ROS 2 recording.")
    var input: String

    @Argument(help: "The JSON Lines trace to write (.jsonl).")
    var output: String

    func validate() throws {
        guard output.hasSuffix(".jsonl") else { throw ValidationError("OUT must be a .jsonl file") }
        guard output != input else { throw ValidationError("IN and OUT are the same file") }
    }

    func run() throws {
        let trace = try Trace.load(path: input)
        try write(trace, to: output)
        printError("\(output): \(trace.records.count) records on \(trace.header.channels.count) channels")
        if let skipped = trace.header.metadata["ros2.skipped"] {
            printError("skipped (no HAL kind): \(skipped)")
        }
        if let truncation = trace.truncation {
            printError("error: \(truncation)")
            printError("the records before it were converted")
            throw ExitCode(1)
        }
    }
}
