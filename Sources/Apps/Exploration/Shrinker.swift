import AppCore
import FoundationEssentials
public import HAL
import Replay
import ScenarioSuite
import Session
import TraceFormat

/// Turns a failing variant into the smallest case that still fails for the same reason: the same expectation fails
/// in the same way on the same events (``ExpectationFailure/isKept(by:)``: the same kind of failure, "too late" not
/// "never followed", on events that were among the variant's, told apart by name and attributes, not by text).
/// Deterministic: the same variant always shrinks to the same bytes.
///
/// Where the variant passes without its faults and noise, every smaller case must too (``Search/attributable``): an
/// expectation that something happens cannot be made to fail by cutting away what makes it happen.
///
/// It keeps only the failing expectation, goes back to the inputs' own seeds when the failure does not need the
/// reseed, then, until nothing more can go: drops faults and commands by delta debugging (ddmin: halves, then one
/// by one), drops channels, narrows each fault's window, magnitude, probability and burst, and cuts the trace to the
/// shortest time range around the failure. `docs/exploring.md` says how each step decides.
public struct Shrinker: Sendable {
    /// The scenario whose variants it shrinks, as a shrink sees it.
    let subject: ShrinkSubject
    /// The most runs one shrink may take; it stops with what it has when they run out.
    public var budget: Int

    /// A shrinker of an app scenario's variants.
    public init(explorer: ScenarioExplorer, budget: Int = 5000) {
        subject = ShrinkSubject(explorer)
        self.budget = budget
    }

    /// A shrinker of the variants of a scenario file of another form (a program scenario): each step's case is run
    /// as the file's runner runs a variant, and the minimal case is written in the file's own form.
    public init(explorer: FileExplorer, budget: Int = 5000) {
        subject = ShrinkSubject(explorer)
        self.budget = budget
    }

    /// Shrinks a failing variant. Throws ``ShrinkError`` when the variant passes (nothing to shrink) or fails only
    /// with an error (no expectation to keep failing).
    public func shrink(_ variant: Variant) async throws -> ShrunkCase {
        let first = await subject.runVariant(variant)
        guard let target = first.failing.first, let failure = first.failingResults.first?.failure else {
            if let error = first.error { throw ShrinkError("\(variant.name) stops with an error, not a failed expectation; nothing to shrink: \(error)") }
            throw ShrinkError("\(variant.name) passes; only a failing variant can be shrunk")
        }
        let inputs = try subject.inputs(variant)
        let original = Case(parts: subject.parts, plan: variant.plan, inputs: inputs, baseline: subject.baseline)
        let search = Search(subject: subject, target: target, failure: failure, budget: budget)
        await search.attribute(original)
        var current = original
        current.parts.expect = [target]
        if !(await search.fails(current)) { current.parts.expect = original.parts.expect }
        if variant.reseeded {
            var unseeded = current
            unseeded.inputs = subject.baseline
            unseeded.baseline = subject.baseline
            if await search.fails(unseeded) { current = unseeded }
        }
        // Every step only removes or narrows, on a millisecond grid, so the rounds end; the cap is a guard.
        for _ in 0..<50 {
            let before = current
            current = await search.dropFaults(current)
            current = await search.dropCommands(current)
            current = await search.dropChannels(current)
            current = await search.narrowFaults(current)
            current = await search.cutEnd(current)
            current = await search.cutStart(current)
            if current == before || search.exhausted { break }
        }
        let line = await search.failureLine(current) ?? first.failures[0]
        return ShrunkCase(
            variant: variant, expectation: target, failure: line, parts: current.parts, plan: current.plan, trace: current.inputs,
            runs: search.runs + 1, before: Size(original), after: Size(current), encode: subject.encode)
    }
}

extension Shrinker {
    /// Runs a written case again from its own files, as its printed `reproduce:` command does, and throws a loud
    /// ``ShrinkError`` when it does not fail its expectation again: a case that passes when rerun is a bug in the
    /// tool, never a result.
    public func verify(_ minimal: ShrunkCase, files: ShrunkCase.Files) async throws {
        let outcome: EventExpectationResult?
        do {
            let (expect, results) = try await subject.rerun(files.scenario)
            outcome = zip(expect, results).first { $0.0 == minimal.expectation }?.1
        } catch {
            throw ShrinkError("BUG: the shrunk case \(files.scenario) does not run from its own files: \(error)")
        }
        guard let outcome, !outcome.passed else {
            throw ShrinkError(
                "BUG: the shrunk case \(files.scenario) passes when run from its own files, where the shrink saw: \(minimal.failure)"
                    + (outcome.map { "; rerun: \($0.line)" } ?? "; rerun: its expectation is gone"))
        }
    }
}

