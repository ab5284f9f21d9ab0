import LibC
import ArgumentParser
import FoundationEssentials
import HAL
import Exploration
import Session
import ScenarioSuite
import ProgramSession
import TraceFormat

/// `hal test [PATH…]`: runs every scenario under the paths, side by side or as one shard of a CI matrix.
struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run every scenario (*.run.json) under the paths through the session library; exit 1 when any fails.",
        discussion: """
            Each scenario's expectations are checked, and its log is compared with the golden log beside it \
            (NAME.events.log), with a unified diff when they differ. --shard K/N (or HAL_TEST_SHARD, or GitLab's \
            CI_NODE_INDEX and CI_NODE_TOTAL) runs part K of N; the parts never overlap and together are the suite. \
            Ctrl-C stops the run and still writes the reports of what finished. See docs/ci.md. \
            --explore N runs N seeded variants of each scenario instead, with faults drawn from its fault space and \
            its scripted inputs reseeded, and reports each failing variant with its seed and plan; --shrink turns each \
            failing variant into a minimal scenario, fault plan and trace written beside the scenario. See \
            docs/exploring.md.
            """)

    @Argument(help: "Files or folders to search for *.run.json (folders recursively).")
    var paths: [String] = ["traces"]

    @Option(help: "How many scenarios run at once; the number of cores by default.")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Run part K of N of the suite, such as 2/4.")
    var shard: String?

    @Option(help: "Write a JUnit XML report to this file.")
    var junit: String?

    @Option(help: "Write a JSON report to this file.")
    var json: String?

    @Flag(help: "Rewrite the golden logs that differ (or are missing) with this run's, and say which changed.")
    var updateGolden = false

    @Flag(help: "Run each scenario again, paced in real time on a virtual clock, and fail on any difference in its log.")
    var verifyDeterminism = false

    @Option(help: "Run N seeded variants of each scenario, with faults drawn from its fault space (docs/exploring.md).")
    var explore: Int?

    @Option(help: "The exploration's seed: the same seed gives the same variants on every machine.")
    var seed: UInt64 = 1

    @Option(help: "With --explore, run only variant K (from 0) of each scenario: what a failing variant's report says to run.")
    var variant: Int?

    @Flag(help: "With --explore, shrink each failing variant to a minimal case, written beside its scenario as NAME.min-SEED-K.*.")
    var shrink = false

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs takes 1 or more") }
        if let shard, Shard(shard) == nil { throw ValidationError("--shard takes K/N with 1 ≤ K ≤ N, such as 2/4") }
        if let explore, explore < 1 { throw ValidationError("--explore takes 1 or more variants") }
        if explore == nil, variant != nil || shrink { throw ValidationError("--variant and --shrink go with --explore N") }
        if let variant, let explore, !(0..<explore).contains(variant) {
            throw ValidationError("--variant \(variant) is not among the \(explore) variants (0 to \(explore - 1))")
        }
        if explore != nil, updateGolden || verifyDeterminism {
            throw ValidationError("--explore compares no golden logs and checks no determinism: variants change the log")
        }
    }

    func run() async throws {
        let catalog = HALCommandLine.catalog
        var scenarios = try ScenarioDiscovery.scenarios(under: paths)
        if scenarios.isEmpty { throw FileError(path: paths.joined(separator: ", "), "no scenarios (*.run.json) found") }
        // The reports are written when the suite has run: a path they cannot be written to is refused before it does.
        for path in [junit, json].compactMap({ $0 }) { try FileWrites.checkWritable(path) }
        let part = try shard.flatMap(Shard.init) ?? Shard.fromEnvironment(ProcessInfo.processInfo.environment)
        if let explore { return try await runExploration(scenarios, count: explore, part: part, catalog: catalog) }
        if let part { scenarios = part.select(scenarios) }
        let options = ScenarioSuite.Options(
            jobs: jobs, updateGolden: updateGolden, verifyDeterminism: verifyDeterminism, outputs: .devices,
            runners: [ProgramScenarioRunner()])
        let suite = ScenarioSuite(scenarios: scenarios, catalog: catalog, options: options)
        printError("\(HALCommandLine.toolName) test: \(counted(scenarios.count, "scenario"))\(part.map { " (shard \($0))" } ?? ""), \(jobs) at a time")
        let progress = ProgressLine(interactive: isatty(STDERR_FILENO) == 1)
        let running = Task { () async throws -> SuiteReport in await suite.run { result, counts in progress.show(result, counts) } }
        let stop = StopConditions(cancelling: running, after: nil)
        let report = try await running.value
        stop.disarm()
        progress.finish()

        for result in report.results where result.golden == .updated || result.golden == .created {
            printLine("golden: \(result.golden == .created ? "wrote" : "updated") \(ScenarioResult.goldenPath(of: result.path))")
        }
        try writeReports(report, suiteName: "\(HALCommandLine.toolName) test")
        if report.interrupted { printLine("interrupted: \(report.results.count) of \(counted(scenarios.count, "scenario")) finished") }
        printLine("ran \(counted(report.results.count, "scenario")) in \(printfFormat("%.1f", report.seconds)) s")
        printLine(report.summary)
        if report.interrupted { throw ExitCode(130) }
        if report.failed > 0 { throw ExitCode(1) }
    }
}

