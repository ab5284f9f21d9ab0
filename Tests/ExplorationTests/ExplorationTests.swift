import AppCore
import Exploration
import Foundation
import PlantedBug
import HAL
import Replay
import ScenarioSuite
import Session
import Testing
import TestSupport
import TraceFormat

let catalog = AppCatalog([Wayfinder.self])

@Suite struct ExplorationTests {
    /// The first failing variant of seed 1, found by exploring in order.
    func firstFailure(_ explorer: ScenarioExplorer, within count: Int) async -> VariantResult? {
        for index in 0..<count {
            let result = await explorer.run(explorer.variant(index, seed: 1))
            if result.failed { return result }
        }
        return nil
    }

    @Test func theScenarioPassesWithoutFaults() async throws {
        let result = try await Scenario(path: wayfinderScenario(in: makeScratchFolder())).run(catalog: catalog)
        #expect(result.passed, "\(result.expectations.map(\.line))")
    }

    /// Each fault alone is survived; the two together at one tap are not: the planted bug is reachable only by
    /// their overlap.
    @Test func onlyTheOverlapFails() async throws {
        let scenario = try Scenario(path: wayfinderScenario(in: makeScratchFolder()))
        func passes(_ faults: [Fault]) async throws -> Bool {
            try await scenario.run(catalog: catalog, faults: FaultPlan(seed: 1, faults: faults)).passed
        }
        let lost = Fault(.lostFix, channel: "gps", from: 8.5, to: 10.5)
        // A late compass: the samples from 8 s on arrive 3 s late (the app sees them then), so at the tap at 10.08 s
        // the last it has is from 7.9 s.
        let late = Fault(.latency, channel: "heading", from: 8, to: 10.5, magnitude: 3)
        #expect(try await passes([lost]))
        #expect(try await passes([late]))
        let both = try await scenario.run(catalog: catalog, faults: FaultPlan(seed: 1, faults: [lost, late]))
        #expect(!both.passed, "\(both.logLines)")
        // Apart (different taps), they pass.
        #expect(try await passes([lost, Fault(.latency, channel: "heading", from: 18, to: 20.5, magnitude: 3)]))
    }

