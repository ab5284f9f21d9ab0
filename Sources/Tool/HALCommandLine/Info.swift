import ArgumentParser
import HAL
import MCAP
import TraceFormat
import TraceMCAP

/// `hal info TRACE`: channels, duration, counts and rates; for any other MCAP file, what it holds.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Show a trace's channels, duration, record counts and rates, or what any MCAP file holds.")

    @Argument(help: "The trace file: .jsonl, or .mcap (a HAL trace, or a ROS 2 or Foxglove recording; any other MCAP file is summarised).")
    var trace: String

    func run() throws {
        if MCAPRecordingKind(path: trace) == .other {
            try summariseMCAP()
            return
        }
        let trace = try Trace.load(path: trace)
        var out = StandardOutput()
        out.line("trace:    \(self.trace)")
        out.line("format:   \(TraceHeader.formatName) version \(trace.header.version)")
        for key in trace.header.metadata.keys.sorted() { out.line("\(key + ":")\(String(repeating: " ", count: max(1, 10 - key.count - 1)))\(trace.header.metadata[key]!)") }
        out.line("duration: \(String(format3(trace.duration.seconds))) s")
        out.line("records:  \(trace.records.count)")
        out.line("channels:")
        let idWidth = max(10, trace.header.channels.map(\.id.count).max() ?? 0)
        for summary in trace.channelSummaries {
            let channel = summary.channel
            var line = "  \(pad(channel.id, idWidth)) \(pad(channel.kind.rawValue, 14)) \(pad(String(summary.count), 7)) records"
            if let units = channel.units { line += "  units \(units)" }
            if let rate = channel.rate { line += "  nominal \(format3(rate)) Hz" }
            if let measured = summary.measuredRate { line += "  measured \(format3(measured)) Hz" }
            line += "  source \(channel.source)"
            out.line(line)
        }
        if let truncation = trace.truncation { out.line("warning:  \(truncation)") }
        try listAttachments(&out)
        out.flush()
    }

    /// An MCAP file that holds no trace: what `mcap info` shows of it, and which commands read it.
    private func summariseMCAP() throws {
        var out = StandardOutput()
        out.line("file:        \(trace)")
        out.bytes(Array(try MCAPFileSummary(path: trace).text.utf8))
        let tool = HALCommandLine.toolName
        out.line("usable by:   \(tool) info only; \(tool) replay, run, test, plot, convert, exec and trace: devices read an MCAP file "
            + "that holds a HAL trace (profile 'hal'), a ROS 2 recording or a recording in Foxglove's schemas")
        out.flush()
    }

    /// An MCAP file's attachments (a calibration, a map): name, media type, size and log time, each CRC checked.
    private func listAttachments(_ out: inout StandardOutput) throws {
        guard let reader = try? MCAPReader(path: trace), (try? reader.header()) != nil else { return }
        let attachments = try reader.attachments()
        guard !attachments.isEmpty else { return }
        out.line("attachments:")
        let width = max(10, attachments.map(\.name.count).max() ?? 0)
        for attachment in attachments {
            out.line("  \(pad(attachment.name, width)) \(pad(attachment.mediaType, 24)) \(attachment.data.count) bytes  log time \(attachment.logTime) ns")
        }
    }
}

/// Pads text on the right to `width` characters.
func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}
