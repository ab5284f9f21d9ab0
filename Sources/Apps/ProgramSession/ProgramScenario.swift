public import AppCore
import FoundationEssentials
public import HAL
public import ProgramDevices
public import Replay
public import ScenarioSuite
public import Session
import Synthesis
import SystemSupport
public import TraceFormat

/// A QA scenario for a program rather than an app (`*.run.json` with a `program`): which program, the inputs its
/// simulated devices replay, how its output lines become events, and expectations to check. `hal test` runs these
/// beside app scenarios, with the same reports.
///
/// ```json
/// {"program": ["python3", "campus_guide.py"], "inputs": ["../../traces/ubc/main-mall-tour.walk.json"],
///  "rate": 20, "events": [{"pattern": "^arrived (?<place>\\S+)$", "event": "place.arrived"}],
///  "expect": [{"event": "place.arrived", "with": {"place": "clock-tower"}, "between": [60, 150]}]}
/// ```
/// Paths are relative to the scenario file, and the program runs in the scenario's folder unless `directory` says
/// otherwise.
public struct ProgramScenarioFile: Sendable, Hashable, Codable {
    /// The program and its arguments; a name without `/` is looked up on `PATH`.
    public var program: [String]
    /// The program's working directory, relative to the scenario; the scenario's folder when absent.
    public var directory: String?
    /// Traces or scripts whose channels the devices carry.
    public var inputs: [String]
    /// Device types by channel id (`{"gps": ["nmea"]}`); other channels get their kind's defaults.
    public var devices: [String: [String]]?
    /// Variables added to the program's environment.
    public var environment: [String: String]?
    /// The program's clock: `trace` or `wall`; by default the trace's, or the machine's with `rate` or a camera.
    public var clock: ProgramClock?
    /// How many trace seconds pass in a second on the machine's clock; 1 (real time) when absent.
    public var rate: Double?
    /// Trace seconds after the first input at which the program is stopped; when the inputs end if absent.
    public var end: Seconds?
    /// Seconds between `SIGTERM` and `SIGKILL` when the program is stopped; 2 when absent.
    public var grace: Double?
    /// Whether the program's ALSA default device is captured; true when absent.
    public var speaker: Bool?
    /// A fault plan file injected into the inputs, relative to the scenario.
    public var faults: String?
    /// The fault space `hal test --explore` draws from, relative to the scenario; the inputs' default space when
    /// absent.
    public var explore: String?
    /// Output lines that become events.
    public var events: [OutputPatterns.Pattern]?
    /// Whether JSON object lines with an `event` key become events.
    public var jsonEvents: Bool?
    /// What must hold.
    public var expect: [EventExpectation]?
    /// Why the scenario is skipped, if it is.
    public var skip: String?

    /// Checks the fields, naming the first bad one.
    public func validate() throws(AppConfigError) {
        if program.isEmpty || program[0].isEmpty { throw AppConfigError(field: "program", "give the program and its arguments") }
        if inputs.isEmpty { throw AppConfigError(field: "inputs", "give at least one trace or script") }
        if let rate, !(rate > 0 && rate.isFinite) { throw AppConfigError(field: "rate", "\(rate); expected a positive number") }
        if rate != nil, clock == .trace {
            throw AppConfigError(field: "rate", "paces the machine's clock; on the trace's clock (\"clock\": \"trace\") the program runs as fast as it waits")
        }
        if let end, end < .zero { throw AppConfigError(field: "end", "\(end); expected 0 or more seconds") }
        if let grace, !(grace >= 0 && grace.isFinite) { throw AppConfigError(field: "grace", "\(grace); expected 0 or more seconds") }
        for (index, expectation) in (expect ?? []).enumerated() { try expectation.validate(field: "expect[\(index)]") }
    }
}

/// A program scenario read from its file, ready to run.
public struct ProgramScenario: Sendable {
    /// The file's path.
    public let path: String
    /// What it says.
    public let file: ProgramScenarioFile

    /// Reads and checks a program scenario. Errors name the file, and the line or field.
    public init(path: String) throws {
        try self.init(path: path, file: ScriptFile.decode(path: path))
    }

    /// A program scenario of `file`, as if read from `path` (its paths resolve from there). Errors name the field.
    public init(path: String, file: ProgramScenarioFile) throws {
        do { try file.validate() } catch { throw ScriptError.located(file: path, error.description) }
        self.path = path
        self.file = file
    }

