import HALCommandLine
import AppCore
import DemoApps
import Foundation
import HAL
import ScenarioSuite
import Session
import Testing
import TestSupport

@Suite struct LineDiffTests {
    /// Our unified diff agrees with GNU diff's, hunk for hunk, on seeded random edits of a log.
    @Test func unifiedDiffsMatchGNUDiff() throws {
        let folder = try makeScratchFolder()
        var random = SeededRandom(seed: 42)
        for round in 0..<40 {
            let old = (0..<Int(random.unit() * 60)).map { "\(Double($0) * 0.5) event.\(Int(random.unit() * 5))" }
            var new = old
            for _ in 0..<Int(random.unit() * 6) {
                let place = Int(random.unit() * Double(new.count + 1))
                switch Int(random.unit() * 3) {
                case 0 where place < new.count: new.remove(at: place)
                case 1 where place < new.count: new[place] += " changed"
                default: new.insert("inserted \(round)", at: place)
                }
            }
            try (old.map { $0 + "\n" }.joined()).write(toFile: folder + "/a", atomically: true, encoding: .utf8)
            try (new.map { $0 + "\n" }.joined()).write(toFile: folder + "/b", atomically: true, encoding: .utf8)
            let gnu = try runProcess("/usr/bin/diff", ["-u", "--label", "a", "--label", "b", folder + "/a", folder + "/b"], timeout: 10)
            let ours = LineDiff.unified(old: old, new: new, oldName: "a", newName: "b")
            // Hunk boundaries and counts agree; the lines within may differ where two shortest scripts exist.
            func headers(_ text: String) -> [String] { text.split(separator: "\n").filter { $0.hasPrefix("@@") }.map(String.init) }
            func counts(_ text: String) -> (Int, Int) {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2)
                return (lines.filter { $0.hasPrefix("-") }.count, lines.filter { $0.hasPrefix("+") }.count)
            }
            #expect(ours.isEmpty == gnu.output.isEmpty, "round \(round)")
            #expect(headers(ours) == headers(gnu.output), "round \(round)\n\(ours)\n\(gnu.output)")
            #expect(counts(ours) == counts(gnu.output), "round \(round)")
        }
    }

    @Test func aChangedLineShowsAsOneHunk() {
        let diff = LineDiff.unified(old: ["a", "b", "c", "d", "e", "f", "g", "h"], new: ["a", "b", "c", "d", "E", "f", "g", "h"], oldName: "golden", newName: "run")
        #expect(diff == "--- golden\n+++ run\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n")
    }
}

@Suite struct ShardTests {
    @Test func partsAreDisjointBalancedAndCoverTheSuite() {
        let suite = (0..<103).map { "s\($0)" }
        for count in 1...7 {
            let parts = (1...count).map { Shard(index: $0, count: count)!.select(suite) }
            #expect(parts.flatMap { $0 }.sorted() == suite.sorted())
            #expect(Set(parts.flatMap { $0 }).count == suite.count)
            #expect(parts.map(\.count).max()! - parts.map(\.count).min()! <= 1)
        }
        #expect(Shard("2/4") == Shard(index: 2, count: 4))
        #expect(Shard("0/4") == nil && Shard("5/4") == nil && Shard("x") == nil)
    }

    @Test func theEnvironmentNamesTheShard() throws {
        #expect(try Shard.fromEnvironment(["CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "4"]) == Shard(index: 3, count: 4))
        #expect(try Shard.fromEnvironment(["HAL_TEST_SHARD": "1/2", "CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "4"]) == Shard(index: 1, count: 2))
        #expect(try Shard.fromEnvironment([:]) == nil)
        #expect(throws: ShardError.self) { try Shard.fromEnvironment(["CI_NODE_INDEX": "5", "CI_NODE_TOTAL": "4"]) }
    }
}

