import FoundationEssentials
import AppCore
import HAL
import Replay
import TraceFormat
public import ScenarioSuite
public import Session

/// Explores a suite: N seeded variants of each scenario, side by side, as `hal test --explore N` runs them.
public struct Exploration: Sendable {
    /// The scenario files.
    public let scenarios: [String]
    /// The apps they name.
    public let catalog: AppCatalog
    /// How to run.
    public var options: Options

    /// How an exploration runs.
    public struct Options: Sendable {
        /// Variants of each scenario.
        public var count: Int
        /// The run's seed: the same seed gives the same variants on every machine.
        public var seed: UInt64
        /// How many variants run at once.
        public var jobs: Int
        /// The part of the variants to run, for a CI matrix; all when `nil`.
        public var shard: Shard?
        /// Run only this variant of each scenario.
        public var only: Int?
        /// The speaker and screen each run makes.
        public var outputs: SimulatedOutputs
        /// Runners of scenario files of other forms (program scenarios): a file one accepts is explored through it.
        public var runners: [any ScenarioFileRunner]

        /// Options: `count` variants of each scenario under `seed`.
        public init(
            count: Int, seed: UInt64 = 1, jobs: Int = 1, shard: Shard? = nil, only: Int? = nil, outputs: SimulatedOutputs = .doubles,
            runners: [any ScenarioFileRunner] = []
        ) {
            self.count = count
            self.seed = seed
            self.jobs = max(1, jobs)
            self.shard = shard
            self.only = only
            self.outputs = outputs
            self.runners = runners
        }
    }

    /// An exploration of `scenarios`.
    public init(scenarios: [String], catalog: AppCatalog, options: Options) {
        self.scenarios = scenarios
        self.catalog = catalog
        self.options = options
    }

    /// Runs the variants. `onResult` gets each as it finishes, with the counts so far. A scenario that cannot be
    /// explored (a file that does not parse) is reported as an error; a skipped scenario is skipped.
    public func run(onResult: @Sendable (VariantResult, SuiteProgress) -> Void = { _, _ in }) async -> ExplorationReport {
        let clock = ContinuousClock()
        let started = clock.now
        var explorers: [ScenarioExplorer] = []
        var fileExplorers: [FileExplorer] = []
        var unexplored: [ScenarioResult] = []
        for path in scenarios {
            var result = ScenarioResult(path: path)
            do {
                if let runner = options.runners.first(where: { $0.accepts(path: path) }) {
                    let (name, skip) = try runner.prepare(path: path)
                    result.app = name
                    if let skip {
                        result.status = .skipped
                        result.failures = [skip]
                        unexplored.append(result)
                    } else {
                        fileExplorers.append(try FileExplorer(path: path, runner: runner))
                    }
                    continue
                }
                let scenario = try Scenario(path: path)
                result.app = scenario.file.app
                if let reason = scenario.file.skip {
                    result.status = .skipped
                    result.failures = [reason]
                    unexplored.append(result)
                    continue
                }
                explorers.append(try ScenarioExplorer(scenario: scenario, catalog: catalog, outputs: options.outputs))
            } catch {
                result.failures = ["\(error)"]
                unexplored.append(result)
            }
        }
        // Each explorer as what the work needs of it: a variant by its index, and a run of one.
        let runners: [@Sendable (Int, UInt64) async -> VariantResult] =
            explorers.map { explorer in { @Sendable in await explorer.run(explorer.variant($0, seed: $1)) } }
            + fileExplorers.map { explorer in { @Sendable in await explorer.run(explorer.variant($0, seed: $1)) } }
        let indices = options.only.map { [$0] } ?? Array(0..<options.count)
        var work = runners.indices.flatMap { explorer in indices.map { (explorer, $0) } }
        if let shard = options.shard { work = shard.select(work) }
        var results: [Int: VariantResult] = [:]
        var progress = SuiteProgress(total: work.count)
        let seed = options.seed
        let jobs = work
        await forEachConcurrently(work.count, jobs: options.jobs, { position in
            await runners[jobs[position].0](jobs[position].1, seed)
        }) { position, result in
            results[position] = result
            var counted = ScenarioResult(path: result.variant.name)
            counted.status = result.failed ? .failed : .passed
            progress.add(counted, elapsed: started.duration(to: clock.now).seconds)
            onResult(result, progress)
        }
        let finished = work.indices.compactMap { results[$0] }
        return ExplorationReport(
            explorers: explorers, fileExplorers: fileExplorers, results: finished, unexplored: unexplored,
            seconds: started.duration(to: clock.now).seconds, interrupted: finished.count < work.count)
    }
}