    /// Its expectations and end, which a shrink changes (a program scenario has no scripted commands).
    public var parts: ScenarioParts { ScenarioParts(expect: file.expect, end: file.end) }

    /// The scenario with `parts` in place of its own expectations and end.
    public func with(_ parts: ScenarioParts) throws -> ProgramScenario {
        var changed = file
        changed.expect = parts.expect
        changed.end = parts.end
        return try ProgramScenario(path: path, file: changed)
    }

    /// Whether the scenario file at `path` names a program (a top-level `program` key) rather than an app.
    /// Only the top-level keys are looked at, in place: a suite asks this of every scenario.
    public static func namesProgram(_ path: String) -> Bool {
        guard let bytes = FileReads.contents(of: path) else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            var fields: [JSONScanner.Field] = []
            guard scanner.peek() == UInt8(ascii: "{"), (try? scanner.objectFields(into: &fields)) != nil else { return false }
            return fields.contains { scanner.key($0, is: "program") && buffer[$0.value.lowerBound] == UInt8(ascii: "[") }
        }
    }

    /// The program's name, as reports show it in place of an app's.
    public var name: String { "program " + (file.program.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? "") }

    /// The run's options, with the scenario's paths resolved.
    public func options() throws -> ProgramRun.Options {
        let folder = TracePath.folder(ofTraceAt: path)
        let patterns: OutputPatterns
        do { patterns = try OutputPatterns(file.events ?? [], jsonEvents: file.jsonEvents ?? false) } catch {
            throw ScriptError.located(file: path, error.description)
        }
        return ProgramRun.Options(
            program: file.program, rate: file.rate ?? 1, end: file.end, grace: file.grace ?? 2, environment: file.environment ?? [:],
            directory: file.directory.map { TracePath.resolve($0, inTraceAt: path) } ?? (folder.isEmpty ? "." : folder),
            devices: file.devices ?? [:], speaker: file.speaker ?? true, patterns: patterns, clock: file.clock ?? (file.rate != nil ? .wall : nil))
    }

    /// The input files, resolved against the scenario's folder.
    public var inputPaths: [String] { file.inputs.map { TracePath.resolve($0, inTraceAt: path) } }

    /// The scenario's own fault plan, if it names one.
    public func loadFaults() throws -> FaultPlan? {
        try file.faults.map { try FaultPlan.load(path: TracePath.resolve($0, inTraceAt: path)) }
    }

    /// The inputs merged (their scripts' noise reseeded with `reseed`), with the scenario's faults applied when
    /// `faults` is true.
    public func loadInputs(reseed: UInt64? = nil, faults: Bool = true) throws -> Trace {
        var trace = try Trace.merging(inputPaths.map { try Trace.loadInput(path: $0, reseed: reseed) })
        if faults, let plan = try loadFaults() { try trace.inject(plan) }
        return trace
    }

    /// Runs the program and checks the expectations against its events, the devices' events and the inputs (as
    /// `input:CHANNEL`), on one timeline. The program's ending is an event too: `program.exited` (with `status`),
    /// `program.crashed` (with `signal`) or `program.stopped` (with `reason`).
    /// `inputs` replaces the scenario's (with their faults) when given, as exploration's variants do.
    public func run(
        inputs given: Trace? = nil, stop: ProgramStop = ProgramStop(), onOutput: @escaping @Sendable (ProgramRun.OutputLine) -> Void = { _ in },
        onReport: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> (run: ProgramRun.Result, session: SessionResult) {
        let inputs = try given ?? loadInputs()
        let run: ProgramRun.Result
        do {
            run = try await ProgramRun(inputs: inputs, options: try options()).run(stop: stop, onOutput: onOutput, onReport: onReport)
        } catch let error as ProgramError {
            throw ScriptError.located(file: path, error.description)
        }
        var events = run.events
        events.append(Self.endingEvent(run))
        let expectations = file.expect ?? []
        let inputMatchers = expectations.flatMap(\.matchers).filter(\.isAboutInputs)
        var observed: [(event: AppEvent, delivered: Timestamp, before: Int)] = []
        if !inputMatchers.isEmpty {
            let channels = inputs.header.channels.map(\.id)
            let named = channels.map { id in inputMatchers.contains { $0.matches(name: "input:\(id)") } }
            var index = 0
            // An input stands before the program's events of its own time: on the trace's clock the program answers
            // an input at the input's time, so what it did then came after.
            for record in inputs.records where named[record.channel] {
                while index < events.count, events[index].timestamp < record.timestamp { index += 1 }
                observed.append((AppEvent(timestamp: record.timestamp, name: "input:\(channels[record.channel])", attributes: record.reading.attributes), record.timestamp, index))
            }
        }
        let timeline = EventTimeline(events: events, inputs: observed)
        let session = SessionResult(
            app: name, start: run.start, events: events, expectations: expectations.map { $0.check(timeline, start: run.start) }, recording: nil)
        return (run, session)
    }

    static func endingEvent(_ run: ProgramRun.Result) -> AppEvent {
        let time = run.ended
        switch (run.ending, run.termination) {
        case (.exited, .exited(let status)): return AppEvent(timestamp: time, name: "program.exited", attributes: ["status": .int(Int64(status))])
        case (.exited, .signaled(let signal)):
            return AppEvent(timestamp: time, name: "program.crashed", attributes: ["signal": .int(Int64(signal)), "name": .string(ChildProcess.signalName(signal))])
        default: return AppEvent(timestamp: time, name: "program.stopped", attributes: ["reason": .string(run.ending.rawValue)])
        }
    }
}