/// A scenario as a shrink sees it, whatever its form: its parts as written, its inputs, how to run a variant and a
/// changed case, and how to write and rerun a minimal case.
struct ShrinkSubject: Sendable {
    /// Its expectations, end and commands as written.
    let parts: ScenarioParts
    /// The inputs with their own seeds, without faults.
    let baseline: Trace
    /// The inputs a variant replays.
    let inputs: @Sendable (Variant) throws -> Trace
    /// Runs a variant as exploration does.
    let runVariant: @Sendable (Variant) async -> VariantResult
    /// Runs the scenario with `parts` on `inputs` with `plan` injected: each of `parts`' expectations' results.
    let run: @Sendable (_ parts: ScenarioParts, _ inputs: Trace, _ plan: FaultPlan) async throws -> [EventExpectationResult]
    /// The scenario file with `parts`, for a folder, naming its inputs and faults.
    let encode: @Sendable (_ parts: ScenarioParts, _ folder: String, _ inputs: String, _ faults: String) throws -> [UInt8]
    /// Runs a written scenario file as `hal test` does: its expectations and their results.
    let rerun: @Sendable (_ path: String) async throws -> (expect: [EventExpectation], results: [EventExpectationResult])

    /// An app scenario: each case is the scenario with its parts changed, run on the explorer's app.
    init(_ explorer: ScenarioExplorer) {
        var file = explorer.scenario.file
        file.explore = nil
        let path = explorer.scenario.path
        parts = ScenarioParts(expect: file.expect, end: file.end, commands: file.commands)
        baseline = explorer.inputs
        inputs = { try explorer.inputs(of: $0) }
        runVariant = { await explorer.run($0) }
        run = { [file] parts, inputs, plan in
            let scenario = try Scenario(path: path, file: file.with(parts))
            return try await scenario.run(catalog: explorer.catalog, logic: explorer.logic, inputs: inputs, outputs: explorer.outputs, faults: plan).expectations
        }
        encode = { [file] parts, folder, inputs, faults in
            var written = file.with(parts)
            written.config = TracePath.relative(TracePath.resolve(file.config, inTraceAt: path), from: folder)
            written.inputs = [inputs]
            written.faults = faults
            return try WrittenJSON.file(written)
        }
        rerun = { path in
            let scenario = try Scenario(path: path)
            let run = try await scenario.run(catalog: explorer.catalog, outputs: explorer.outputs)
            return (scenario.file.expect ?? [], run.expectations)
        }
    }

    /// A file of another form: each case is run as its runner runs a variant, its plan injected into its inputs.
    init(_ explorer: FileExplorer) {
        let file = explorer.file, runner = explorer.runner
        parts = file.parts
        baseline = file.inputs
        inputs = { $0.reseeded ? try file.reseeded($0.seed) : file.inputs }
        runVariant = { await explorer.run($0) }
        run = { parts, inputs, plan in
            var inputs = inputs
            try inputs.inject(plan)
            return try await file.run(parts, inputs)
        }
        encode = file.encode
        rerun = { path in
            let written = try runner.explorable(path: path)
            return (written.parts.expect ?? [], try await runner.run(path: path).session.expectations)
        }
    }
}

extension AppScenario {
    /// The scenario with `parts` in place of its own.
    func with(_ parts: ScenarioParts) -> AppScenario {
        var file = self
        file.expect = parts.expect
        file.end = parts.end
        file.commands = parts.commands
        return file
    }
}

/// Why a shrink was refused.
public struct ShrinkError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// How big a case is: what a person reading it must take in.
public struct Size: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Faults in the plan.
    public var faults: Int
    /// Scripted commands.
    public var commands: Int
    /// Expectations.
    public var expectations: Int
    /// Input channels that have records.
    public var channels: Int
    /// Input records.
    public var records: Int
    /// Seconds from the first input record to the last.
    public var seconds: Seconds

    init(_ item: Case) {
        faults = item.plan.faults.count
        commands = item.parts.commands?.count ?? 0
        expectations = item.parts.expect?.count ?? 0
        channels = Set(item.inputs.records.map(\.channel)).count
        records = item.inputs.records.count
        seconds = item.length
    }

    /// `3 faults, 12 commands, 22 expectations, 2 channels, 1,441 records, 1440.0 s`.
    public var description: String {
        "\(faults) faults, \(commands) commands, \(expectations) expectations, \(channels) channels, \(records) records, "
            + seconds.message
    }
}

