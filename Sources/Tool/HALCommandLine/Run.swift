import AppCore
import ArgumentParser
import HAL
import LibC
import Session
import Replay
import Synthesis
import TraceFormat

/// `hal run APP [SCENARIO]` or `hal run SCENARIO`: runs an app's logic against a QA scenario, traces, or live devices.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", 
        abstract: "Run an app against a scenario, traces or live devices, printing its event log.",
        discussion: """
            With no scenario and no --config, runs the app's shipped scenario. Inputs are replayed in trace order on a \
            virtual clock, so the log is the same at any --rate. --check exits 1 with a report when an expectation fails.
            """)

    @Argument(help: ArgumentHelp(
        "The app (\(HALCommandLine.catalog.names.joined(separator: ", "))), or a scenario file (.run.json), whose app runs.",
        valueName: "app|scenario"))
    var app: String

    @Argument(help: "A scenario file (.run.json) with the config, inputs, commands and expectations.")
    var scenario: String?

    /// Whether `argument` names a scenario file rather than an app.
    static func isScenario(_ argument: String) -> Bool { argument.hasSuffix(".run.json") }

    @Option(help: "The app's config file (instead of a scenario's).")
    var config: String?

    @Option(name: .customLong("input"), help: "A trace or script whose channels feed the app (repeatable).")
    var inputs: [String] = []

    @Option(name: .customLong("device"), help: "A live device URI to feed the app (repeatable), instead of inputs.")
    var devices: [String] = []

    @Option(help: "A speaker URI for what the app plays and speaks, such as alsa:default or wav:out.wav.")
    var speaker: String?

    @Option(help: "Keep what the app stores (such as the field guide's entries) in this folder, across runs; a replay stores in memory by default.")
    var storage: String?

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

    mutating func validate() throws {
        let catalog = HALCommandLine.catalog
        if Self.isScenario(app) {
            guard scenario == nil else { throw ValidationError("give an app and a scenario, or a scenario alone, not two scenarios") }
            scenario = app
            app = try Scenario(path: app).file.app
        }
        let known = try? catalog.app(named: app)
        guard let known else { throw ValidationError("no app '\(app)'; the apps are \(catalog.names.joined(separator: ", "))") }
        if scenario == nil, config == nil, known.defaultScenario == nil { throw ValidationError("\(app) ships no scenario; name one, or give --config") }
        if scenario != nil, config != nil { throw ValidationError("give a scenario or --config, not both") }
        if config != nil, inputs.isEmpty, devices.isEmpty { throw ValidationError("--config needs --input or --device") }
        if !devices.isEmpty, !inputs.isEmpty || scenario != nil { throw ValidationError("--device runs live; it does not mix with inputs or a scenario") }
        if !devices.isEmpty, record != nil { throw ValidationError("--record is for replays; record live devices with \(HALCommandLine.toolName) record") }
        if !devices.isEmpty, faults != nil { throw ValidationError("--faults is for replays; live devices bring their own") }
        if rate != nil, realtime { throw ValidationError("--rate and --realtime are exclusive") }
        if let rate, !(rate > 0) { throw ValidationError("--rate takes a positive number") }
        if check, config != nil { throw ValidationError("--check needs a scenario's expectations") }
        for uri in devices where uri.hasPrefix("trace:") || uri.hasPrefix("sim:") {
            throw ValidationError("\(uri): --device is for live devices on the monotonic clock; replay traces and scripts with --input")
        }
    }

    func run() async throws {
        let catalog = HALCommandLine.catalog
        let factory = makeDeviceFactory(searchFolders: search.folders)
        let speaker = try speaker.map { try factory.open($0, as: (any Speaker).self) }
        // The storage folder is made on the first write; one that is there must be a folder the app can write in.
        if let storage, access(storage, F_OK) == 0 { try FileReads.checkFolder(storage, writable: true) }
        let storage = storage.map { FolderAppStorage(path: $0) }
        let plan = try faults.map { try FaultPlan.load(path: $0) }
        var pacing = ReplayPacing.asFastAsPossible
        if realtime { pacing = .realtime } else if let rate { pacing = .rate(rate) }
        var log = EventPrinter()
        let result: SessionResult
        if let config {
            let logic = try catalog.load(app, config: config)
            if !devices.isEmpty {
                try await live(logic, factory: factory, speaker: speaker, storage: storage)
                return
            }
            let inputs = try Trace.merging(inputs.map { try Trace.loadInput(path: $0) })
            func replay<Logic: AppLogic>(_ logic: Logic) async throws -> SessionResult {
                var session = AppSession(
                    logic, inputs: inputs, faults: plan, speaker: speaker, outputs: .devices, storage: storage, pacing: pacing,
                    records: record != nil)
                session.appName = app
                return try await session.run { log.print($0, start: $1) }
            }
            result = try await replay(logic)
        } else {
            let scenario = try Scenario(path: scenario ?? catalog.app(named: app).defaultScenario!)
            guard scenario.file.app == app else {
                throw ScriptError.located(file: scenario.path, "app: '\(scenario.file.app)', but this is `\(HALCommandLine.toolName) run \(app)`")
            }
            result = try await scenario.run(
                catalog: catalog, speaker: speaker, outputs: .devices, storage: storage, pacing: pacing, faults: plan, records: record != nil
            ) {
                log.print($0, start: $1)
            }
        }
        log.flush()
        if let record, let recording = result.recording {
            try write(recording, to: record)
            printError("wrote \(recording.records.count) records (\(result.events.count) app events) to \(record)")
        }
        if check { try report(result) }
    }

    private func live(_ logic: any AppLogic, factory: DeviceFactory, speaker: (any Speaker)?, storage: (any AppStorage)?) async throws {
        var sources: [(channel: String, readings: AsyncThrowingStream<Reading, any Error>)] = []
        for uri in devices { sources.append((uri, try factory.open(uri, as: (any ReadingSource).self).anyReadings())) }
        let running = Task { [sources] in
            func run<Logic: AppLogic>(_ logic: Logic) async throws {
                var log = EventPrinter()
                let clock = MonotonicClock()
                _ = try await AppSession<Logic>.live(
                    logic, sources: sources, speaker: speaker, outputs: .devices, storage: storage, clock: clock,
                    onDeviceError: { printError("device ended: \($0)") }
                ) { batch, start in
                    log.print(batch, start: start)
                    log.flush()
                }
            }
            try await run(logic)
        }
        let stop = StopConditions(cancelling: running, after: duration)
        // Ends when the devices end, the time is up, or Ctrl-C.
        _ = await running.result
        stop.disarm()
    }

    private func report(_ result: SessionResult) throws {
        var out = StandardOutput()
        for outcome in result.expectations { out.line("check: \(outcome.line)") }
        let failed = result.expectations.filter { !$0.passed }.count
        let total = result.expectations.count
        out.line(failed == 0 ? "check: all \(total) expectations hold" : "check: \(failed) of \(total) expectations failed")
        out.flush()
        if failed > 0 { throw ExitCode(1) }
    }
}

/// Prints event-log lines as they come.
private struct EventPrinter {
    private var out = StandardOutput()

    mutating func print(_ batch: [AppEvent], start: Timestamp) {
        for event in batch { out.line(EventLog.line(event, start: start)) }
    }

    mutating func flush() { out.flush() }
}
