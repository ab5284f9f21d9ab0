import ArgumentParser
import HAL
import Replay
import TraceFormat

/// `hal replay [TRACE]`: prints the records as they are delivered.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a trace, printing each record as it is delivered.",
        discussion: "Without a trace, replays the shipped \(defaultTracePath). By default records come as fast as possible; the printed sequence is the same at any pace.")

    @Argument(help: "The trace file: .jsonl, or .mcap (a HAL trace, or a ROS 2 or Foxglove recording).")
    var trace: String = defaultTracePath

    @Option(help: "Replay N times faster than recorded (0.5 is half speed).")
    var rate: Double?

    @Flag(help: "Replay at the recorded pace.")
    var realtime = false

    @Option(help: "Only these channels, by id, comma-separated.", transform: { $0.split(separator: ",").map(String.init) })
    var channels: [String]?

    @Option(help: "Start this many seconds after the trace's first record.")
    var offset: Double = 0

    @Option(help: "Play the trace this many times (0 loops until interrupted).")
    var loop: Int = 1

    @Flag(help: "Print canonical trace lines instead of text.")
    var jsonl = false

    @Option(help: "Inject the faults of this plan ({\"seed\": N, \"faults\": [...]}, docs/faults.md).")
    var faults: String?

    func validate() throws {
        if rate != nil && realtime { throw ValidationError("--rate and --realtime are exclusive") }
        if let rate, !(rate > 0) { throw ValidationError("--rate takes a positive number") }
        if !(offset >= 0 && offset <= 1e9) { throw ValidationError("--offset takes a number of seconds, 0 to 10^9") }
        if loop < 0 { throw ValidationError("--loop takes 0 (forever) or more") }
    }

    func run() async throws {
        // An MCAP trace is read from the offset on through its chunk index; the replay then starts at its first record.
        let trace = offset > 0 ? try Trace.load(path: trace, from: .nanoseconds(Int64(offset * 1e9))) : try Trace.load(path: trace)
        if let truncation = trace.truncation { printError("warning: \(truncation)") }
        if jsonl, trace.records.contains(where: { if case .frame(let frame) = $0.reading, case .bytes = frame.storage { true } else { false } }) {
            // JSON Lines name a frame's file; the frames of an MCAP file (a trace or a recording) are in memory.
            throw ValidationError("\(self.trace)'s frames are in memory, not in files: `\(HALCommandLine.toolName) convert` it to JSON Lines first, which saves them beside the trace")
        }
        var options = ReplayOptions(
            startOffset: .zero, loops: loop == 0 ? nil : loop,
            channels: channels.map(Set.init), faults: try faults.map { try FaultPlan.load(path: $0) })
        if realtime { options.pacing = .realtime } else if let rate { options.pacing = .rate(rate) }
        let replay = try TraceReplay(trace: trace, options: options)
        var out = StandardOutput()
        let encoder = TraceEncoder(header: trace.header)
        var line: [UInt8] = []
        let print: (TraceRecord) throws -> Void = { record in
            if jsonl {
                line.removeAll(keepingCapacity: true)
                try encoder.encode(record, into: &line)
                out.bytes(line)
            } else {
                let channel = trace.header.channels[record.channel]
                out.line("\(record.timestamp) \(pad(channel.id, 8)) \(channel.kind.kindDescription.text(record.reading))")
            }
        }
        if jsonl { out.bytes(try encoder.encodeHeader()) }
        if options.pacing == .asFastAsPossible {
            try replay.forEach(print)
        } else {
            try await replay.run(pacingClock: ContinuousClock()) { record in
                try print(record)
                out.flush()
            }
        }
        out.flush()
    }
}