/// A scenario's parts, its plan and its inputs: what a shrink step changes.
struct Case: Sendable, Hashable {
    var parts: ScenarioParts
    var plan: FaultPlan
    var inputs: Trace
    /// The inputs with their own seeds, cut and thinned as ``inputs`` are: what the case runs on without the
    /// variant's faults and noise, to tell that those are what make it fail.
    var baseline: Trace

    /// The case without the variant's faults and noise: no faults, the inputs' own seeds.
    var clean: Case {
        Case(parts: parts, plan: FaultPlan(seed: plan.seed, faults: []), inputs: baseline, baseline: baseline)
    }

    /// Leaves out the records of both traces that `drop` picks.
    mutating func removeRecords(where drop: (TraceRecord) -> Bool) {
        inputs.records.removeAll(where: drop)
        baseline.records.removeAll(where: drop)
    }

    /// Seconds from the first input to the last.
    var length: Seconds {
        let times = inputs.records.map(\.timestamp)
        guard let first = times.min(), let last = times.max() else { return .zero }
        return first.seconds(to: last)
    }
}

/// The state of one shrink: the target, and the runs so far.
final class Search: @unchecked Sendable {
    let subject: ShrinkSubject
    let target: EventExpectation
    /// How the target failed in the variant, and on which events.
    let failure: ExpectationFailure
    let budget: Int
    private(set) var runs = 0

    init(subject: ShrinkSubject, target: EventExpectation, failure: ExpectationFailure, budget: Int) {
        self.subject = subject
        self.target = target
        self.failure = failure
        self.budget = budget
    }

    var exhausted: Bool { runs >= budget }

    /// Whether the failure is the faults' and the noise's doing: the variant's case without them passes the target.
    /// Then every step must keep it so, or a shrink could make an expectation that something happens fail by cutting
    /// away the inputs that make it happen. Where the scenario fails the target even without them, no step can tell,
    /// and the check is left out.
    private(set) var attributable = false

    /// Finds out whether the failure is attributable (``attributable``), from the variant's whole case.
    func attribute(_ item: Case) async {
        attributable = await outcome(of: item.clean) == .passed
    }

    /// Whether `item` still fails for the same reason: the target expectation fails, and (where the failure is
    /// ``attributable``) passes without the faults and the noise.
    func fails(_ item: Case) async -> Bool {
        await failureLine(item) != nil
    }

    /// The target's FAIL line when `item` fails for the same reason.
    func failureLine(_ item: Case) async -> String? {
        guard !exhausted, (try? item.plan.validate()) != nil else { return nil }
        guard case .failed(let result) = await outcome(of: item), let found = result.failure, failure.isKept(by: found) else { return nil }
        if attributable, await outcome(of: item.clean) != .passed { return nil }
        return result.line
    }

    /// What became of the target in a run.
    enum Outcome: Equatable, Sendable {
        case passed
        case failed(EventExpectationResult)
        /// The run could not be made: a scenario or plan the step broke.
        case unrunnable
    }

    /// Outcomes of the cases run so far. A run is deterministic, so a case met again (the clean case of many steps,
    /// a round that changes nothing) is not run again: for a program scenario a run is a whole program's.
    private var known: [Case: Outcome] = [:]

    /// The target's outcome in a run of `item`.
    private func outcome(of item: Case) async -> Outcome {
        if let outcome = known[item] { return outcome }
        runs += 1
        let outcome = await run(item)
        known[item] = outcome
        return outcome
    }

    private func run(_ item: Case) async -> Outcome {
        guard let results = try? await subject.run(item.parts, item.inputs, item.plan) else { return .unrunnable }
        for (expectation, outcome) in zip(item.parts.expect ?? [], results) where expectation == target {
            return outcome.passed ? .passed : .failed(outcome)
        }
        return .unrunnable
    }


    // MARK: Steps

    func dropFaults(_ item: Case) async -> Case {
        var result = item
        result.plan.faults = await ddmin(item.plan.faults) { faults in
            var candidate = item
            candidate.plan.faults = faults
            return await self.fails(candidate)
        }
        return result
    }