/// What an exploration found.
public struct ExplorationReport: Sendable {
    /// The app scenarios explored, for shrinking what failed.
    public let explorers: [ScenarioExplorer]
    /// The scenario files of other forms explored (program scenarios).
    public let fileExplorers: [FileExplorer]
    /// Every variant that ran, in order: by scenario, then by variant.
    public var results: [VariantResult]
    /// Scenarios that could not be explored, or were skipped.
    public var unexplored: [ScenarioResult]
    /// Seconds the run took.
    public var seconds: Double
    /// Whether it was stopped before every variant ran.
    public var interrupted: Bool

    /// The variants that failed.
    public var failures: [VariantResult] { results.filter(\.failed) }

    /// Variants run a second.
    public var variantsPerSecond: Double { seconds > 0 ? Double(results.count) / seconds : 0 }

    /// `explored 500 variants of 5 scenarios in 2.1 s (238 variants/s): 3 failed`.
    public var summary: String {
        let scenarios = Set(results.map(\.variant.scenario)).count
        return "explored \(results.count) variant\(results.count == 1 ? "" : "s") of \(scenarios) scenario\(scenarios == 1 ? "" : "s") in "
            + printfFormat("%.1f s (%.0f variants/s)", seconds, variantsPerSecond)
            + ": \(failures.isEmpty ? "no variant failed" : "\(failures.count) failed")"
    }

    /// The shrinker of a variant's scenario.
    public func shrinker(of variant: Variant) -> Shrinker? {
        explorers.first { $0.scenario.path == variant.scenario }.map { Shrinker(explorer: $0) }
            ?? fileExplorers.first { $0.path == variant.scenario }.map { Shrinker(explorer: $0) }
    }

    /// Shrinks every failing variant, `jobs` at a time, and writes each minimal case beside its scenario as
    /// ``Variant/minimalName``; the outcomes come in the order of ``failures``.
    public func shrinkFailures(jobs: Int) async -> [(failure: VariantResult, outcome: Result<(ShrunkCase, ShrunkCase.Files), any Error>)] {
        let failures = self.failures
        let shrinkers = failures.map { shrinker(of: $0.variant) }
        var outcomes: [Int: Result<(ShrunkCase, ShrunkCase.Files), any Error>] = [:]
        await forEachConcurrently(failures.count, jobs: jobs, { index in
            let variant = failures[index].variant
            do {
                guard let shrinker = shrinkers[index] else { throw ShrinkError("\(variant.scenario) was not explored") }
                let minimal = try await shrinker.shrink(variant)
                let files = try minimal.write(into: TracePath.folder(ofTraceAt: variant.scenario), name: variant.minimalName)
                try await shrinker.verify(minimal, files: files)
                return .success((minimal, files))
            } catch {
                return .failure(error)
            }
        }) { index, outcome in outcomes[index] = outcome }
        return failures.indices.map { (failures[$0], outcomes[$0]!) }
    }

    /// The report as a suite's, for JUnit and JSON: one test case per variant, named `PATH#variant-N`, whose failure
    /// says the seed, the fault plan, the command that runs it again and, when it was shrunk, the minimal case's
    /// files and the command that runs it.
    public func suiteReport(shrunk: [String: (ShrunkCase, ShrunkCase.Files)] = [:], tool: String = "hal") -> SuiteReport {
        var cases = unexplored
        for result in results {
            var item = ScenarioResult(path: result.variant.name)
            item.app = explorers.first { $0.scenario.path == result.variant.scenario }?.scenario.file.app
                ?? fileExplorers.first { $0.path == result.variant.scenario }?.file.name
            item.seconds = result.seconds
            item.status = result.error != nil ? .error : result.failed ? .failed : .passed
            if result.failed {
                var details = result.variant.details(tool: tool)
                if let (minimal, files) = shrunk[result.variant.name] {
                    details += "\nshrunk in \(minimal.runs) runs to \(files.scenario), \(files.faults), \(files.trace)"
                    details += "\nbefore: \(minimal.before)\nafter: \(minimal.after)\nreproduce: \(tool) test \(files.scenario)"
                }
                item.failures = (result.error.map { [$0] } ?? result.failures).map { $0 + "\n" + details }
            }
            cases.append(item)
        }
        return SuiteReport(results: cases, seconds: seconds, interrupted: interrupted)
    }
}
