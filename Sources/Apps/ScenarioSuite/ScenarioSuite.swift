import HALTestDoubles
import FoundationEssentials
public import HAL
public import AppCore
public import Replay
public import Session
public import TraceFormat

/// Runs a suite of scenario files through the session library, side by side, and says what each did: what
/// `hal test` runs, and what a project's own command line runs with its own apps.
public struct ScenarioSuite: Sendable {
    /// The scenario files, in order.
    public let scenarios: [String]
    /// The apps the scenarios name.
    public let catalog: AppCatalog
    /// How to run them.
    public var options: Options

    /// How a suite runs.
    public struct Options: Sendable {
        /// How many scenarios run at once.
        public var jobs: Int
        /// Rewrite each golden log that differs (or is missing) instead of failing on it.
        public var updateGolden: Bool
        /// Run each scenario a second time, paced, and fail on any byte of difference in its log.
        public var verifyDeterminism: Bool
        /// How many lines of a scenario's event log its report keeps (the tail).
        public var logTail: Int
        /// The speaker and screen each scenario's replay makes.
        public var outputs: SimulatedOutputs
        /// Runners for scenario files that are not an app's: the first that accepts a file runs it.
        public var runners: [any ScenarioFileRunner]

        /// Options: `jobs` at once, nothing else.
        public init(
            jobs: Int = 1, updateGolden: Bool = false, verifyDeterminism: Bool = false, logTail: Int = 20,
            outputs: SimulatedOutputs = .doubles, runners: [any ScenarioFileRunner] = []
        ) {
            self.outputs = outputs
            self.runners = runners
            self.jobs = max(1, jobs)
            self.updateGolden = updateGolden
            self.verifyDeterminism = verifyDeterminism
            self.logTail = logTail
        }
    }

    /// A suite of `scenarios`, whose apps come from `catalog`.
    public init(scenarios: [String], catalog: AppCatalog, options: Options = Options()) {
        self.scenarios = scenarios
        self.catalog = catalog
        self.options = options
    }

    /// Runs the suite. `onResult` gets each scenario's result as it finishes, in finishing order, with the counts so
    /// far; the report lists them in the suite's order. Cancelling the task stops the run: the scenarios that
    /// finished are reported, the rest are not.
    public func run(onResult: @Sendable (ScenarioResult, SuiteProgress) -> Void = { _, _ in }) async -> SuiteReport {
        let clock = ContinuousClock()
        let started = clock.now
        var results: [Int: ScenarioResult] = [:]
        var progress = SuiteProgress(total: scenarios.count)
        await forEachConcurrently(scenarios.count, jobs: options.jobs, { index in await self.runOne(self.scenarios[index]) }) { index, finished in
            guard let result = finished else { return }
            results[index] = result
            progress.add(result, elapsed: started.duration(to: clock.now).seconds)
            onResult(result, progress)
        }
        let finished = scenarios.indices.compactMap { results[$0] }
        return SuiteReport(
            results: finished, seconds: started.duration(to: clock.now).seconds, interrupted: finished.count < scenarios.count)
    }

    /// Runs one scenario, turning every failure, a bad file among them, into its result; `nil` when the run was
    /// cancelled before the scenario finished.
    func runOne(_ path: String) async -> ScenarioResult? {
        let clock = ContinuousClock()
        let started = clock.now
        var result = ScenarioResult(path: path)
        if let runner = options.runners.first(where: { $0.accepts(path: path) }) {
            return await runOther(path, runner: runner, result: result, started: started)
        }
        do {
            let scenario = try Scenario(path: path)
            result.app = scenario.file.app
            if let reason = scenario.file.skip {
                result.status = .skipped
                result.failures = [reason]
                return result
            }
            let run = try await scenario.run(catalog: catalog, outputs: options.outputs)
            let lines = run.logLines
            result.logTail = Array(lines.suffix(options.logTail))
            result.expectations = run.expectations.map(\.line)
            result.failures += run.expectations.filter { !$0.passed }.map(\.line)
            if options.verifyDeterminism {
                let paced = try await scenario.run(catalog: catalog, outputs: options.outputs, pacing: .realtime, pacingClock: VirtualClock(advancesOnSleep: true))
                if paced.logLines != lines {
                    result.failures.append(
                        "not deterministic: the log paced in real time differs from the unpaced one\n"
                            + LineDiff.unified(old: lines, new: paced.logLines, oldName: "unpaced", newName: "paced"))
                }
            }
            try checkGolden(path: path, lines: lines, result: &result)
            result.status = result.failures.isEmpty ? .passed : .failed
        } catch {
            if Task.isCancelled { return nil }
            result.status = .error
            result.failures = ["\(error)"]
        }
        result.seconds = started.duration(to: clock.now).seconds
        return result
    }