    func dropCommands(_ item: Case) async -> Case {
        guard let commands = item.parts.commands, !commands.isEmpty else { return item }
        var result = item
        let kept = await ddmin(commands) { commands in
            var candidate = item
            candidate.parts.commands = commands
            return await self.fails(candidate)
        }
        result.parts.commands = kept.isEmpty ? nil : kept
        return result
    }

    /// Leaves out each channel's records in turn, keeping the channel out when the failure stays. A channel a fault
    /// acts on stays: the fault is the failure's explanation, and a channel gone would hide it (a lost fix is not
    /// "no GPS at all").
    func dropChannels(_ item: Case) async -> Case {
        guard item.plan.faults.allSatisfy({ $0.channel != nil }) else { return item }
        let faulted = Set(item.plan.faults.compactMap(\.channel))
        var result = item
        for (channel, description) in item.inputs.header.channels.enumerated() where !faulted.contains(description.id) {
            var candidate = result
            candidate.removeRecords { $0.channel == channel }
            guard candidate.inputs.records.count < result.inputs.records.count, !candidate.inputs.records.isEmpty else { continue }
            if await fails(candidate) { result = candidate }
        }
        return result
    }

    /// Narrows each fault: its window from each end, then its magnitude, probability and burst down.
    func narrowFaults(_ item: Case) async -> Case {
        var result = item
        for index in item.plan.faults.indices {
            let fault = result.plan.faults[index]
            func with(_ change: (inout Fault) -> Void) -> Case {
                var candidate = result
                change(&candidate.plan.faults[index])
                return candidate
            }
            let outputs = fault.channel == Fault.speakerChannel || fault.channel == Fault.screenChannel
            if !outputs {
                let end = result.length.roundedMilliseconds + 1
                let from = (fault.from ?? .zero).roundedMilliseconds, to = fault.to.map(\.roundedMilliseconds) ?? end
                // The latest start that still fails, then the earliest end.
                let start = await largest(in: max(0, from)...max(max(0, from), to - 1)) { ms in
                    await self.fails(with { $0.from = .milliseconds(ms); $0.to = .milliseconds(to) })
                }
                let stop = await smallest(in: (start + 1)...max(start + 1, to)) { ms in
                    await self.fails(with { $0.from = .milliseconds(start); $0.to = .milliseconds(ms) })
                }
                let narrowed = with { $0.from = .milliseconds(start); $0.to = .milliseconds(stop) }
                if narrowed != result, await fails(narrowed) { result = narrowed }
            }
            if let magnitude = result.plan.faults[index].magnitude, magnitude > 0 {
                let least = await smallest(in: 0...Self.thousandths(magnitude)) { ms in
                    await self.fails(with { $0.magnitude = Double(ms) / 1000 })
                }
                let narrowed = with { $0.magnitude = Double(least) / 1000 }
                if narrowed != result, await fails(narrowed) { result = narrowed }
            }
            if let probability = result.plan.faults[index].probability, probability > 0 {
                let least = await smallest(in: 1...max(1, Self.thousandths(probability))) { ms in
                    await self.fails(with { $0.probability = Double(ms) / 1000 })
                }
                let narrowed = with { $0.probability = Double(least) / 1000 }
                if narrowed != result, await fails(narrowed) { result = narrowed }
            }
            if let burst = result.plan.faults[index].burst, burst > 1 {
                let least = await smallest(in: 1...burst) { count in await self.fails(with { $0.burst = count }) }
                let narrowed = with { $0.burst = least }
                if narrowed != result, await fails(narrowed) { result = narrowed }
            }
        }
        return result
    }

    /// Cuts the inputs after the earliest time at which the failure still happens.
    func cutEnd(_ item: Case) async -> Case {
        let length = item.length.roundedMilliseconds
        guard length > 0 else { return item }
        let cut = await smallest(in: 0...length) { ms in await self.fails(Self.cut(item, after: ms)) }
        let candidate = Self.cut(item, after: cut)
        guard candidate != item else { return item }
        return await fails(candidate) ? candidate : item
    }

    /// Cuts the inputs before the latest time from which the failure still happens, and moves every time in the
    /// scenario and the plan back by as much.
    func cutStart(_ item: Case) async -> Case {
        let length = item.length.roundedMilliseconds
        guard length > 0 else { return item }
        let cut = await largest(in: 0...length) { ms in
            guard let candidate = Self.cut(item, before: ms) else { return false }
            return await self.fails(candidate)
        }
        guard let candidate = Self.cut(item, before: cut), candidate != item else { return item }
        return await fails(candidate) ? candidate : item
    }

