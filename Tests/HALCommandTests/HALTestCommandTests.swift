import LibC
import Foundation
import Testing
import TestSupport

/// `hal test` end to end: its reports read by a real JUnit consumer (PyPI junitparser), shards, failures, Ctrl-C.
@Suite(.serialized) struct HALTestCommandTests {
    /// The longest a `hal test` run may take: only a bound for one that hangs, far beyond what a loaded two-core machine
    /// needs. (It was 120 s, which a loaded machine's debug build could come near.)
    static let limit: Double = 600

    /// The JUnit report's test cases as junitparser reads them: name, class, outcome and each result's message.
    static func junitCases(_ path: String) async throws -> [[String]] {
        let script = """
            import json, sys
            from junitparser import JUnitXml, Failure, Error, Skipped
            cases = []
            for suite in JUnitXml.fromfile(sys.argv[1]):
                for case in suite:
                    outcome = "passed" if case.is_passed else "skipped" if case.is_skipped else "failed"
                    cases.append([case.name, case.classname, outcome] + [r.message or "" for r in case.result])
            print(json.dumps(cases))
            """
        let run = try await runProcess("/usr/bin/env", ["python3", "-c", script, path], timeout: 60)
        try #require(run.status == 0, "\(run.output)")
        return try JSONDecoder().decode([[String]].self, from: Data(run.output.utf8))
    }

    @Test func theShippedSuitePassesAndItsShardsTogetherAreTheWholeRun() async throws {
        let folder = try makeScratchFolder()
        let whole = try await runProcess(halExecutable, ["test", "traces", "--junit", folder + "/all.xml", "--json", folder + "/all.json"], timeout: Self.limit)
        #expect(whole.status == 0, "\(whole.output)")
        #expect(whole.output.split(separator: "\n").last == "5 passed, 0 failed, 0 skipped")
        let all = try await Self.junitCases(folder + "/all.xml")
        #expect(all.map { $0[0] } == ["traces/fieldguide/walk.run.json", "traces/talkboard/session.run.json", "traces/trainer/facial-fun.run.json", "traces/ubc/explorer.run.json", "traces/viewer/school.run.json"])
        #expect(all.allSatisfy { $0[2] == "passed" })
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/all.json"))) as? [String: Any]
        #expect(json?["passed"] as? Int == 5 && (json?["scenarios"] as? [Any])?.count == 5)

        var union: [[String]] = []
        for index in 1...4 {
            // Shards 1 and 2 from the flag, 3 and 4 from GitLab's variables.
            let arguments = ["test", "traces", "--junit", folder + "/\(index).xml"] + (index <= 2 ? ["--shard", "\(index)/4"] : [])
            let environment = index <= 2 ? [:] : ["CI_NODE_INDEX": "\(index)", "CI_NODE_TOTAL": "4"]
            let part = try await runProcess(halExecutable, arguments, environment: environment, timeout: Self.limit)
            #expect(part.status == 0, "\(part.output)")
            union += try await Self.junitCases(folder + "/\(index).xml")
        }
        #expect(union.map { $0[0] }.sorted() == all.map { $0[0] })
        #expect(union.sorted { $0[0] < $1[0] }.map { [$0[0], $0[1], $0[2]] } == all.map { [$0[0], $0[1], $0[2]] })
    }

    /// The talk board's scenario in a scratch folder, exploring `space`.
    static func talkBoard(space: String) throws -> String {
        let folder = try makeScratchFolder()
        for file in ["board.json", "session.jsonl", "session.run.json"] {
            try FileManager.default.copyItem(atPath: packageRoot + "/traces/talkboard/" + file, toPath: folder + "/" + file)
        }
        try space.write(toFile: folder + "/session.space.json", atomically: true, encoding: .utf8)
        return folder
    }