    /// Runs a scenario file that `runner` accepts. When the runner says its run is reproducible, its log is checked
    /// against the golden log and, with `verifyDeterminism`, against a second run; else (a run in real time) by the
    /// expectations only.
    private func runOther(_ path: String, runner: any ScenarioFileRunner, result: ScenarioResult, started: ContinuousClock.Instant) async -> ScenarioResult? {
        var result = result
        do {
            let (name, skip) = try runner.prepare(path: path)
            result.app = name
            if let skip {
                result.status = .skipped
                result.failures = [skip]
                return result
            }
            let outcome = try await runner.run(path: path)
            let run = outcome.session
            let lines = run.logLines
            result.logTail = Array(lines.suffix(options.logTail))
            result.expectations = run.expectations.map(\.line)
            result.failures += run.expectations.filter { !$0.passed }.map(\.line)
            if outcome.reproducible {
                if options.verifyDeterminism {
                    let again = try await runner.run(path: path).session.logLines
                    if again != lines {
                        result.failures.append(
                            "not deterministic: a second run's log differs from the first\n"
                                + LineDiff.unified(old: lines, new: again, oldName: "first run", newName: "second run"))
                    }
                }
                try checkGolden(path: path, lines: lines, result: &result)
            }
            result.status = result.failures.isEmpty ? .passed : .failed
        } catch {
            if Task.isCancelled { return nil }
            result.status = .error
            result.failures = ["\(error)"]
        }
        result.seconds = started.duration(to: ContinuousClock().now).seconds
        return result
    }

    /// Compares the log with the golden log beside the scenario (`NAME.events.log` for `NAME.run.json`), or
    /// rewrites it when asked.
    private func checkGolden(path: String, lines: [String], result: inout ScenarioResult) throws {
        let golden = ScenarioResult.goldenPath(of: path)
        let text = lines.map { $0 + "\n" }.joined()
        let existing = FileManager.default.contents(atPath: golden).map { String(decoding: $0, as: UTF8.self) }
        if options.updateGolden {
            guard existing != text else { return }
            try Data(text.utf8).write(to: URL(fileURLWithPath: golden))
            result.golden = existing == nil ? .created : .updated
            return
        }
        guard let existing else { return }
        result.golden = .matched
        guard existing != text else { return }
        result.golden = .differs
        let expected = existing.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        result.failures.append(
            "the event log differs from \(golden):\n"
                + LineDiff.unified(old: expected.last == "" ? Array(expected.dropLast()) : expected, new: lines, oldName: golden, newName: "this run"))
    }
}

/// Runs scenario files of another form than an app's, such as `hal exec`'s program scenarios, inside a suite: the
/// extension point through which a suite runs what the light core cannot (a program on simulated devices).
public protocol ScenarioFileRunner: Sendable {
    /// Whether the file at `path` is one this runner runs.
    func accepts(path: String) -> Bool
    /// Reads and checks the file: the name reports show (in place of an app's) and why it is skipped, if it is.
    func prepare(path: String) throws -> (name: String, skip: String?)
    /// Runs it, with its expectations checked.
    func run(path: String) async throws -> ScenarioFileRun
    /// The file as `hal test --explore` varies it: its inputs, its own faults and how to run it on other inputs.
    /// Throws, saying why, when the file cannot be explored (the default).
    func explorable(path: String) throws -> ExplorableFile
}