    // MARK: Cuts

    static func cut(_ item: Case, after ms: Int) -> Case {
        var result = item
        guard let first = item.inputs.records.map(\.timestamp).min() else { return item }
        let last = first + .milliseconds(ms)
        result.removeRecords { $0.timestamp > last }
        let seconds = Seconds.milliseconds(ms)
        if let end = item.parts.end, end > seconds { result.parts.end = seconds }
        return result
    }

    /// The case from `ms` after the first input on, its times moved back to the new first input; `nil` when a command,
    /// an expectation's window or a fault's window would end before it.
    static func cut(_ item: Case, before ms: Int) -> Case? {
        guard ms > 0 else { return item }
        var result = item
        guard let first = item.inputs.records.map(\.timestamp).min() else { return nil }
        let from = first + .milliseconds(ms)
        result.removeRecords { $0.timestamp < from }
        guard let newFirst = result.inputs.records.map(\.timestamp).min() else { return nil }
        let shift = first.seconds(to: newFirst)
        func moved(_ time: Seconds) -> Seconds { time - shift }
        if let commands = item.parts.commands {
            guard commands.allSatisfy({ $0.at >= shift }) else { return nil }
            result.parts.commands = commands.map { var command = $0; command.at = moved(command.at); return command }
        }
        if let end = item.parts.end {
            guard end >= shift else { return nil }
            result.parts.end = moved(end)
        }
        if let expectations = item.parts.expect {
            var kept: [EventExpectation] = []
            for var expectation in expectations {
                if let between = expectation.between, between.count == 2 {
                    guard between[1] >= shift else { return nil }
                    expectation.between = [max(.zero, moved(between[0])), moved(between[1])]
                }
                kept.append(expectation)
            }
            result.parts.expect = kept
        }
        var faults: [Fault] = []
        for var fault in item.plan.faults {
            if let to = fault.to {
                guard to > shift else { return nil }
                fault.to = moved(to)
            }
            if let start = fault.from { fault.from = max(.zero, moved(start)) }
            faults.append(fault)
        }
        result.plan.faults = faults
        return result
    }

    // MARK: Searches

    /// A magnitude or probability in thousandths, the grid its narrowing searches.
    static func thousandths(_ value: Double) -> Int { Int((value * 1000).rounded()) }

    /// The smallest value in `range` for which `fails` holds, by bisection, given that it holds at the upper bound.
    func smallest(in range: ClosedRange<Int>, _ fails: (Int) async -> Bool) async -> Int {
        var low = range.lowerBound - 1, high = range.upperBound
        while high - low > 1, !exhausted {
            let middle = low + (high - low) / 2
            if await fails(middle) { high = middle } else { low = middle }
        }
        return high
    }

    /// The largest value in `range` for which `fails` holds, by bisection, given that it holds at the lower bound.
    func largest(in range: ClosedRange<Int>, _ fails: (Int) async -> Bool) async -> Int {
        var low = range.lowerBound, high = range.upperBound + 1
        while high - low > 1, !exhausted {
            let middle = low + (high - low) / 2
            if await fails(middle) { low = middle } else { high = middle }
        }
        return low
    }

    /// Delta debugging (Zeller's ddmin): a smallest sublist of `items`, in their order, for which `fails` holds,
    /// given that it holds for all of them. Tries none, then removing each of n chunks, then each chunk alone,
    /// doubling n up to one item a chunk.
    func ddmin<Item>(_ items: [Item], _ fails: ([Item]) async -> Bool) async -> [Item] {
        guard !items.isEmpty else { return items }
        if await fails([]) { return [] }
        var items = items, chunks = 2
        while items.count >= 2, !exhausted {
            let size = (items.count + chunks - 1) / chunks
            let parts = stride(from: 0, to: items.count, by: size).map { Array(items[$0..<min($0 + size, items.count)]) }
            var reduced = false
            for index in parts.indices {
                let complement = parts.enumerated().filter { $0.offset != index }.flatMap(\.element)
                if await fails(complement) {
                    items = complement
                    chunks = max(chunks - 1, 2)
                    reduced = true
                    break
                }
            }
            if !reduced, parts.count > 2 {
                for part in parts where await fails(part) {
                    items = part
                    chunks = 2
                    reduced = true
                    break
                }
            }
            if !reduced {
                guard chunks < items.count else { break }
                chunks = min(items.count, chunks * 2)
            }
        }
        return items
    }
}