    /// Exploration finds the overlap within 100 variants of seed 1, and shrinking returns exactly those two faults,
    /// each window no longer than the bug needs: at most the two fixes before a tap (1 s) for the lost fix, at most
    /// the compass samples of the 1.9 s before it for the latency, which delays them just past the tap (at most
    /// 1.98 s). Where the trace is cut to start just before the tap, one record of each is all it takes. Only the
    /// expectation that failed is kept.
    @Test func explorationFindsThePlantedBugAndShrinkingIsolatesIt() async throws {
        let explorer = try ScenarioExplorer(scenario: Scenario(path: wayfinderScenario(in: makeScratchFolder())), catalog: catalog)
        let failure = try #require(await firstFailure(explorer, within: 100))
        #expect(failure.failing.map(\.each?.event) == ["tap"])
        let minimal = try await Shrinker(explorer: explorer).shrink(failure.variant)
        let faults = minimal.plan.faults
        #expect(Set(faults.map(\.kind)) == [.lostFix, .latency], "\(faults)")
        #expect(faults.count == 2)
        let lost = try #require(faults.first { $0.kind == .lostFix })
        let late = try #require(faults.first { $0.kind == .latency })
        // Windows are in seconds after the cut trace's first record; their lengths are what the bug needs.
        #expect(try #require(lost.to) - #require(lost.from) <= 1.002, "\(lost)")
        #expect(try #require(late.to) - #require(late.from) <= 1.902, "\(late)")
        #expect(try #require(late.magnitude) <= 1.982, "\(late)")
        print("shrunk \(failure.variant.name) in \(minimal.runs) runs: \(minimal.before) → \(minimal.after); \(faults)")
        #expect(minimal.parts.expect?.count == 1)
        #expect(minimal.after.seconds < 12 && minimal.after.faults == 2 && minimal.after.channels <= 3)
        #expect(minimal.after.records < minimal.before.records)
        // The minimal case, written and run as a scenario, fails the same expectation.
        let folder = try makeScratchFolder()
        let files = try minimal.write(into: folder, name: "wayfinder.min")
        let rerun = try await Scenario(path: files.scenario).run(catalog: catalog)
        #expect(rerun.expectations.map(\.passed) == [false])
        #expect(rerun.expectations.first?.line == minimal.failure)
        // The check `--shrink` makes before it reports a case: this one fails again from its files; a case whose
        // files pass (its faults gone) is a bug, said loudly.
        let shrinker = Shrinker(explorer: explorer)
        try await shrinker.verify(minimal, files: files)
        var broken = minimal
        broken.plan.faults = []
        let brokenFiles = try broken.write(into: folder, name: "broken.min")
        await #expect {
            try await shrinker.verify(broken, files: brokenFiles)
        } throws: { error in
            "\(error)".hasPrefix("BUG: the shrunk case \(brokenFiles.scenario) passes when run from its own files")
        }
    }

    /// The same failing variant shrinks to the same bytes, 5 times out of 5. (Each shrink is about 220 runs; more rounds
    /// cost minutes under the sanitizers and vary nothing five do not, since hashing is seeded once per process.
    /// `HALTestCommandTests` compares shrinks made by two `hal` processes.)
    @Test func shrinkingIsDeterministic() async throws {
        let explorer = try ScenarioExplorer(scenario: Scenario(path: wayfinderScenario(in: makeScratchFolder())), catalog: catalog)
        let failure = try #require(await firstFailure(explorer, within: 100))
        var outputs: Set<[Data]> = []
        for round in 0..<5 {
            let folder = try makeScratchFolder()
            let files = try await Shrinker(explorer: explorer).shrink(failure.variant).write(into: folder, name: "case")
            outputs.insert(try [files.scenario, files.faults, files.trace].map { try Data(contentsOf: URL(fileURLWithPath: $0)) })
            #expect(outputs.count == 1, "round \(round) differs")
        }
    }

    /// An expectation that something happens (eleven answers from the GPS) fails when a lost fix makes one answer
    /// come from the compass. Cutting taps away would keep it failing ("found 3" is the same form as "found 10"),
    /// but the cut case would fail without any fault too; the shrink keeps the failure the fault's doing: the minimal
    /// case passes without its faults and fails with them.
    @Test func aShrunkCaseFailsBecauseOfItsFaults() async throws {
        let folder = try makeScratchFolder()
        let path = try wayfinderScenario(in: folder, space: #"{"count": [1, 1], "faults": [{"kind": "lostFix", "channel": "gps", "duration": [3, 6]}]}"#)
        let text = try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: #"{"each": {"event": "tap"}, "then": {"event": "pointed"}, "within": 1}"#,
                                  with: #"{"event": "pointed", "with": {"from": "gps"}, "count": 11}"#)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let explorer = try ScenarioExplorer(scenario: Scenario(path: path), catalog: catalog)
        let failure = try #require(await firstFailure(explorer, within: 100))
        #expect(failure.failures.first?.contains("exactly 11×: found 10") == true, "\(failure.failures)")
        let minimal = try await Shrinker(explorer: explorer).shrink(failure.variant)
        let files = try minimal.write(into: folder, name: "min")
        let scenario = try Scenario(path: files.scenario)
        let faulted = try await scenario.run(catalog: catalog)
        let clean = try await scenario.run(catalog: catalog, faults: FaultPlan(seed: 1, faults: []))
        #expect(!faulted.passed && clean.passed, "\(faulted.expectations.map(\.line)) \(clean.expectations.map(\.line))")
        #expect(minimal.plan.faults.map(\.kind) == [.lostFix])
        // All eleven taps stay: fewer would fail without the fault.
        #expect(minimal.trace.records.filter { minimal.trace.header.channels[$0.channel].id == "touch" }.count == 22)
    }

    @Test func aPassingVariantIsNotShrunk() async throws {
        let explorer = try ScenarioExplorer(scenario: Scenario(path: wayfinderScenario(in: makeScratchFolder())), catalog: catalog)
        let passing = try #require(await { () async -> Variant? in
            for index in 0..<20 where !(await explorer.run(explorer.variant(index, seed: 1))).failed { return explorer.variant(index, seed: 1) }
            return nil
        }())
        await #expect(throws: ShrinkError.self) { try await Shrinker(explorer: explorer).shrink(passing) }
        do {
            _ = try await Shrinker(explorer: explorer).shrink(passing)
        } catch {
            #expect("\(error)".contains("passes; only a failing variant can be shrunk"))
        }
    }

    /// A space the app copes with: every variant passes, and the report says so.
    @Test func aSpaceWithNoFailureReportsNone() async throws {
        let path = try wayfinderScenario(in: makeScratchFolder(), space: """
            {"faults": [{"kind": "jitter", "channel": "heading", "magnitude": [0.001, 0.01]},
                        {"kind": "lostFix", "channel": "gps", "duration": [0.5, 0.9]}]}
            """)
        let report = await Exploration(scenarios: [path], catalog: catalog, options: .init(count: 50, seed: 3, jobs: 2)).run()
        #expect(report.results.count == 50)
        #expect(report.failures.isEmpty)
        #expect(report.summary.hasSuffix("no variant failed"), "\(report.summary)")
        #expect(report.suiteReport().failed == 0)
    }

    /// The same seed gives the same variants; another seed others; shards split them with no overlap.
    @Test func variantsAreSeededAndShardsSplitThem() async throws {
        let path = try wayfinderScenario(in: makeScratchFolder())
        let explorer = try ScenarioExplorer(scenario: Scenario(path: path), catalog: catalog)
        let again = try ScenarioExplorer(scenario: Scenario(path: path), catalog: catalog)
        #expect((0..<30).map { explorer.variant($0, seed: 7) } == (0..<30).map { again.variant($0, seed: 7) })
        #expect((0..<30).map { explorer.variant($0, seed: 7).plan } != (0..<30).map { explorer.variant($0, seed: 8).plan })
        let whole = await Exploration(scenarios: [path], catalog: catalog, options: .init(count: 40, seed: 5)).run()
        var parts: [VariantResult] = []
        for index in 1...3 {
            let shard = try #require(Shard(index: index, count: 3))
            parts += await Exploration(scenarios: [path], catalog: catalog, options: .init(count: 40, seed: 5, shard: shard)).run().results
        }
        #expect(parts.count == 40)
        #expect(Set(parts.map(\.variant)) == Set(whole.results.map(\.variant)))
        // The failing ones are reported with their plan and the command that runs them again.
        let junit = whole.suiteReport().junitXML()
        for failure in whole.failures {
            #expect(junit.contains("--seed 5 --variant \(failure.variant.index)"))
        }
    }

    /// Every drawn fault lies within its entry's ranges and the run.
    @Test func drawnFaultsStayWithinTheirRanges() throws {
        let entry = FaultSpace.Entry(.latency, channel: "heading", duration: .init(2, 20), magnitude: .init(0.1, 2))
        let space = FaultSpace(faults: [entry], count: .init(2, 4))
        for seed in 0..<200 as Range<UInt64> {
            let faults = space.draw(seed: seed, length: 60)
            #expect((2...4).contains(faults.count))
            for fault in faults {
                let from = try #require(fault.from), to = try #require(fault.to), magnitude = try #require(fault.magnitude)
                #expect(from >= 0 && to <= 60.001 && (1.999...20.001).contains(to - from), "\(fault)")
                #expect((0.1...2).contains(magnitude))
                #expect(fault.problem() == nil)
            }
        }
        // A run shorter than the least duration: the window is the whole run.
        for fault in space.draw(seed: 1, length: 1) { #expect(fault.from == 0 && fault.to == 1) }
    }

    /// Windows are drawn in the run: the inputs' 60 s, or the scenario's `end` when that comes first. An end just
    /// under the inputs' last record shortens the span, one at it or after it leaves the inputs' length, and every
    /// variant's windows open before the end.
    @Test func windowsAreDrawnBeforeTheScenariosEnd() throws {
        let folder = try makeScratchFolder()
        let path = try wayfinderScenario(in: folder)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        func length(end: String?) throws -> Double {
            let scenario = end.map { text.replacingOccurrences(of: #""inputs": ["day.jsonl"],"#, with: #""inputs": ["day.jsonl"], "end": \#($0),"#) } ?? text
            try scenario.write(toFile: path, atomically: true, encoding: .utf8)
            return try ScenarioExplorer(scenario: Scenario(path: path), catalog: catalog).length
        }
        #expect(try length(end: nil) == 60)
        #expect(try length(end: "61") == 60)
        #expect(try length(end: "60") == 60)
        #expect(try length(end: "59.999") == 59.999)
        #expect(try length(end: "12") == 12)
        let explorer = try ScenarioExplorer(scenario: Scenario(path: path), catalog: catalog)
        for index in 0..<100 {
            for fault in explorer.variant(index, seed: 1).plan.faults where fault.from != nil {
                #expect(try #require(fault.from) < 12 && #require(fault.to) <= 12.001, "\(fault)")
            }
        }
    }

    @Test func badSpacesAreRefusedNamingTheField() throws {
        let folder = try makeScratchFolder()
        for (text, message) in [
            (#"{"faults": []}"#, "faults: give at least one fault"),
            (#"{"faults": [{"kind": "latency", "magnitude": [2, 1]}]}"#, "faults[0]: magnitude: [2.0, 1.0] is not a range from low to high"),
            (#"{"faults": [{"kind": "drop", "probability": [0.5, 1.5]}]}"#, "faults[0]: probability: 1.5 is not within 0 to 1"),
            (#"{"faults": [{"kind": "spike", "magnitude": [1, 2]}]}"#, "faults[0]: spike needs a probability"),
            (#"{"faults": [{"kind": "drop", "duration": [1, 2]}], "count": [3, 1]}"#, "count: [3.0, 1.0]"),
            (#"{"faults": [{"kind": "drop", "duration": [1]}]}"#, "faults[0].duration[1]"),
            (#"{"faults": [{"kind": "drop", "duration": [1, 2, 3]}]}"#, "expected [lower, upper]"),
        ] {
            let path = folder + "/bad.space.json"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            #expect {
                _ = try FaultSpace.load(path: path)
            } throws: { error in
                "\(error)".contains("bad.space.json") && "\(error)".contains(message)
            }
        }
    }

    /// A scenario that names no space explores the default space of its inputs' kinds.
    @Test func theDefaultSpaceFollowsTheChannels() throws {
        let header = try Trace.load(path: String(wayfinderScenario(in: makeScratchFolder()).dropLast("wayfinder.run.json".count)) + "day.jsonl").header
        let space = FaultSpace.defaults(for: header)
        let kinds = Set(space.faults.map { "\($0.channel ?? "*"):\($0.kind.rawValue)" })
        #expect(kinds.isSuperset(of: ["gps:lostFix", "gps:jump", "heading:latency", "heading:stuck", "touch:latency", "speaker:latency"]))
        #expect(!kinds.contains("touch:lostFix") && !kinds.contains("heading:corruptFrame") && !kinds.contains("touch:drop"))
        try space.validate()
        // Without the app's speaker (a program's run), the same inputs' faults and no slow speaker.
        let programs = FaultSpace.defaults(for: header, speaker: false)
        #expect(programs.faults == space.faults.filter { $0.channel != Fault.speakerChannel } && programs.faults.count == space.faults.count - 1)
    }
}

@Suite struct ShrinkReasonTests {
    static func at(_ milliseconds: Int64, _ name: String, _ attributes: [String: AppEventValue] = [:]) -> AppEvent {
        AppEvent(timestamp: Timestamp(nanoseconds: milliseconds * 1_000_000), name: name, attributes: attributes)
    }

    /// The shrink keeps the same failure: the same expectation failing in the same way on events that were among the
    /// variant's, told apart by name and attributes. Before, the FAIL line with its numbers masked was the reason, so
    /// "found 2" (too many) and "found 0" (too few, another cause) read as one.
    @Test func failuresAreKeptByKindAndEventsNotByText() {
        let exactlyOne = EventExpectation(event: "place.arrived", count: 1)
        let tooMany = exactlyOne.check([Self.at(1000, "place.arrived", ["place": "rose"]), Self.at(2000, "place.arrived", ["place": "clock"])], start: .zero)
        let tooFew = exactlyOne.check([], start: .zero)
        let masked = { (line: String) in line.replacing(/[0-9]+(\.[0-9]+)?/, with: "#").replacing(/, at .*/, with: "") }
        #expect(masked(tooMany.line) == masked(tooFew.line))  // what the old rule compared
        #expect(tooMany.failure?.kind == .tooMany && tooFew.failure?.kind == .tooFew)
        #expect(tooMany.failure!.isKept(by: tooMany.failure!))
        #expect(!tooMany.failure!.isKept(by: tooFew.failure!))

        // The same late tap, found in a smaller case: kept; another event late: not.
        let response = EventExpectation.response(each: EventMatcher(event: "tap", with: ["key": "a"]), then: EventMatcher(event: "sound"), within: 0.5)
        let response2 = EventExpectation.response(each: EventMatcher(event: "tap"), then: EventMatcher(event: "sound"), within: 0.5)
        let both = response2.check([Self.at(0, "tap", ["key": "a"]), Self.at(1000, "sound"), Self.at(2000, "tap", ["key": "b"]), Self.at(2600, "sound")], start: .zero)
        let oneOfThem = response2.check([Self.at(0, "tap", ["key": "a"]), Self.at(1000, "sound")], start: .zero)
        let other = response2.check([Self.at(0, "tap", ["key": "c"]), Self.at(1000, "sound")], start: .zero)
        #expect(both.failure?.events == ["tap{key=a}", "tap{key=b}"])
        #expect(both.failure!.isKept(by: oneOfThem.failure!))
        #expect(!both.failure!.isKept(by: other.failure!))
        // Never followed is another way to fail than too late, on the same event.
        let unanswered = response.check([Self.at(0, "tap", ["key": "a"])], start: .zero)
        #expect(unanswered.failure?.kind == .unanswered && !oneOfThem.failure!.isKept(by: unanswered.failure!))
    }
}