extension ProgramScenario {
    /// The scenario with `parts`, written in `folder`: its inputs the trace file `inputs`, its faults the plan file
    /// `faults`, no fault space, and its working directory named from the folder when the folder is not its own.
    func encode(_ parts: ScenarioParts, into folder: String, inputs: String, faults: String) throws -> [UInt8] {
        var written = try with(parts).file
        written.inputs = [inputs]
        written.faults = faults
        written.explore = nil
        let own = TracePath.folder(ofTraceAt: path)
        if written.directory != nil || TracePath.relative(own, from: folder) != "." {
            written.directory = TracePath.relative(written.directory.map { TracePath.resolve($0, inTraceAt: path) } ?? own, from: folder)
        }
        return try WrittenJSON.file(written)
    }
}

/// Program scenarios in `hal test`: the suite hands them files whose top level names a `program`.
public struct ProgramScenarioRunner: ScenarioFileRunner {
    /// A runner.
    public init() {}

    public func accepts(path: String) -> Bool { ProgramScenario.namesProgram(path) }

    public func prepare(path: String) throws -> (name: String, skip: String?) {
        let scenario = try ProgramScenario(path: path)
        return (scenario.name, scenario.file.skip)
    }

    public func run(path: String) async throws -> ScenarioFileRun {
        let (run, session) = try await ProgramScenario(path: path).run()
        return ScenarioFileRun(session: session, reproducible: run.clock == .trace)
    }

    /// A program scenario on the trace's clock: each variant's inputs, faults injected, replayed into the program. On
    /// the machine's clock a variant's verdict would depend on the machine's load, so it is refused.
    public func explorable(path: String) throws -> ExplorableFile {
        let scenario = try ProgramScenario(path: path)
        if scenario.file.clock == .wall || scenario.file.rate != nil {
            throw ScriptError.located(
                file: path, "a program on the machine's clock (\"clock\": \"wall\" or a \"rate\") cannot be explored: its verdicts depend on the machine's load; run it on the trace's clock")
        }
        return ExplorableFile(
            name: scenario.name, inputs: try scenario.loadInputs(faults: false), inputPaths: scenario.inputPaths, ownPlan: try scenario.loadFaults(),
            spacePath: scenario.file.explore.map { TracePath.resolve($0, inTraceAt: path) }, parts: scenario.parts,
            reseeded: { try scenario.loadInputs(reseed: $0, faults: false) },
            run: { parts, inputs in
                let (run, session) = try await scenario.with(parts).run(inputs: inputs)
                guard run.clock == .trace else {
                    throw ScriptError.located(file: path, "a camera puts the program on the machine's clock, where its variants' verdicts depend on the machine's load: it cannot be explored")
                }
                return session.expectations
            },
            encode: { parts, folder, inputs, faults in try scenario.encode(parts, into: folder, inputs: inputs, faults: faults) })
    }
}
