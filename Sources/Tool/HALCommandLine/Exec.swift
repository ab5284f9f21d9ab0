import AppCore
import ArgumentParser
import FoundationEssentials
import HAL
import LibC
import ProgramDevices
import ProgramSession
import Replay
import Session
import SystemSupport
import Synthesis
import TraceFormat

/// `hal exec INPUT… -- PROGRAM ARGS…`: runs an unmodified program on simulated devices fed from traces or scripts.
struct Exec: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run any program on simulated devices (evdev, IIO, serial GPS, gpsd, V4L2, ALSA) fed from traces, under umockdev.",
        discussion: """
            Each input channel becomes a device of its kind's default type, or of the types --device names: \
            \(ServedDeviceTypes.standard().types.map { "\($0.name) (\($0.summary))" }.joined(separator: "; ")). \
            The program sees them through umockdev's preload library, with no root and no kernel module; \
            HAL_DEVICE_<CHANNEL> in its environment names each one's node. The program's lines are printed with \
            their trace time. With a program scenario (.run.json naming a program) instead of inputs, its \
            expectations are checked, and the exit status is 1 when one fails. See docs/programs.md.
            """)

    @Argument(help: "A trace or script (.jsonl, .mcap, .walk.json, .motion.json), or a program scenario (.run.json).")
    var input: String?

    @Option(name: .customLong("input"), help: "Another trace or script whose channels are served too (repeatable).")
    var moreInputs: [String] = []

    @Option(name: .customLong("live"), help: ArgumentHelp("A live device whose readings are served as they come, and recorded (repeatable).", valueName: "uri"))
    var liveDevices: [String] = []

    @Option(help: "With --live: the trace the live devices are recorded into (.jsonl, or .mcap).")
    var record: String?

    @OptionGroup var search: SearchOptions

    /// Every input, the argument's first.
    private var inputs: [String] { (input.map { [$0] } ?? []) + moreInputs }

    @Argument(parsing: .postTerminator, help: "The program and its arguments, after --.")
    var program: [String] = []

    @Option(help: ArgumentHelp(
        "The program's clock: trace (its clocks read the trace's time, which moves only while it waits) or wall (the machine's; devices fed at --rate). Default: trace, or wall with --live, --rate or a camera.",
        valueName: "trace|wall"), transform: { text in
            guard let clock = ProgramClock(rawValue: text) else { throw ValidationError("--clock \(text): expected trace or wall") }
            return clock
        })
    var clock: ProgramClock?

    @Option(help: "Feed the devices N times faster than real time, on the machine's clock (implies --clock wall).")
    var rate: Double?

    @Option(
        help: "Stop the program this many trace seconds after the first input (by default, when the inputs end).",
        transform: { text in
            // Read as a scenario's times are: the decimal text in whole nanoseconds, no Double in between.
            guard let seconds = Seconds(decimalText: text), seconds >= .zero else {
                throw ValidationError("expected 0 or more seconds, with at most nine decimal places")
            }
            return seconds
        })
    var end: Seconds?

    @Option(help: "Seconds between SIGTERM and SIGKILL when the program is stopped.")
    var grace: Double?

    @Option(name: .customLong("device"), help: ArgumentHelp("Serve a channel as a device type (repeatable).", valueName: "channel=type"))
    var devices: [String] = []

    @Option(name: .customLong("env"), help: ArgumentHelp("Add a variable to the program's environment (repeatable).", valueName: "name=value"))
    var environment: [String] = []

    @Option(help: "Inject the faults of this plan into the inputs (docs/faults.md).")
    var faults: String?

    @Option(name: .customLong("event"), help: ArgumentHelp("Turn output lines matching a regular expression into an event (repeatable).", valueName: "regex=event"))
    var patterns: [String] = []

    @Flag(help: "Lines the program prints as JSON objects with an \"event\" key are events.")
    var jsonEvents = false

    @Flag(help: "Give the program no captured ALSA speaker.")
    var noSpeaker = false

    @Flag(help: "Print only the event log, not the program's lines.")
    var quiet = false

    func validate() throws {
        if inputs.isEmpty && liveDevices.isEmpty { throw ValidationError("give the inputs (traces or scripts), a program scenario, or --live devices") }
        if !inputs.isEmpty && !liveDevices.isEmpty { throw ValidationError("--live serves live devices alone; record them, then serve the trace beside other inputs") }
        if !liveDevices.isEmpty, record == nil { throw ValidationError("--live needs --record FILE: the live devices are recorded as they are served") }
        if !liveDevices.isEmpty, rate != nil { throw ValidationError("--rate is for inputs from files; live devices come at their own pace") }
        if let rate, !(rate > 0 && rate.isFinite) { throw ValidationError("--rate takes a positive number") }
        if rate != nil, clock == .trace { throw ValidationError("--rate paces the machine's clock: on the trace's clock the program runs as fast as it waits; drop --rate or use --clock wall") }
        if let end, !(end >= 0) { throw ValidationError("--end takes 0 or more seconds") }
        if let grace, !(grace >= 0) { throw ValidationError("--grace takes 0 or more seconds") }
        for pair in devices + environment where !pair.contains("=") { throw ValidationError("'\(pair)': expected name=value") }
        if isScenario {
            if inputs.count > 1 { throw ValidationError("a program scenario runs alone; give it without other inputs") }
            if !program.isEmpty || !devices.isEmpty || !environment.isEmpty || faults != nil || !patterns.isEmpty || jsonEvents {
                throw ValidationError("a program scenario gives its own program, devices, environment, faults and events")
            }
        } else if program.isEmpty {
            throw ValidationError("give the program after --, as in: \(HALCommandLine.toolName) exec walk.json -- python3 guide.py")
        }
    }

    private var isScenario: Bool { input?.hasSuffix(".run.json") == true }

    func run() async throws {
        // A write into a pipe or FIFO whose reader has gone (a program that closed its output, a node's host that has
        // ended) is an error to handle, not a reason for hal to die.
        signal(SIGPIPE, SIG_IGN)
        let quiet = quiet
        let onOutput: @Sendable (ProgramRun.OutputLine) -> Void = { line in
            guard !quiet else { return }
            var out = StandardOutput()
            out.line(printfFormat("[%9.3f] ", line.seconds) + (line.stream == .stderr ? "stderr: " : "") + line.text)
            out.flush()
        }
        let onReport: @Sendable (String) -> Void = { printError("\(HALCommandLine.toolName) exec: \($0)") }
        let running: Task<Int32, any Error>
        if isScenario {
            let scenario = try ProgramScenario(path: inputs[0])
            running = Task {
                let (run, session) = try await scenario.run(onOutput: onOutput, onReport: onReport)
                var out = StandardOutput()
                for line in session.logLines { out.line(line) }
                for expectation in session.expectations { out.line(expectation.line) }
                out.flush()
                if !session.passed { return 1 }
                return Self.status(run)
            }
        } else if !liveDevices.isEmpty {
            running = try startLive(onOutput: onOutput, onReport: onReport)
        } else {
            var trace = try Trace.merging(inputs.map { try Trace.loadInput(path: $0) })
            if let faults {
                try trace.inject(FaultPlan.load(path: faults))
            }
            let options = try runOptions(live: nil)
            let inputs = trace
            running = Task {
                let run = try await ProgramRun(inputs: inputs, options: options).run(onOutput: onOutput, onReport: onReport)
                Self.printEvents(run)
                return Self.status(run)
            }
        }
        let stop = StopConditions(cancelling: running, after: nil)
        let status: Int32
        do {
            status = try await running.value
        } catch {
            stop.disarm()
            throw error
        }
        stop.disarm()
        if status != 0 { throw ExitCode(status) }
    }

    /// The run's options from the command's.
    private func runOptions(live: LiveReadings?) throws -> ProgramRun.Options {
        var requested: [String: [String]] = [:]
        for pair in devices {
            let (channel, type) = Self.split(pair)
            requested[channel, default: []].append(type)
        }
        var variables: [String: String] = [:]
        for pair in environment {
            let (name, value) = Self.split(pair)
            variables[name] = value
        }
        let outputPatterns = try OutputPatterns(patterns.map { pair in
            let (pattern, event) = Self.splitLast(pair)
            return OutputPatterns.Pattern(pattern: pattern, event: event)
        }, jsonEvents: jsonEvents)
        return ProgramRun.Options(
            program: program, rate: rate ?? 1, end: end, grace: grace ?? 2, environment: variables, devices: requested,
            speaker: !noSpeaker, patterns: outputPatterns, live: live, clock: clock ?? (rate != nil ? .wall : nil))
    }

    /// Opens the live devices, records them into `--record` and serves each reading to the program as it is recorded;
    /// when the devices end, the program's inputs do.
    private func startLive(
        onOutput: @escaping @Sendable (ProgramRun.OutputLine) -> Void, onReport: @escaping @Sendable (String) -> Void
    ) throws -> Task<Int32, any Error> {
        let factory = makeDeviceFactory(searchFolders: search.folders)
        var sources: [RecordingSource] = []
        var taken: Set<String> = []
        for uri in liveDevices {
            let device = try factory.open(uri, as: (any ReadingSource).self)
            sources.append(RecordingSource(id: RecordCommand.channelID(for: device.info, uri: uri, taken: &taken), device: device))
        }
        let live = LiveReadings(channels: Set(sources.indices))
        let recorder = try TraceRecorder(
            path: record!, sources: sources, metadata: ["recorded-by": "\(HALCommandLine.toolName) exec"], onRecord: { live.publish($0) })
        let inputs = Trace(header: TraceHeader(channels: sources.map(\.channel)), records: [])
        let options = try runOptions(live: live)
        let path = record!
        return Task {
            let recording = Task {
                let summary = try await recorder.run()
                live.finish()
                return summary
            }
            let run: ProgramRun.Result
            do {
                run = try await ProgramRun(inputs: inputs, options: options).run(onOutput: onOutput, onReport: onReport)
            } catch {
                recording.cancel()
                live.finish()
                throw error
            }
            recording.cancel()
            let summary = try await recording.value
            live.finish()
            onReport("recorded \(summary.counts.reduce(0, +)) readings into \(path)")
            Self.printEvents(run)
            return Self.status(run)
        }
    }

    /// Prints the run's event log.
    static func printEvents(_ run: ProgramRun.Result) {
        var out = StandardOutput()
        for event in run.events { out.line(EventLog.line(event, start: run.start)) }
        out.flush()
    }

    /// The command's exit status for a run: the program's own when it exited, 128 + the signal when it crashed, 130
    /// when interrupted, 0 when it was stopped at the end of its inputs or the end.
    static func status(_ run: ProgramRun.Result) -> Int32 {
        switch (run.ending, run.termination) {
        case (.exited, .exited(let status)): return status
        case (.exited, .signaled(let signal)): return 128 + signal
        case (.interrupted, _): return 130
        default: return 0
        }
    }

    static func split(_ pair: String) -> (String, String) {
        let index = pair.firstIndex(of: "=")!
        return (String(pair[..<index]), String(pair[pair.index(after: index)...]))
    }

    static func splitLast(_ pair: String) -> (String, String) {
        guard let index = pair.lastIndex(of: "=") else { return (pair, pair) }
        return (String(pair[..<index]), String(pair[pair.index(after: index)...]))
    }
}

