import Foundation
import ProgramSession
import ScenarioSuite
import TestSupport
import Testing

/// Program scenarios through `hal test`: the Python campus guide of `Examples/CampusGuidePython` on the shipped
/// campus walk passes beside an app scenario, with both in the JUnit report; and its verdict flips when the arrival
/// sound is removed from the program, or when an expectation's window leaves the arrival out. On the trace's clock its
/// log is the same every run: it has a golden log, and `--verify-determinism` runs it twice and compares.
@Suite(.serialized) struct ProgramScenarioTests {
    private let example = packageRoot + "/Examples/CampusGuidePython"

    private func test(_ arguments: [String], scratch: String) async throws -> (status: Int32, output: String) {
        try await runProcess(halExecutable, ["test"] + arguments, environment: ["TMPDIR": scratch], timeout: 600)
    }

    @Test func theCampusGuidePassesBesideAnAppScenario() async throws {
        let scratch = try makeScratchFolder()
        let junit = scratch + "/report.xml"
        // One at a time: the app scenario does not share the processor with the program's feeds.
        let (status, output) = try await test([example, packageRoot + "/traces/talkboard", "--junit", junit, "--jobs", "1"], scratch: scratch)
        #expect(status == 0, "\(output)")
        #expect(output.contains("2 passed, 0 failed, 0 skipped"), "\(output)")
        #expect(output.contains("campus-guide.run.json (program python3)"), "\(output)")
        #expect(!output.contains("golden: wrote") && !output.contains("differs"), "\(output)")
        let report = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(report.contains("campus-guide.run.json") && report.contains("session.run.json") && report.contains("failures=\"0\""), "\(report)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// A copy of the example and the walk it replays, in `scratch`: the scenario's paths hold there too.
    private func copyExample(to scratch: String, name: String) throws -> String {
        let folder = scratch + "/" + name
        let manager = FileManager.default
        try manager.createDirectory(atPath: folder + "/traces", withIntermediateDirectories: true)
        try manager.copyItem(atPath: packageRoot + "/traces/ubc", toPath: folder + "/traces/ubc")
        try manager.createDirectory(atPath: folder + "/Examples", withIntermediateDirectories: true)
        try manager.copyItem(atPath: example, toPath: folder + "/Examples/CampusGuidePython")
        return folder + "/Examples/CampusGuidePython"
    }

    @Test func theVerdictFlipsWithoutTheArrivalSoundOrOutsideTheWindow() async throws {
        let scratch = try makeScratchFolder()
        // Without the sound: the program still arrives, but no speaker.started follows.
        let silent = try copyExample(to: scratch, name: "silent")
        let program = silent + "/campus_guide.py"
        let source = try String(contentsOfFile: program, encoding: .utf8)
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.filter { $0.contains("# the arrival sound") }.count == 1)
        try lines.filter { !$0.contains("# the arrival sound") }.joined(separator: "\n").write(toFile: program, atomically: true, encoding: .utf8)
        // The clock tower expected later than it comes.
        let late = try copyExample(to: scratch, name: "late")
        let scenario = late + "/campus-guide.run.json"
        let text = try String(contentsOfFile: scenario, encoding: .utf8)
        #expect(text.contains(#""with": {"place": "clock-tower"}, "between": [200, 260]"#))
        try text.replacingOccurrences(of: #""with": {"place": "clock-tower"}, "between": [200, 260]"#, with: #""with": {"place": "clock-tower"}, "between": [300, 360]"#)
            .write(toFile: scenario, atomically: true, encoding: .utf8)

        let (status, output) = try await test([silent, late, "--jobs", "1"], scratch: scratch)
        #expect(status != 0, "\(output)")
        #expect(output.contains("0 passed, 2 failed"), "\(output)")
        // Each fails for its own reason and for no other.
        let failures = output.split(separator: "\n").filter { $0.contains("FAIL ") && !$0.contains(".run.json") }
        #expect(failures.count == 2, "\(output)")
        #expect(failures.contains { $0.contains("every place.arrived followed by speaker.started within 0.500 s") }, "\(output)")
        // The silent guide's log also differs from the golden log it was copied with; the late one's matches it.
        #expect(output.components(separatedBy: "the event log differs from").count == 2 && output.contains("-  316.000 speaker.started"), "\(output)")
        #expect(failures.contains { $0.contains("place.arrived{place=clock-tower} between 300.000 s and 360.000 s") }, "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// `--verify-determinism` runs a program scenario on the trace's clock twice: the campus guide gives the same log
    /// and passes; a program that prints a random number as an event fails, with the two lines in the diff.
    @Test func determinismIsVerifiedByASecondRun() async throws {
        let scratch = try makeScratchFolder()
        var (status, output) = try await test([example, "--verify-determinism"], scratch: scratch)
        #expect(status == 0 && output.contains("1 passed, 0 failed"), "\(output)")
        let random = scratch + "/random"
        try FileManager.default.createDirectory(atPath: random, withIntermediateDirectories: true)
        try """
            {"program": ["/usr/bin/python3", "-c", "import os; print('drew', os.urandom(8).hex())"],
             "inputs": ["\(packageRoot)/traces/ubc/main-mall-tour.walk.json"], "devices": {"gps": ["nmea"]}, "end": 1,
             "events": [{"pattern": "^drew (?<value>\\\\S+)$", "event": "drew"}], "expect": [{"event": "drew", "count": 1}]}
            """.write(toFile: random + "/random.run.json", atomically: true, encoding: .utf8)
        (status, output) = try await test([random, "--update-golden"], scratch: scratch)
        #expect(status == 0 && output.contains("golden: wrote"), "\(output)")
        (status, output) = try await test([random, "--verify-determinism"], scratch: scratch)
        #expect(status != 0 && output.contains("not deterministic: a second run's log differs from the first"), "\(output)")
        #expect(output.contains("+    0.000 drew value=") && output.contains("-    0.000 drew value="), "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// `hal test --explore` over a program scenario on the trace's clock: each variant's faults are injected into the
    /// walk the program reads, their windows drawn in the scenario's 360 s (not the walk's 1,430 s). A space that
    /// loses the fix for 100 s from a drawn time fails variant 0 of seed 1 (the fix lost from 25 s to 125 s: the
    /// arrival at 55 s is missed: three arrivals, not four), passes variant 1, and the printed command
    /// fails again the same way. A program on the machine's clock is refused, with the reason.
    @Test func exploringAProgramScenarioFindsAFailureThatFailsAgain() async throws {
        let scratch = try makeScratchFolder()
        let folder = try copyExample(to: scratch, name: "explored")
        try #"{"count": [1, 1], "faults": [{"kind": "lostFix", "channel": "gps", "duration": [100, 100]}]}"#
            .write(toFile: folder + "/lost.explore.json", atomically: true, encoding: .utf8)
        let scenario = folder + "/campus-guide.run.json"
        let text = try String(contentsOfFile: scenario, encoding: .utf8)
        try text.replacingOccurrences(of: #""end": 360,"#, with: #""end": 360, "explore": "lost.explore.json","#)
            .write(toFile: scenario, atomically: true, encoding: .utf8)
        var (status, output) = try await test([folder, "--explore", "2", "--seed", "1", "--jobs", "2"], scratch: scratch)
        #expect(status != 0 && output.contains("explored 2 variants of 1 scenario") && output.contains(": 1 failed"), "\(output)")
        let failures = ["FAIL place.arrived exactly 4×: found 3, at 0.000 s, 223.000 s, 319.000 s"]
        #expect(failures.allSatisfy(output.contains) && output.contains(#"{"channel":"gps","from":25.027,"kind":"lostFix","to":125.027}"#), "\(output)")
        let again = "run again: hal test \(scenario) --explore 1 --seed 1 --variant 0"
        #expect(output.contains(again), "\(output)")
        (status, output) = try await test([scenario, "--explore", "1", "--seed", "1", "--variant", "0"], scratch: scratch)
        #expect(status != 0 && failures.allSatisfy(output.contains) && output.contains(": 1 failed"), "\(output)")

        // On the machine's clock: refused.
        try text.replacingOccurrences(of: #""end": 360,"#, with: #""end": 360, "rate": 10,"#).write(toFile: scenario, atomically: true, encoding: .utf8)
        (status, output) = try await test([scenario, "--explore", "1"], scratch: scratch)
        #expect(status != 0 && output.contains("a program on the machine's clock (\"clock\": \"wall\" or a \"rate\") cannot be explored"), "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// `--shrink` over a program scenario: a Python program counts the valid RMC sentences of 21 s of the campus walk,
    /// and a space that loses the fix for 3 s fails every variant (18 fixes, not 21). Variant 0 of seed 1 shrinks to
    /// a lost fix of one record (a 1 ms window; the trace stays whole, since fewer records would fail without the
    /// fault too), written beside the scenario as a program scenario, and its printed `reproduce:` command fails again
    /// with one fix missing. The case without its fault passes.
    @Test func aProgramScenariosFailureShrinksAndFailsAgain() async throws {
        let scratch = try makeScratchFolder()
        let folder = scratch + "/fixes"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let walk = scratch + "/walk.jsonl"
        let made = try await runProcess(halExecutable, ["gps", "walk", packageRoot + "/traces/ubc/main-mall-tour.walk.json", "-o", walk], timeout: 60)
        #expect(made.status == 0, "\(made.output)")
        // The walk's first 20 s: its header and 21 fixes, one a second.
        let lines = try String(contentsOfFile: walk, encoding: .utf8).split(separator: "\n")
        let first = lines.prefix(1) + lines.dropFirst().filter { line in
            line.contains(#""ch":"gps""#) && (line.split(separator: ",").first.flatMap { Int64($0.dropFirst(5)) } ?? .max) <= 20_000_000_000
        }
        #expect(first.count == 22)
        try (first.joined(separator: "\n") + "\n").write(toFile: folder + "/short.jsonl", atomically: true, encoding: .utf8)
        try """
            import os, tty
            gps = os.open(os.environ["HAL_DEVICE_GPS"], os.O_RDONLY | os.O_NOCTTY)
            tty.setraw(gps)
            pending = b""
            while True:
                pending += os.read(gps, 4096)
                while b"\\n" in pending:
                    line, pending = pending.split(b"\\n", 1)
                    if b"RMC" in line[:6] and line.split(b",")[2] == b"A":
                        print("fix", flush=True)
            """.write(toFile: folder + "/fixes.py", atomically: true, encoding: .utf8)
        try #"{"count": [1, 1], "faults": [{"kind": "lostFix", "channel": "gps", "duration": [3, 3]}]}"#
            .write(toFile: folder + "/lost.explore.json", atomically: true, encoding: .utf8)
        let scenario = folder + "/fixes.run.json"
        try """
            {"program": ["/usr/bin/python3", "fixes.py"], "inputs": ["short.jsonl"], "devices": {"gps": ["nmea"]}, "speaker": false,
             "explore": "lost.explore.json", "events": [{"pattern": "^fix$", "event": "fix"}], "expect": [{"event": "fix", "count": 21}]}
            """.write(toFile: scenario, atomically: true, encoding: .utf8)
        var (status, output) = try await test([scenario], scratch: scratch)
        #expect(status == 0, "\(output)")
        (status, output) = try await test([scenario, "--explore", "1", "--seed", "1", "--shrink"], scratch: scratch)
        #expect(status != 0 && output.contains("FAIL fix exactly 21×: found 18"), "\(output)")
        #expect(output.contains("shrunk \(scenario)#variant-0 in ") && output.contains("after:  1 faults, 0 commands, 1 expectations, 1 channels, 21 records, 20.000 s"), "\(output)")
        let written = folder + "/fixes.min-1-0.run.json"
        #expect(output.contains("reproduce: hal test \(written)"), "\(output)")
        // The minimal plan: one lost fix, its window narrowed to one record.
        let plan = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/fixes.min-1-0.faults.json"))) as? [String: Any]
        let faults = try #require(plan?["faults"] as? [[String: Any]])
        #expect(faults.count == 1 && faults.first?["kind"] as? String == "lostFix", "\(faults)")
        let from = try #require(faults.first?["from"] as? Double), to = try #require(faults.first?["to"] as? Double)
        #expect(((to - from) * 1000).rounded() == 1, "\(faults)")
        // The printed command fails again, one fix short; without its fault, the case passes.
        (status, output) = try await test([written], scratch: scratch)
        #expect(status != 0 && output.contains("FAIL fix exactly 21×: found 20"), "\(output)")
        try #"{"faults": [], "seed": 1}"#.write(toFile: folder + "/fixes.min-1-0.faults.json", atomically: true, encoding: .utf8)
        (status, output) = try await test([written], scratch: scratch)
        #expect(status == 0, "\(output)")
        // A case written in another folder names the program's working directory from there; beside the scenario, it
        // needs none.
        let file = try ProgramScenarioRunner().explorable(path: scenario)
        for (where_, directory) in [(folder, nil), (scratch + "/elsewhere/cases", "../../fixes")] as [(String, String?)] {
            let text = try file.encode(file.parts, where_, "case.jsonl", "case.faults.json")
            let object = try JSONSerialization.jsonObject(with: Data(text)) as? [String: Any]
            #expect(object?["directory"] as? String == directory && object?["explore"] == nil, "\(String(decoding: text, as: UTF8.self))")
            #expect(object?["inputs"] as? [String] == ["case.jsonl"] && object?["faults"] as? String == "case.faults.json")
        }
        try? FileManager.default.removeItem(atPath: scratch)
    }
}
