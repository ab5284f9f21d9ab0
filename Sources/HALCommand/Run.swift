import Apps
import ArgumentParser
import Foundation
import HAL
import Simulator

/// `hal run APP [SCENARIO]`: runs an app's logic against a QA scenario, traces, or live devices.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run an app against a scenario, traces or live devices, printing its event log.",
        discussion: """
            With no scenario and no --config, runs the app's shipped scenario. Inputs are replayed in trace order on a \
            virtual clock, so the log is the same at any --rate. --check exits 1 with a report when an expectation fails.
            """)

    @Argument(help: "The app: \(AppCatalog.names.joined(separator: ", ")).")
    var app: String

    @Argument(help: "A scenario file (.run.json) with the config, inputs, commands and expectations.")
    var scenario: String?

    @Option(help: "The app's config file (instead of a scenario's).")
    var config: String?

    @Option(name: .customLong("input"), help: "A trace or script whose channels feed the app (repeatable).")
    var inputs: [String] = []

    @Option(name: .customLong("device"), help: "A live device URI to feed the app (repeatable), instead of inputs.")
    var devices: [String] = []

    @Option(help: "A speaker URI for what the app plays and speaks, such as alsa:default or wav:out.wav.")
    var speaker: String?

    @Option(help: "Write the inputs and the app's events (channel 'app') to this trace.")
    var record: String?

    @Flag(help: "Check the scenario's expectations; exit 1 with a report when one fails.")
    var check = false

    @Option(help: "Replay N times faster than recorded; as fast as possible by default.")
    var rate: Double?

    @Flag(help: "Replay at the recorded pace.")
    var realtime = false

    @Option(help: "With --device: stop after this many seconds.")
    var duration: Double?

    @Option(help: "Inject the faults of this plan into the inputs (docs/faults.md); it replaces a scenario's.")
    var faults: String?

    @OptionGroup var search: SearchOptions

    func validate() throws {
        guard AppCatalog.defaultScenarios[app] != nil else {
            throw ValidationError("no app '\(app)'; the apps are \(AppCatalog.names.joined(separator: ", "))")
        }
        if scenario != nil, config != nil { throw ValidationError("give a scenario or --config, not both") }
        if config != nil, inputs.isEmpty, devices.isEmpty { throw ValidationError("--config needs --input or --device") }
        if !devices.isEmpty, !inputs.isEmpty || scenario != nil { throw ValidationError("--device runs live; it does not mix with inputs or a scenario") }
        if !devices.isEmpty, record != nil { throw ValidationError("--record is for replays; record live devices with hal record") }
        if !devices.isEmpty, faults != nil { throw ValidationError("--faults is for replays; live devices bring their own") }
        if rate != nil, realtime { throw ValidationError("--rate and --realtime are exclusive") }
        if let rate, !(rate > 0) { throw ValidationError("--rate takes a positive number") }
        if check, config != nil { throw ValidationError("--check needs a scenario's expectations") }
        for uri in devices where uri.hasPrefix("trace:") || uri.hasPrefix("sim:") {
            throw ValidationError("\(uri): --device is for live devices on the monotonic clock; replay traces and scripts with --input")
        }
    }

    func run() async throws {
        let factory = makeDeviceFactory(searchFolders: search.folders)
        let speaker = try speaker.map { try factory.open($0, as: (any Speaker).self) }
        if let config {
            let logic = try AppCatalog.makeApp(app, config: config)
            if devices.isEmpty {
                try await replay(logic, inputs: inputs, commands: [], end: nil, expectations: [], faults: faults, speaker: speaker)
            } else {
                try await live(logic, factory: factory, speaker: speaker)
            }
            return
        }
        let path = scenario ?? AppCatalog.defaultScenarios[app]!
        let scenario: AppScenario = try ScriptFile.decode(path: path)
        do { try scenario.validate() } catch { throw ScriptError(file: path, error.description) }
        guard scenario.app == app else { throw ScriptError(file: path, "app: '\(scenario.app)', but this is `hal run \(app)`") }
        let logic = try AppCatalog.makeApp(app, config: TracePath.resolve(scenario.config, inTraceAt: path))
        try await replay(
            logic, inputs: scenario.inputs.map { TracePath.resolve($0, inTraceAt: path) }, commands: scenario.commands ?? [],
            end: scenario.end, expectations: scenario.expect ?? [],
            faults: faults ?? scenario.faults.map { TracePath.resolve($0, inTraceAt: path) }, speaker: speaker)
    }

    private func replay<Logic: AppLogic>(
        _ logic: Logic, inputs: [String], commands scripted: [AppScenario.ScriptedCommand], end: Double?,
        expectations: [EventExpectation], faults: String?, speaker: (any Speaker)?
    ) async throws {
        let trace = try Trace.merging(inputs.map { try Trace.loadInput(path: $0) })
        let plan = try faults.map { try FaultPlan.load(path: $0) }
        var options = ReplayOptions(faults: plan)
        if realtime { options.pacing = .realtime } else if let rate { options.pacing = .rate(rate) }
        let replay = try TraceReplay(trace: trace, options: options)
        let start = replay.firstTimestamp ?? .zero
        func time(_ seconds: Double) -> Timestamp { start + .nanoseconds(Int64((seconds * 1e9).rounded())) }
        // Scripted commands, and the speaker going when the plan says, in time order (commands first at a tie).
        var scripted = scripted.enumerated()
            .sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
            .map { AppInput.command(AppCommand(timestamp: time($0.element.at), action: $0.element.action, arguments: $0.element.with ?? [:])) }
        if let gone = plan?.speakerDisconnect {
            let input = AppInput.speakerFailed(time(gone), reason: "the speaker disconnected (fault plan)")
            scripted.insert(input, at: scripted.firstIndex { $0.timestamp > input.timestamp } ?? scripted.endIndex)
        }
        var runner = AppRunner(logic: logic, speaker: speaker)
        var log = EventPrinter(start: start)
        log.print(await runner.start(at: start))
        try await replay.run(pacingClock: ContinuousClock(), clock: VirtualClock(start: start)) { record in
            while let input = scripted.first, input.timestamp <= record.timestamp {
                log.print(await runner.feed(input))
                scripted.removeFirst()
            }
            log.print(await runner.feed(.reading(record.reading)))
        }
        let last = end.map(time) ?? max(trace.end ?? start, scripted.last?.timestamp ?? start)
        for input in scripted where input.timestamp <= last { log.print(await runner.feed(input)) }
        log.print(await runner.advance(to: last))
        log.flush()
        if let record { try write(trace, events: log.events, to: record) }
        if check { try report(expectations, events: log.events, start: start) }
    }

    private func live<Logic: AppLogic>(_ logic: Logic, factory: DeviceFactory, speaker: (any Speaker)?) async throws {
        var sources: [AsyncThrowingStream<Reading, any Error>] = []
        for uri in devices { sources.append(try factory.open(uri, as: (any ReadingSource).self).anyReadings()) }
        // What the speaker played comes back to the app, so that it knows when a clip has ended.
        let feedback = speaker.map { [$0.events(buffering: .unbounded).anyReadings()] } ?? []
        let clock = MonotonicClock()
        let start = clock.now
        let inputs = LiveInputs.merge(sources, feedback: feedback, clock: clock) { printError("device ended: \($0)") }
        let running = Task {
            var runner = AppRunner(logic: logic, speaker: speaker)
            var log = EventPrinter(start: start)
            try await runner.run(inputs, start: start) { log.print($0); log.flush() }
        }
        let stop = StopConditions(cancelling: running, after: duration)
        // Ends when the devices end, the time is up, or Ctrl-C.
        _ = await running.result
        stop.disarm()
    }

    private func write(_ inputs: Trace, events: [AppEvent], to path: String) throws {
        var channels = inputs.header.channels
        channels.append(TraceChannel(id: "app", kind: .app, source: "app:\(app)", name: app, backend: "apps"))
        let appChannel = channels.count - 1
        // Frames recorded from files are copied in, so the new trace keeps them in its own folder.
        var records = try inputs.records.map { record -> TraceRecord in
            guard case .frame(var frame) = record.reading, case .file(let path) = frame.storage else { return record }
            guard let data = FileManager.default.contents(atPath: path) else { throw ScriptError(file: path, "cannot read the frame file") }
            frame.storage = .bytes([UInt8](data))
            return TraceRecord(channel: record.channel, reading: .frame(frame))
        }
        records += events.map { TraceRecord(channel: appChannel, reading: .appEvent($0)) }
        records = records.enumerated().sorted { ($0.element.timestamp, $0.element.channel, $0.offset) < ($1.element.timestamp, $1.element.channel, $1.offset) }.map(\.element)
        let writer = try TraceWriter(path: path, header: TraceHeader(channels: channels, metadata: ["recorded-by": "hal run \(app)"]), durability: .buffered)
        for record in records { try writer.write(record) }
        try writer.close()
        printError("wrote \(records.count) records (\(events.count) app events) to \(path)")
    }

    private func report(_ expectations: [EventExpectation], events: [AppEvent], start: Timestamp) throws {
        var out = StandardOutput()
        let results = expectations.map { $0.check(events, start: start) }
        for result in results { out.line("check: \(result.line)") }
        let failed = results.filter { !$0.passed }.count
        out.line(failed == 0 ? "check: all \(results.count) expectations hold" : "check: \(failed) of \(results.count) expectations failed")
        out.flush()
        if failed > 0 { throw ExitCode(1) }
    }
}

/// Prints event-log lines as they come and keeps the events.
private struct EventPrinter {
    let start: Timestamp
    private(set) var events: [AppEvent] = []
    private var out = StandardOutput()

    init(start: Timestamp) { self.start = start }

    mutating func print(_ batch: [AppEvent]) {
        for event in batch { out.line(EventLog.line(event, start: start)) }
        events += batch
    }

    mutating func flush() { out.flush() }
}