    /// `--explore`: a speaker slower than the board's 100 ms budget fails every variant; each is reported with its seed
    /// and plan, shrunk to files that fail the same way under `hal test`, and the JUnit report (read by junitparser)
    /// carries the failure and the command that reproduces the minimal case; a shrink in another process writes the same
    /// bytes. A space the board copes with passes.
    @Test func exploreReportsAndShrinksFailingVariants() async throws {
        let space = #"{"count": [1, 1], "faults": [{"kind": "latency", "channel": "speaker", "magnitude": [0.2, 0.3]}]}"#
        let slow = try Self.talkBoard(space: space)
        let run = try await runProcess(
            halExecutable, ["test", slow, "--explore", "3", "--seed", "4", "--shrink", "--junit", slow + "/explore.xml"], timeout: Self.limit)
        #expect(run.status == 1)
        #expect(run.output.contains("explored 3 variants of 1 scenario in ") && run.output.hasSuffix(": 3 failed\n"), "\(run.output)")
        #expect(run.output.contains("\"kind\":\"latency\""))
        #expect(run.output.contains("run again: hal test \(slow)/session.run.json --explore 3 --seed 4 --variant 2"))
        for index in 0..<3 {
            let minimal = slow + "/session.min-4-\(index).run.json"
            #expect(run.output.contains("reproduce: hal test \(minimal)"), "\(run.output)")
            let again = try await runProcess(halExecutable, ["test", minimal], timeout: Self.limit)
            #expect(again.status == 1 && again.output.contains("FAIL every "), "\(again.output)")
        }
        // The same variant shrunk again by another process (Swift seeds its hashing per process) writes the same bytes.
        let other = try Self.talkBoard(space: space)
        let second = try await runProcess(
            halExecutable, ["test", other, "--explore", "3", "--seed", "4", "--variant", "1", "--shrink"], timeout: Self.limit)
        #expect(second.status == 1, "\(second.output)")
        for suffix in ["run.json", "faults.json", "jsonl"] {
            let first = try String(contentsOfFile: slow + "/session.min-4-1." + suffix, encoding: .utf8)
            let again = try String(contentsOfFile: other + "/session.min-4-1." + suffix, encoding: .utf8)
            #expect(first.replacingOccurrences(of: slow, with: "FOLDER") == again.replacingOccurrences(of: other, with: "FOLDER"), "\(suffix)")
        }
        let cases = try await Self.junitCases(slow + "/explore.xml")
        #expect(cases.map { $0[0] } == (0..<3).map { "\(slow)/session.run.json#variant-\($0)" })
        #expect(cases.allSatisfy { $0[2] == "failed" && $0[3].hasPrefix("FAIL every ") })

        let fine = try Self.talkBoard(space: #"{"faults": [{"kind": "jitter", "channel": "touch", "magnitude": [0.001, 0.002]}]}"#)
        let passing = try await runProcess(halExecutable, ["test", fine, "--explore", "5"], timeout: Self.limit)
        #expect(passing.status == 0 && passing.output.hasSuffix(": no variant failed\n"), "\(passing.output)")

        for (arguments, message) in [
            (["--shrink"], "--variant and --shrink go with --explore N"),
            (["--explore", "3", "--variant", "3"], "--variant 3 is not among the 3 variants (0 to 2)"),
            (["--explore", "3", "--update-golden"], "--explore compares no golden logs"),
        ] {
            let refused = try await runProcess(halExecutable, ["test", fine] + arguments, timeout: Self.limit)
            #expect(refused.status == 64 && refused.output.contains(message), "\(refused.output)")
        }
    }

    /// A suite with a broken expectation, a drifted golden log and a file that does not parse.
    static func brokenSuite() throws -> String {
        let folder = try makeScratchFolder()
        let original = try String(contentsOfFile: packageRoot + "/traces/ubc/explorer.run.json", encoding: .utf8)
            .replacingOccurrences(of: "\"explorer.json\"", with: "\"\(packageRoot)/traces/ubc/explorer.json\"")
            .replacingOccurrences(of: "\"main-mall-tour.walk.json\"", with: "\"\(packageRoot)/traces/ubc/main-mall-tour.walk.json\"")
        try original.replacingOccurrences(of: "\"between\": [200, 260]", with: "\"between\": [120, 180]")
            .replacingOccurrences(of: "\"count\": 2}", with: "\"count\": 3}")
            .write(toFile: folder + "/broken.run.json", atomically: true, encoding: .utf8)
        try original.write(toFile: folder + "/drifted.run.json", atomically: true, encoding: .utf8)
        try String(contentsOfFile: packageRoot + "/traces/ubc/explorer.events.log", encoding: .utf8)
            .replacingOccurrences(of: "place=clock-tower", with: "place=clocktower")
            .write(toFile: folder + "/drifted.events.log", atomically: true, encoding: .utf8)
        try "{\"app\": \"explorer\",\n \"inputs\": []}\n".write(toFile: folder + "/bad.run.json", atomically: true, encoding: .utf8)
        return folder
    }

    @Test func failuresAreReadableInTheLogAndTheReport() async throws {
        let folder = try Self.brokenSuite()
        let run = try await runProcess(halExecutable, ["test", folder, "--junit", folder + "/report.xml"], timeout: Self.limit)
        #expect(run.status == 1)
        #expect(run.output.split(separator: "\n").last == "0 passed, 3 failed, 0 skipped", "\(run.output)")
        // The drifted golden log as a unified diff.
        #expect(run.output.contains("the event log differs from \(folder)/drifted.events.log:"))
        #expect(run.output.contains("-  233.000 place.arrived accuracy=5.0 place=clocktower") || run.output.contains("place=clocktower"), "\(run.output)")
        #expect(run.output.contains("\n    @@ -"))
        let cases = try await Self.junitCases(folder + "/report.xml")
        let broken = try #require(cases.first { $0[0].hasSuffix("broken.run.json") })
        // One failure per failed expectation.
        #expect(broken[2] == "failed" && broken.count == 5, "\(broken)")
        #expect(broken[3].hasPrefix("FAIL place.arrived{place=clock-tower} between 120.000 s and 180.000 s"))
        #expect(broken[4].hasPrefix("FAIL message.read{place=clock-tower} exactly 3×"))
        let bad = try #require(cases.first { $0[0].hasSuffix("bad.run.json") })
        #expect(bad[2] == "failed" && bad[3].contains("bad.run.json") && bad[3].contains("config"), "\(bad)")
    }

    @Test func updateGoldenRewritesTheDriftedLogAndSaysSo() async throws {
        let folder = try Self.brokenSuite()
        try FileManager.default.removeItem(atPath: folder + "/broken.run.json")
        try FileManager.default.removeItem(atPath: folder + "/bad.run.json")
        let update = try await runProcess(halExecutable, ["test", folder, "--update-golden"], timeout: Self.limit)
        #expect(update.status == 0, "\(update.output)")
        #expect(update.output.contains("golden: updated \(folder)/drifted.events.log"))
        #expect(try String(contentsOfFile: folder + "/drifted.events.log", encoding: .utf8) == String(contentsOfFile: packageRoot + "/traces/ubc/explorer.events.log", encoding: .utf8))
        let again = try await runProcess(halExecutable, ["test", folder, "--verify-determinism"], timeout: Self.limit)
        #expect(again.status == 0 && !again.output.contains("golden:"), "\(again.output)")
    }

    @Test func ctrlCStopsTheRunAndStillWritesTheReportOfWhatFinished() async throws {
        let folder = try makeScratchFolder()
        let scenario = try String(contentsOfFile: packageRoot + "/traces/ubc/explorer.run.json", encoding: .utf8)
            .replacingOccurrences(of: "\"explorer.json\"", with: "\"\(packageRoot)/traces/ubc/explorer.json\"")
            .replacingOccurrences(of: "\"main-mall-tour.walk.json\"", with: "\"\(packageRoot)/traces/ubc/main-mall-tour.walk.json\"")
        for index in 0..<80 { try scenario.write(toFile: folder + String(format: "/walk-%02d.run.json", index), atomically: true, encoding: .utf8) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: halExecutable)
        process.arguments = ["test", folder, "--jobs", "1", "--junit", folder + "/report.xml"]
        #expect(FileManager.default.createFile(atPath: folder + "/out.txt", contents: nil))
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/out.txt"))
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Interrupt once the first scenario has finished: a state, however long a loaded machine takes to reach it.
        let started = try await waitUntil(every: .milliseconds(20)) {
            (try? String(contentsOfFile: folder + "/out.txt", encoding: .utf8))?.contains("PASS") ?? false
        }
        try #require(started)
        kill(process.processIdentifier, SIGINT)
        await withCheckedContinuation { continuation in DispatchQueue.global().async { process.waitUntilExit(); continuation.resume() } }
        #expect(process.terminationStatus == 130)
        let text = try String(contentsOfFile: folder + "/out.txt", encoding: .utf8)
        #expect(text.contains("interrupted: "), "\(text)")
        let cases = try await Self.junitCases(folder + "/report.xml")
        #expect(!cases.isEmpty && cases.count < 80 && cases.allSatisfy { $0[2] == "passed" }, "\(cases.count)")
    }
}