extension ScenarioFileRunner {
    public func explorable(path: String) throws -> ExplorableFile {
        throw ScriptError.located(file: path, "this kind of scenario cannot be explored")
    }
}

/// What exploration's shrinking changes in a scenario of any form: its expectations, where it ends and its scripted
/// commands. The rest of the file (the app or program, its paths) stays as written.
public struct ScenarioParts: Sendable, Hashable {
    /// What must hold.
    public var expect: [EventExpectation]?
    /// Seconds after the first input at which the run ends; where the inputs end when absent.
    public var end: Seconds?
    /// User commands at times (an app's); `nil` for a form without them.
    public var commands: [AppScenario.ScriptedCommand]?

    /// The parts of a scenario.
    public init(expect: [EventExpectation]?, end: Seconds?, commands: [AppScenario.ScriptedCommand]? = nil) {
        self.expect = expect
        self.end = end
        self.commands = commands
    }
}

/// A scenario file of another form than an app's, as exploration varies it: seeded variants of its inputs, each with
/// a fault plan injected, run and checked by its expectations; and, for shrinking, run with its parts changed and
/// written again as a file of its form.
public struct ExplorableFile: Sendable {
    /// What reports name it by, in place of an app.
    public var name: String
    /// The inputs, with their own seeds and without the file's faults.
    public var inputs: Trace
    /// The input files, to tell whether a variant can reseed a script's noise.
    public var inputPaths: [String]
    /// The file's own fault plan, which every variant keeps.
    public var ownPlan: FaultPlan?
    /// The fault space file it names, if any.
    public var spacePath: String?
    /// Its expectations, end and commands as written.
    public var parts: ScenarioParts
    /// The inputs with their scripts' noise reseeded.
    public var reseeded: @Sendable (UInt64) throws -> Trace
    /// Runs it with `parts` in place of its own on `inputs` (a variant's, faults injected) and returns each of
    /// `parts`' expectations' results, in order.
    public var run: @Sendable (_ parts: ScenarioParts, _ inputs: Trace) async throws -> [EventExpectationResult]
    /// The file with `parts` in place of its own, its inputs the trace file `inputs` and its faults the plan file
    /// `faults` (both named relative to `folder`, where it is written), without a fault space: a shrunk case's
    /// scenario, as bytes.
    public var encode: @Sendable (_ parts: ScenarioParts, _ folder: String, _ inputs: String, _ faults: String) throws -> [UInt8]

    /// A file as exploration sees it.
    public init(
        name: String, inputs: Trace, inputPaths: [String], ownPlan: FaultPlan?, spacePath: String?, parts: ScenarioParts,
        reseeded: @escaping @Sendable (UInt64) throws -> Trace, run: @escaping @Sendable (_ parts: ScenarioParts, _ inputs: Trace) async throws -> [EventExpectationResult],
        encode: @escaping @Sendable (_ parts: ScenarioParts, _ folder: String, _ inputs: String, _ faults: String) throws -> [UInt8]
    ) {
        self.name = name
        self.inputs = inputs
        self.inputPaths = inputPaths
        self.ownPlan = ownPlan
        self.spacePath = spacePath
        self.parts = parts
        self.reseeded = reseeded
        self.run = run
        self.encode = encode
    }
}

/// What a ``ScenarioFileRunner`` reports of one run.
public struct ScenarioFileRun: Sendable {
    /// The events and each expectation's result.
    public var session: SessionResult
    /// Whether the file gives the same event log on every run (a program on the trace's clock does): the suite then
    /// checks it against its golden log, and with `verifyDeterminism` against a second run.
    public var reproducible: Bool

    /// A run's report.
    public init(session: SessionResult, reproducible: Bool) {
        self.session = session
        self.reproducible = reproducible
    }
}

