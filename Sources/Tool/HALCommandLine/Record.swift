import ArgumentParser
import HAL
import Replay
import Synthesis
import TraceFormat

/// `hal record --out FILE URI…`: records devices into a trace.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record devices into a trace, one channel per device, until they end, --duration passes, or Ctrl-C.")

    @Option(name: [.short, .long], help: "The trace file to write: .jsonl, or .mcap for MCAP (docs/mcap.md).")
    var out: String

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Flag(help: "No progress line.")
    var quiet = false

    @Option(help: ArgumentHelp(
        "When a device goes away, open it again every this many seconds until it is back, and go on in the same channel.",
        valueName: "seconds"))
    var reconnect: Double?

    @OptionGroup var search: SearchOptions

    @Argument(help: "Device URIs, such as sim:traces/lobby-lookaround.motion.json#gyro,accel or trace:FILE#CHANNEL.")
    var devices: [String]

    func validate() throws {
        if devices.isEmpty { throw ValidationError("name at least one device URI") }
        if let duration, !(duration > 0) { throw ValidationError("--duration takes a positive number of seconds") }
        if let reconnect, !(reconnect > 0) { throw ValidationError("--reconnect takes a positive number of seconds") }
    }

    func run() async throws {
        let factory = makeDeviceFactory(searchFolders: search.folders)
        var sources: [RecordingSource] = []
        var usedIDs: Set<String> = []
        // sim:FILE.motion.json#accel,baro is one device per channel listed.
        for uri in devices.flatMap(SimulationBackend.channelURIs) {
            let device = try factory.open(uri, as: (any ReadingSource).self)
            sources.append(RecordingSource(
                id: Self.channelID(for: device.info, uri: uri, taken: &usedIDs), device: device,
                reopen: { try factory.open(uri, as: (any ReadingSource).self) }))
        }
        let recorder = try TraceRecorder(
            path: out, sources: sources, metadata: ["recorded-by": "\(HALCommandLine.toolName) record"],
            reconnect: reconnect.map { .every($0) } ?? .never, onInterruption: Self.report)
        let started = ContinuousClock.now
        let recording = Task { try await recorder.run() }

        let stop = StopConditions(cancelling: recording, after: duration)
        let channels = sources  // a constant copy for the progress task
        let progress = quiet ? nil : Task {
            while !Task.isCancelled {
                Self.showProgress(recorder.counts, channels, since: started, final: false)
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        let summary = try await recording.value
        progress?.cancel()
        stop.disarm()
        if !quiet { Self.showProgress(summary.counts, channels, since: started, final: true) }
        for failure in summary.failures { printError("channel \(failure.channel) ended: \(failure.error)") }
        printError("wrote \(summary.counts.reduce(0, +)) records to \(out)\(summary.stopped ? " (stopped)" : "")")
        if !summary.failures.isEmpty { throw ExitCode(2) }
    }

    /// One line when a device goes away and one when it is back.
    @Sendable static func report(_ interruption: RecordingInterruption) {
        if let back = interruption.back {
            printError("\nchannel \(interruption.channel): the device is back after \(format3(interruption.lost.duration(to: back).seconds)) s")
        } else {
            printError("\nchannel \(interruption.channel): \(interruption.error); waiting for it to come back")
        }
    }

    static func showProgress(_ counts: [Int], _ sources: [RecordingSource], since start: ContinuousClock.Instant, final: Bool) {
        let elapsed = (ContinuousClock.now - start).seconds
        let perChannel = zip(sources, counts).map { "\($0.channel.id) \($1)" }.joined(separator: "  ")
        printError("\rrecording \(format3(elapsed)) s  \(perChannel)", terminator: final ? "\n" : "")
    }

    /// A channel id from the URI's fragment or the device kind, made unique.
    static func channelID(for info: DeviceInfo, uri: String, taken: inout Set<String>) -> String {
        let base = (try? DeviceURI(uri).fragment).flatMap { $0 } ?? info.kind.rawValue
        var id = TraceChannel.isValidID(base) ? base : info.kind.rawValue
        var suffix = 2
        while taken.contains(id) {
            id = "\(base)-\(suffix)"
            suffix += 1
        }
        taken.insert(id)
        return id
    }
}
