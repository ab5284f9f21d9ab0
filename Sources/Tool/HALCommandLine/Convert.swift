import ArgumentParser
import Audio
import HAL
import MCAP
import TraceFormat
import TraceMCAP

/// `hal convert IN OUT`: a trace from one container to the other, or a ROS 2 recording into a trace.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "convert", 
        abstract: "Convert a trace between JSON Lines and MCAP, or a ROS 2 recording (MCAP) into a trace.",
        discussion: """
            JSON Lines → MCAP → JSON Lines gives the same bytes, and the same frame files. In MCAP, locations, images, \
            attitude and app events are in Foxglove's schemas (protobuf) and the other kinds in the HAL's own; \
            docs/mcap.md shows how to open the file in Foxglove. A ROS 2 recording's sensor_msgs topics (Imu, \
            MagneticField, NavSatFix, Image, CompressedImage) become channels; other topics are listed and skipped. \
            Frames held in memory go into OUT's frames folder (OUT.frames/). docs/interop.md has the mappings.
            """)

    @Argument(help: "The trace to read: .jsonl, or .mcap (a HAL trace, or a ROS 2 or Foxglove recording).")
    var input: String

    @Argument(help: "The trace to write: .jsonl or .mcap.")
    var output: String

    @Option(help: "MCAP chunk compression: lz4 (replays fastest), zstd (smallest) or none.")
    var compression: String = "lz4"

    @Option(help: ArgumentHelp(
        "With an MCAP OUT: what each speaker channel played, as sound (Foxglove's RawAudio on CHANNEL.audio): clips from this folder by name, tones (tone:HZ,SECONDS, tone:chime) made, speech through espeak-ng.",
        valueName: "clips-folder"))
    var sound: String?

    @Flag(help: "No progress line.")
    var quiet = false

    func validate() throws {
        guard output.hasSuffix(".jsonl") || output.hasSuffix(".mcap") else { throw ValidationError("OUT must be a .jsonl or .mcap file") }
        guard output != input else { throw ValidationError("IN and OUT are the same file") }
        guard MCAPCompression(named: compression) != nil else { throw ValidationError("--compression takes zstd, lz4 or none") }
        if sound != nil && !output.hasSuffix(".mcap") { throw ValidationError("--sound goes into an MCAP file: OUT must be .mcap") }
    }

    func run() throws {
        if let sound { try FileReads.checkFolder(sound) }
        let progress = quiet ? nil : Progress(label: "converting")
        let (trace, framePaths) = try TraceConversion.read(input) { progress?.update("reading", fraction: $0) }
        let sink = try TraceFiles.makeWriter(
            path: output, header: trace.header, durability: .buffered, compression: MCAPCompression(named: compression)!,
            frameFolderOf: input)
        try TraceConversion.write(trace, framePaths: framePaths, to: sink, progress: { done in
            progress?.update("writing \(trace.records.count) records", fraction: Double(done) / Double(max(1, trace.records.count)))
        }, beforeClosing: { sink throws(TraceError) in
            guard let sound, let writer = sink as? MCAPTraceWriter else { return }
            progress?.step("rendering the speakers' sound")
            for (index, channel) in trace.header.channels.enumerated() where channel.kind == .speaker {
                let events = trace.records.compactMap { $0.channel == index ? PlaybackEvent($0.reading) : nil }
                let (spans, missing) = PlaybackSound.render(events, clip: { name in
                    let source = try AudioClip.Source(clipName: name) { sound + "/" + $0 }
                    if case .file = source, !TracePath.staysInsideTraceFolder(name) { throw ValidationError("the name leaves \(sound)") }
                    return try AudioClip(name: name, source: source).audio()
                })
                try writer.writeSound(spans.map { ($0.start, $0.audio) }, of: index)
                for item in missing { printError("\nchannel \(channel.id): no sound for \(item)") }
            }
        })
        progress?.finish()
        printError("\(output): \(trace.records.count) records on \(trace.header.channels.count) channels")
        for key in ["ros2.skipped", "foxglove.skipped"] {
            if let skipped = trace.header.metadata[key] { printError("skipped (no HAL kind): \(skipped)") }
        }
        if let truncation = trace.truncation {
            printError("error: \(truncation)")
            printError("the records before it were converted")
            throw ExitCode(1)
        }
    }
}