extension TestCommand {
    /// Writes `report` where `--junit` and `--json` say.
    func writeReports(_ report: SuiteReport, suiteName: String) throws {
        if let junit { try FileWrites.write(Array(report.junitXML(suiteName: suiteName).utf8), to: junit) }
        if let json { try FileWrites.write([UInt8](report.json()), to: json) }
    }

    /// `--explore N`: the variants of every scenario, the shard's part of them, then `--shrink` on each failure.
    func runExploration(_ scenarios: [String], count: Int, part: Shard?, catalog: AppCatalog) async throws {
        let options = Exploration.Options(
            count: count, seed: seed, jobs: jobs, shard: part, only: variant, outputs: .devices, runners: [ProgramScenarioRunner()])
        let exploration = Exploration(scenarios: scenarios, catalog: catalog, options: options)
        let variants = variant == nil ? count : 1
        printError("\(HALCommandLine.toolName) test: exploring \(counted(variants, "variant")) of \(counted(scenarios.count, "scenario")), seed \(seed)\(part.map { " (shard \($0))" } ?? ""), \(jobs) at a time")
        let progress = ProgressLine(interactive: isatty(STDERR_FILENO) == 1, failuresOnly: true)
        let running = Task { () async throws -> ExplorationReport in
            await exploration.run { result, counts in progress.show(ScenarioResult(variant: result), counts) }
        }
        let stop = StopConditions(cancelling: running, after: nil)
        let report = try await running.value
        stop.disarm()
        progress.finish()
        for item in report.unexplored {
            printLine("\(item.status == .skipped ? "SKIP " : "ERROR") \(item.path)\n    \(item.failures.joined(separator: "\n    "))")
        }
        var shrunk: [String: (ShrunkCase, ShrunkCase.Files)] = [:]
        if shrink {
            for (failure, outcome) in await report.shrinkFailures(jobs: jobs) {
                switch outcome {
                case .success(let (minimal, files)):
                    shrunk[failure.variant.name] = (minimal, files)
                    printLine("""
                        shrunk \(failure.variant.name) in \(minimal.runs) runs: \(minimal.failure)
                            before: \(minimal.before)
                            after:  \(minimal.after)
                            wrote \(files.scenario), \(files.faults), \(files.trace)
                            reproduce: \(HALCommandLine.toolName) test \(files.scenario)
                        """)
                case .failure(let error):
                    printLine("could not shrink \(failure.variant.name): \(error)")
                }
            }
        }
        let suite = report.suiteReport(shrunk: shrunk, tool: HALCommandLine.toolName)
        try writeReports(suite, suiteName: "\(HALCommandLine.toolName) test --explore")
        printLine(report.summary)
        if report.interrupted { throw ExitCode(130) }
        if !report.failures.isEmpty || report.unexplored.contains(where: { $0.status == .error }) { throw ExitCode(1) }
    }
}

extension ScenarioResult {
    /// A variant's result as a progress line shows it.
    init(variant result: VariantResult) {
        self.init(path: result.variant.name)
        status = result.error != nil ? .error : result.failed ? .failed : .passed
        seconds = result.seconds
        failures = (result.error.map { [$0] } ?? result.failures)
            + (result.failed ? [result.variant.details(tool: HALCommandLine.toolName)] : [])
    }
}

/// Writes a line to standard output at once, so that a CI log shows each scenario as it finishes.
private func printLine(_ text: String) {
    var out = StandardOutput()
    out.line(text)
    out.flush()
}

/// One line per scenario as it finishes, with a progress line under them on a terminal (plain lines in a CI log).
private final class ProgressLine: Sendable {
    let interactive: Bool
    /// Whether passing results go unprinted (an exploration's thousands of variants).
    let failuresOnly: Bool
    private let lastPlain = Locked(0)

    init(interactive: Bool, failuresOnly: Bool = false) {
        self.interactive = interactive
        self.failuresOnly = failuresOnly
    }

    func show(_ result: ScenarioResult, _ counts: SuiteProgress) {
        let word = switch result.status {
        case .passed: "PASS "
        case .failed: "FAIL "
        case .error: "ERROR"
        case .skipped: "SKIP "
        }
        var text = "\(word) \(printfFormat("%7.2f", result.seconds)) s  \(result.path)" + (result.app.map { " (\($0))" } ?? "")
        for failure in result.failures {
            text += "\n" + failure.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n")
        }
        let quiet = failuresOnly && result.status == .passed
        let left = counts.estimatedRemaining.map { printfFormat(", about %.0f s left", $0) } ?? ""
        let status = "[\(counts.done)/\(counts.total)] \(counts.passed) passed, \(counts.failed) failed, \(counts.skipped) skipped\(left)"
        if interactive {
            // Clear the progress line, print the result, redraw the progress line.
            printError("\r\u{1B}[K" + (quiet ? "" : text + "\n") + status, terminator: "")
        } else {
            if !quiet { printLine(text) }
            // A plain progress line every tenth of the suite.
            let step = max(1, counts.total / 10)
            let due = lastPlain.withLock { last in
                guard counts.done - last >= step || counts.done == counts.total else { return false }
                last = counts.done
                return true
            }
            if due { printLine("progress: " + status) }
        }
    }

    func finish() {
        if interactive { printError("\r\u{1B}[K", terminator: "") }
    }
}