@Suite struct SuiteRunTests {
    /// A scratch suite: the shipped talk-board scenario copied with absolute paths, plus broken ones.
    static func suite() throws -> String {
        let folder = try makeScratchFolder()
        let scenario = try String(contentsOfFile: packageRoot + "/traces/talkboard/session.run.json", encoding: .utf8)
            .replacingOccurrences(of: "\"board.json\"", with: "\"\(packageRoot)/traces/talkboard/board.json\"")
            .replacingOccurrences(of: "\"session.jsonl\"", with: "\"\(packageRoot)/traces/talkboard/session.jsonl\"")
        try FileManager.default.createDirectory(atPath: folder + "/nested", withIntermediateDirectories: true)
        try scenario.write(toFile: folder + "/good.run.json", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: packageRoot + "/traces/talkboard/session.events.log", toPath: folder + "/good.events.log")
        try scenario.write(toFile: folder + "/nested/drifted.run.json", atomically: true, encoding: .utf8)
        let golden = try String(contentsOfFile: packageRoot + "/traces/talkboard/session.events.log", encoding: .utf8)
        try golden.replacingOccurrences(of: "bar.deleted", with: "bar.removed").write(toFile: folder + "/nested/drifted.events.log", atomically: true, encoding: .utf8)
        try "{\"app\": \"talkboard\",\n \"config\": 7}".write(toFile: folder + "/bad-field.run.json", atomically: true, encoding: .utf8)
        try scenario.replacingOccurrences(of: "\"app\": \"talkboard\"", with: "\"app\": \"nobody\"").write(toFile: folder + "/unknown-app.run.json", atomically: true, encoding: .utf8)
        try scenario.replacingOccurrences(of: "session.jsonl", with: "missing.jsonl").write(toFile: folder + "/missing-trace.run.json", atomically: true, encoding: .utf8)
        try scenario.replacingOccurrences(of: "\"app\": \"talkboard\",", with: "\"app\": \"talkboard\", \"skip\": \"waiting for a new board\",").write(toFile: folder + "/skipped.run.json", atomically: true, encoding: .utf8)
        return folder
    }

    @Test func everyScenarioIsReportedBrokenOnesAsErrorsNamingFileAndField() async throws {
        let folder = try Self.suite()
        let scenarios = try ScenarioDiscovery.scenarios(under: [folder])
        #expect(scenarios.map { String($0.dropFirst(folder.count + 1)) } == [
            "bad-field.run.json", "good.run.json", "missing-trace.run.json", "nested/drifted.run.json", "skipped.run.json", "unknown-app.run.json",
        ])
        let report = await ScenarioSuite(scenarios: scenarios, catalog: AppCatalog(ShippedApps.all), options: .init(jobs: 2, outputs: .devices)).run()
        #expect(report.results.map(\.path) == scenarios)
        #expect(report.summary == "1 passed, 4 failed, 1 skipped")
        func result(_ name: String) -> ScenarioResult { report.results.first { $0.path.hasSuffix("/" + name) }! }
        #expect(result("good.run.json").status == .passed && result("good.run.json").golden == .matched)
        let badField = result("bad-field.run.json")
        #expect(badField.status == .error && badField.failures[0].contains("bad-field.run.json") && badField.failures[0].contains("config"), "\(badField.failures)")
        #expect(result("unknown-app.run.json").failures[0].contains("no app 'nobody'"))
        #expect(result("missing-trace.run.json").failures[0].contains("missing.jsonl"))
        #expect(result("skipped.run.json").status == .skipped && result("skipped.run.json").failures == ["waiting for a new board"])
        let drifted = result("nested/drifted.run.json")
        #expect(drifted.status == .failed && drifted.golden == .differs)
        #expect(drifted.failures[0].contains("@@ ") && drifted.failures[0].contains("-   14.880 bar.removed bar=\"\" word=I") && drifted.failures[0].contains("+   14.880 bar.deleted bar=\"\" word=I"), "\(drifted.failures)")
    }

    @Test func updateGoldenRewritesWhatDiffersAndDeterminismHolds() async throws {
        let folder = try Self.suite()
        let scenarios = [folder + "/good.run.json", folder + "/nested/drifted.run.json"]
        let options = ScenarioSuite.Options(jobs: 1, updateGolden: true, verifyDeterminism: true, outputs: .devices)
        let report = await ScenarioSuite(scenarios: scenarios, catalog: AppCatalog(ShippedApps.all), options: options).run()
        #expect(report.results.map(\.golden) == [nil, .updated])
        #expect(report.passed == 2)
        #expect(try String(contentsOfFile: folder + "/nested/drifted.events.log", encoding: .utf8) == String(contentsOfFile: folder + "/good.events.log", encoding: .utf8))
    }
}