/// What one scenario did.
public struct ScenarioResult: Sendable, Codable, Hashable {
    /// How it ended.
    public enum Status: String, Sendable, Codable, Hashable {
        /// Every expectation held, and the golden log and the determinism check agreed.
        case passed
        /// Something it checks did not hold.
        case failed
        /// It could not run: a file that does not parse, an unknown app, a missing trace.
        case error
        /// Its file says to skip it.
        case skipped
    }

    /// What became of the golden log.
    public enum Golden: String, Sendable, Codable, Hashable {
        /// The log matched it.
        case matched
        /// The log differs from it.
        case differs
        /// It was rewritten with this run's log.
        case updated
        /// It did not exist and was written.
        case created
    }

    /// The scenario file.
    public var path: String
    /// The app it names, once the file is read.
    public var app: String?
    /// How it ended.
    public var status: Status = .error
    /// Seconds it took.
    public var seconds: Double = 0
    /// Each expectation's report line, in order.
    public var expectations: [String] = []
    /// What went wrong: failed expectations, a golden diff, a determinism diff, or the error that stopped it; for a
    /// skipped scenario, why.
    public var failures: [String] = []
    /// The golden log, when there is one.
    public var golden: Golden?
    /// The last lines of the event log.
    public var logTail: [String] = []

    /// A result for `path`, not yet run.
    public init(path: String) {
        self.path = path
    }

    /// The golden log of a scenario file: `NAME.events.log` beside `NAME.run.json`.
    public static func goldenPath(of path: String) -> String {
        stem(of: path) + ".events.log"
    }

    /// A scenario file's path without its `.run.json`: what the files that go with it are named from.
    public static func stem(of path: String) -> String {
        path.hasSuffix(".run.json") ? String(path.dropLast(".run.json".count)) : path
    }
}

/// Counts so far, and an estimate of the time left.
public struct SuiteProgress: Sendable, Hashable {
    /// Scenarios in the run.
    public let total: Int
    /// How many have finished.
    public private(set) var done = 0
    /// How many passed.
    public private(set) var passed = 0
    /// How many failed or could not run.
    public private(set) var failed = 0
    /// How many were skipped.
    public private(set) var skipped = 0
    /// Seconds since the run started.
    public private(set) var elapsed = 0.0

    /// Counts for a run of `total`, none finished.
    public init(total: Int) {
        self.total = total
    }

    /// Counts `result`, finished `elapsed` seconds into the run.
    public mutating func add(_ result: ScenarioResult, elapsed: Double) {
        done += 1
        switch result.status {
        case .passed: passed += 1
        case .failed, .error: failed += 1
        case .skipped: skipped += 1
        }
        self.elapsed = elapsed
    }

    /// Seconds left at the pace so far; `nil` before the first scenario finishes.
    public var estimatedRemaining: Double? {
        done == 0 ? nil : elapsed / Double(done) * Double(total - done)
    }
}

/// A suite's results, for the summary line and the reports.
public struct SuiteReport: Sendable, Codable, Hashable {
    /// Each scenario that finished, in the suite's order.
    public var results: [ScenarioResult]
    /// Seconds the run took.
    public var seconds: Double
    /// Whether the run was stopped before every scenario finished.
    public var interrupted: Bool

    /// A report of `results`.
    public init(results: [ScenarioResult], seconds: Double, interrupted: Bool) {
        self.results = results
        self.seconds = seconds
        self.interrupted = interrupted
    }

    /// How many passed.
    public var passed: Int { results.filter { $0.status == .passed }.count }
    /// How many failed or could not run.
    public var failed: Int { results.filter { $0.status == .failed || $0.status == .error }.count }
    /// How many were skipped.
    public var skipped: Int { results.filter { $0.status == .skipped }.count }

    /// `N passed, N failed, N skipped`.
    public var summary: String { "\(passed) passed, \(failed) failed, \(skipped) skipped" }
}
