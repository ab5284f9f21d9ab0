import AppCore
import FoundationEssentials
import HAL
import Replay
public import ScenarioSuite
import TraceFormat

/// Runs seeded variants of a scenario file of another form than an app's (a program scenario), which a
/// ``ScenarioSuite/ScenarioFileRunner`` describes as an ``ScenarioSuite/ExplorableFile``: the same variants an app
/// scenario's explorer draws (its own faults plus faults from its space, its scripts reseeded), each injected into
/// the inputs and run by the runner. A ``Shrinker`` made from the explorer shrinks them.
public struct FileExplorer: Sendable {
    /// The scenario file.
    public let path: String
    /// The file as its runner describes it.
    public let file: ExplorableFile
    /// The runner, which runs a shrunk case's written file as `hal test` does.
    public let runner: any ScenarioFileRunner
    /// What the variants draw from: the file's space, or the default space of its inputs without the app's slow
    /// speaker: a program's run plays through its own.
    public let space: FaultSpace
    /// Seconds from the first input to the last: the span windows are drawn in.
    public let length: Double
    /// Whether any input is a script whose noise a variant reseeds.
    let reseeds: Bool

    /// An explorer of the file at `path`, as `runner` describes it. Errors name the file.
    public init(path: String, runner: any ScenarioFileRunner) throws {
        self.path = path
        self.runner = runner
        file = try runner.explorable(path: path)
        let inputs = file.inputs
        (space, length, reseeds) = try FaultSpace.frame(
            inputs: inputs, inputPaths: file.inputPaths, end: file.parts.end, spacePath: file.spacePath, given: nil,
            defaults: .defaults(for: inputs.header, speaker: false))
    }

    /// Variant `index` of the run seeded `seed`: the same on every machine, whichever shard runs it.
    public func variant(_ index: Int, seed: UInt64) -> Variant {
        Variant.draw(index, seed: seed, scenario: path, space: space, length: length, ownPlan: file.ownPlan, reseeds: reseeds)
    }

    /// Runs a variant: its plan injected into its inputs. Golden logs are not compared: the faults change the log.
    public func run(_ variant: Variant) async -> VariantResult {
        await VariantResult.timed(variant, expectations: file.parts.expect ?? []) {
            var inputs = variant.reseeded ? try file.reseeded(variant.seed) : file.inputs
            try inputs.inject(variant.plan)
            return try await file.run(file.parts, inputs)
        }
    }
}
