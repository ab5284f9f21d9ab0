public import AppCore
import FoundationEssentials
import ScenarioSuite
import Synthesis
import HAL
public import Replay
public import Session
import TraceFormat

/// Runs seeded variants of one scenario: its own faults plus faults drawn from its ``FaultSpace``, and its scripted
/// inputs reseeded. The app and the inputs are built once and shared by every variant.
///
/// ```swift
/// let explorer = try ScenarioExplorer(scenario: Scenario(path: "traces/ubc/explorer.run.json"), catalog: catalog)
/// for index in 0..<100 {
///     let result = await explorer.run(explorer.variant(index, seed: 1))
///     if result.failed { print(result.variant.plan) }
/// }
/// ```
public struct ScenarioExplorer: Sendable {
    /// The scenario the variants come from.
    public let scenario: Scenario
    /// The apps the scenario may name.
    public let catalog: AppCatalog
    /// The speaker and screen each run makes.
    public let outputs: SimulatedOutputs
    /// What the variants draw from: the scenario's space file, or the default space of its inputs.
    public let space: FaultSpace
    /// The app, built once from the scenario's config.
    let logic: any RunnableApp
    /// The inputs with their own seeds.
    let inputs: Trace
    /// The scenario's own fault plan, if any.
    let ownPlan: FaultPlan?
    /// Seconds from the first input to the last: the span windows are drawn in.
    public let length: Double
    /// Whether any input is a script whose noise a variant reseeds.
    let reseeds: Bool

    /// An explorer of `scenario`. `space` replaces the scenario's own (or default) space. Errors name the file: a
    /// scenario, config, input or space file that cannot be read.
    public init(scenario: Scenario, catalog: AppCatalog, outputs: SimulatedOutputs = .doubles, space: FaultSpace? = nil) throws {
        self.scenario = scenario
        self.catalog = catalog
        self.outputs = outputs
        logic = try catalog.load(scenario.file.app, config: scenario.configPath)
        inputs = try scenario.loadInputs()
        ownPlan = try scenario.loadFaults()
        (self.space, length, reseeds) = try FaultSpace.frame(
            inputs: inputs, inputPaths: scenario.inputPaths, end: scenario.file.end, spacePath: scenario.explorePath, given: space, defaults: .defaults(for: inputs.header))
    }

    /// Variant `index` of the run seeded `seed`: the same on every machine, whichever shard runs it.
    public func variant(_ index: Int, seed: UInt64) -> Variant {
        Variant.draw(index, seed: seed, scenario: scenario.path, space: space, length: length, ownPlan: ownPlan, reseeds: reseeds)
    }

    /// The inputs a variant replays: reseeded with its seed when it reseeds.
    func inputs(of variant: Variant) throws -> Trace {
        variant.reseeded ? try scenario.loadInputs(reseed: variant.seed) : inputs
    }

    /// Runs a variant and says which expectations failed. Golden logs are not compared: the faults change the log.
    public func run(_ variant: Variant) async -> VariantResult {
        await VariantResult.timed(variant, expectations: scenario.file.expect ?? []) {
            try await scenario.run(catalog: catalog, logic: logic, inputs: inputs(of: variant), outputs: outputs, faults: variant.plan).expectations
        }
    }
}

/// One variant of a scenario: which, with what seed, and the whole fault plan it runs with.
public struct Variant: Sendable, Hashable, Codable {
    /// The scenario file.
    public var scenario: String
    /// Its number in the run, from 0.
    public var index: Int
    /// The run's seed (`hal test --seed`).
    public var runSeed: UInt64
    /// The variant's own seed: its fault plan's seed, and its inputs' noise seed when it reseeds them.
    public var seed: UInt64
    /// Whether the scenario's scripted inputs are reseeded with ``seed``.
    public var reseeded: Bool
    /// The scenario's own faults, then the drawn ones.
    public var plan: FaultPlan

    /// `PATH#variant-INDEX`: how reports name it.
    public var name: String { "\(scenario)#variant-\(index)" }

    /// The name a shrunk case of this variant is written under, beside its scenario: `NAME.min-SEED-K` for
    /// `NAME.run.json`.
    public var minimalName: String {
        ScenarioResult.stem(of: URL(fileURLWithPath: scenario).lastPathComponent) + ".min-\(runSeed)-\(index)"
    }

    /// The fault plan as one line of JSON, keys sorted.
    public var planJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(plan)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// What reports say of a failing variant: its seed, its plan, and the command that runs it again.
    public func details(tool: String = "hal") -> String {
        "seed \(seed) (run seed \(runSeed)), plan: \(planJSON)\nrun again: \(command(tool: tool))"
    }

    /// The command that runs this variant again.
    public func command(tool: String = "hal") -> String {
        "\(tool) test \(scenario) --explore \(index + 1) --seed \(runSeed) --variant \(index)"
    }

    /// Variant `index` of the run seeded `seed` of the scenario at `path`: its own faults plus faults drawn from
    /// `space` for a run of `length` seconds. The same on every machine, whichever shard runs it.
    static func draw(_ index: Int, seed: UInt64, scenario path: String, space: FaultSpace, length: Double, ownPlan: FaultPlan?, reseeds: Bool) -> Variant {
        let own = variantSeed(run: seed, index: index)
        let drawn = space.draw(seed: own, length: length)
        return Variant(scenario: path, index: index, runSeed: seed, seed: own, reseeded: reseeds, plan: FaultPlan(seed: own, faults: (ownPlan?.faults ?? []) + drawn))
    }

    /// The seed of variant `index` in a run seeded `run`: SplitMix64 of the two, so neighbouring variants share nothing.
    static func variantSeed(run: UInt64, index: Int) -> UInt64 {
        var random = SeededRandom(seed: run ^ (UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03))
        return random.next()
    }
}

/// What a variant did.
public struct VariantResult: Sendable, Hashable {
    /// The variant.
    public var variant: Variant
    /// The expectations that failed, in the scenario's order.
    public var failing: [EventExpectation] = []
    /// Their results, with how each failed and on which events.
    public var failingResults: [EventExpectationResult] = []
    /// Their report lines.
    public var failures: [String] { failingResults.map(\.line) }
    /// Why it could not run, if it could not.
    public var error: String?
    /// Seconds it took.
    public var seconds: Double = 0

    /// A result of `variant`, not yet run.
    public init(variant: Variant) {
        self.variant = variant
    }

    /// Whether an expectation failed or the run stopped with an error.
    public var failed: Bool { !failing.isEmpty || error != nil }

    /// What `run` (the expectations' results, in order) did with `variant`, and how long it took.
    static func timed(_ variant: Variant, expectations: [EventExpectation], _ run: () async throws -> [EventExpectationResult]) async -> VariantResult {
        let clock = ContinuousClock()
        let started = clock.now
        var result = VariantResult(variant: variant)
        do {
            for (expectation, outcome) in zip(expectations, try await run()) where !outcome.passed {
                result.failing.append(expectation)
                result.failingResults.append(outcome)
            }
        } catch {
            result.error = "\(error)"
        }
        result.seconds = started.duration(to: clock.now).seconds
        return result
    }
}
