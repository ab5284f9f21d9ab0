import Foundation
import HAL
import TraceFormat
import Testing
import TestSupport

/// Each shipped scenario, run through `hal run` as fast as possible and paced at ×N, prints exactly its
/// golden event log; and every scenario's expectations hold. Serialized: each test starts `hal` processes, and
/// twenty at once would starve the timing-sensitive tests elsewhere in the run on a small machine.
@Suite(.serialized) struct GoldenLogTests {
    /// (app, scenario without `.run.json`, a replay rate that takes about a second).
    static let scenarios: [(app: String, base: String, rate: String)] = [
        ("explorer", "traces/ubc/explorer", "1500"),
        ("talkboard", "traces/talkboard/session", "20"),
        ("viewer", "traces/viewer/school", "25"),
        ("trainer", "traces/trainer/facial-fun", "75"),
        ("fieldguide", "traces/fieldguide/walk", "25"),
    ]

    @Test(arguments: scenarios.map(\.app))
    func theLogMatchesTheGoldenOneAtEveryRate(app: String) async throws {
        let scenario = Self.scenarios.first { $0.app == app }!
        let path = packageRoot + "/" + scenario.base
        let golden = try String(contentsOfFile: path + ".events.log", encoding: .utf8)
        for rate in [[], ["--rate", scenario.rate], ["--rate", String(2 * Int(scenario.rate)!)]] {
            let run = try await runProcess(halExecutable, ["run", app, path + ".run.json"] + rate, timeout: 60)
            #expect(run.status == 0, "\(rate): \(run.output)")
            #expect(run.output == golden, "hal run \(app) \(rate) differs from \(scenario.base).events.log")
        }
    }

    @Test(arguments: scenarios.map(\.app))
    func theScenarioExpectationsHold(app: String) async throws {
        let scenario = Self.scenarios.first { $0.app == app }!
        let run = try await runProcess(halExecutable, ["run", app, packageRoot + "/" + scenario.base + ".run.json", "--check"], timeout: 60)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("check: all "))
        #expect(!run.output.contains("check: FAIL"))
    }

    @Test func aBrokenExpectationFailsWithAReadableReport() async throws {
        let folder = try makeScratchFolder()
        _ = try editedCampusScenario(in: folder, as: "broken.run.json", replacing: "\"between\": [200, 260]", with: "\"between\": [120, 180]")
        let run = try await runProcess(halExecutable, ["run", "explorer", folder + "/broken.run.json", "--check"], timeout: 60)
        #expect(run.status == 1)
        #expect(run.output.contains(
            "check: FAIL place.arrived{place=clock-tower} between 120.000 s and 180.000 s: happened only outside the window, at 233.000 s"))
        #expect(run.output.contains("check: 1 of 22 expectations failed"))
    }

    /// A fault plan with a slow speaker: each shipped scenario's response-time checks fail, naming the limit and the
    /// worst case; with jitter, the same seed gives the same log.
    @Test func aSlowSpeakerFailsTheResponseTimeChecksWithAReadableReport() async throws {
        let folder = try makeScratchFolder()
        try #"{"seed": 3, "faults": [{"kind": "latency", "channel": "speaker", "magnitude": 0.8}]}"#
            .write(toFile: folder + "/slow.json", atomically: true, encoding: .utf8)
        let failures: [(app: String, base: String, line: String)] = [
            ("viewer", "traces/viewer/school",
             "check: FAIL every sound.played followed by speaker.started within 0.500 s: 2 of 2 too late; worst 800 ms after the one at 4.580 s, of 2"),
            // 4 of 4: the last bar.spoken comes just after the speaker started an earlier word at the same millisecond,
            // which is no answer to it (the run's order, docs/apps.md); a check by timestamps alone counted it.
            ("talkboard", "traces/talkboard/session",
             "check: FAIL every bar.spoken followed by speaker.started within 0.100 s: 4 of 4 too late; worst 800 ms after the one at 4.280 s, of 4"),
            ("trainer", "traces/trainer/facial-fun",
             "check: FAIL every answer.correct followed by speaker.started{clip=sounds/click.wav} within 0.500 s: 4 of 4 too late; worst 1400 ms after the one at 47.080 s, of 4"),
        ]
        // A slow screen (Prep REQ5's 1 s for a video).
        try #"{"seed": 3, "faults": [{"kind": "latency", "channel": "screen", "magnitude": 1.5}]}"#
            .write(toFile: folder + "/slow-screen.json", atomically: true, encoding: .utf8)
        let slowScreen = try await runProcess(
            halExecutable, ["run", "viewer", packageRoot + "/traces/viewer/school.run.json", "--check", "--faults", folder + "/slow-screen.json"], timeout: 60)
        #expect(slowScreen.status == 1, "\(slowScreen.output)")
        #expect(slowScreen.output.contains(
            "check: FAIL every video.opened followed by screen.started within 1.000 s: 1 of 1 too late; worst 1500 ms after the one at 14.580 s, of 1"),
            "\(slowScreen.output)")
        // The pause a second after the tap falls in the delay: the screen reports it at once, but the soundtrack,
        // which waits for the first frame, had not started, so it has no pause to report. No other check fails.
        #expect(slowScreen.output.contains("check: PASS every video.paused followed by screen.paused within 0.500 s"), "\(slowScreen.output)")
        #expect(slowScreen.output.contains(
            "check: FAIL every video.paused followed by speaker.paused{clip=clips/hall-tour.wav} within 0.500 s: video.paused at 15.580 s was never followed"),
            "\(slowScreen.output)")
        #expect(slowScreen.output.contains("check: 2 of 29 expectations failed"), "\(slowScreen.output)")
        try #"{"seed": 3, "faults": [{"kind": "drop", "channel": "screen", "probability": 0.5}]}"#
            .write(toFile: folder + "/bad-screen.json", atomically: true, encoding: .utf8)
        let badScreen = try await runProcess(
            halExecutable, ["run", "viewer", packageRoot + "/traces/viewer/school.run.json", "--faults", folder + "/bad-screen.json"], timeout: 60)
        #expect(badScreen.status != 0 && badScreen.output.contains("faults[0]: the screen takes latency, not drop"), "\(badScreen.output)")
        for failure in failures {
            let run = try await runProcess(
                halExecutable, ["run", failure.app, packageRoot + "/" + failure.base + ".run.json", "--check", "--faults", folder + "/slow.json"],
                timeout: 60)
            #expect(run.status == 1, "\(run.output)")
            #expect(run.output.contains(failure.line), "\(run.output)")
        }
        try #"{"seed": 3, "faults": [{"kind": "latency", "channel": "speaker", "magnitude": 0.3}, {"kind": "jitter", "channel": "speaker", "magnitude": 0.2}]}"#
            .write(toFile: folder + "/jitter.json", atomically: true, encoding: .utf8)
        let args = ["run", "viewer", packageRoot + "/traces/viewer/school.run.json", "--faults", folder + "/jitter.json"]
        let once = try await runProcess(halExecutable, args, timeout: 60)
        let twice = try await runProcess(halExecutable, args + ["--rate", "50"], timeout: 60)
        #expect(once.output == twice.output)
        let latencies = once.output.split(separator: "\n").filter { $0.contains("speaker.started") }
            .compactMap { $0.split(separator: " ").first { $0.hasPrefix("latency=") }.flatMap { Double($0.dropFirst(8)) } }
        #expect(latencies.count == 4 && Set(latencies).count == 4 && latencies.allSatisfy { $0 >= 0 }, "\(latencies)")
    }

    @Test func recordWritesTheInputsAndTheAppChannelToATrace() async throws {
        let folder = try makeScratchFolder()
        let run = try await runProcess(
            halExecutable, ["run", "talkboard", packageRoot + "/traces/talkboard/session.run.json", "--record", folder + "/run.jsonl"], timeout: 60)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("wrote 111 records (49 app events)"))
        let info = try await runProcess(halExecutable, ["info", folder + "/run.jsonl"], timeout: 30)
        #expect(info.output.contains("app"), "\(info.output)")
        let lines = try String(contentsOfFile: folder + "/run.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.contains { $0.contains(#""ch":"app","event":"bar.spoken","data":{"text":"I want juice","voice":"en"}"#) })
        // What the speaker did is in the app channel too (14 of the 49 events), with its latency.
        #expect(lines.contains { $0.contains(#""ch":"app","event":"speaker.started","data":{"latency":0.0,"text":"I want juice","voice":"en"}"#) })
    }

    /// PhyloDex keeps its entries on the device: run the walk twice with the same storage folder, and the second run
    /// starts with the first one's entries and numbers on; a damaged list is reported with the file and the field.
    @Test func theFieldGuidesEntriesSurviveARestartInItsStorageFolder() async throws {
        let folder = try makeScratchFolder()
        let args = ["run", "fieldguide", packageRoot + "/traces/fieldguide/walk.run.json", "--storage", folder + "/guide"]
        let first = try await runProcess(halExecutable, args, timeout: 60)
        let second = try await runProcess(halExecutable, args, timeout: 60)
        #expect(first.status == 0 && second.status == 0, "\(second.output)")
        #expect(first.output.contains("guide.started cardAspect=5:7 entries=0"))
        #expect(second.output.contains("guide.started cardAspect=5:7 entries=2"), "\(second.output)")
        #expect(second.output.split(separator: "\n").filter { $0.contains("capture.saved") }.map { $0.split(separator: " ").first { $0.hasPrefix("entry=") }! }
            == ["entry=3", "entry=4"])
        let files = try FileManager.default.contentsOfDirectory(atPath: folder + "/guide").sorted()
        #expect(files == ["entries.json", "entry-1.png", "entry-2.png", "entry-3.png", "entry-4.png"])
        // The stored photo is the captured frame's file.
        #expect(FileManager.default.contents(atPath: folder + "/guide/entry-2.png") == FileManager.default.contents(atPath: packageRoot + "/traces/fieldguide/frames/cam-16.png"))
        // A replay without --storage starts empty every time: the golden log holds.
        let plain = try await runProcess(halExecutable, ["run", "fieldguide", packageRoot + "/traces/fieldguide/walk.run.json"], timeout: 60)
        #expect(plain.output == (try String(contentsOfFile: packageRoot + "/traces/fieldguide/walk.events.log", encoding: .utf8)))
        try #"[{"number": 1, "taken": 0, "crop": [1, 2, 3]}]"#.write(toFile: folder + "/guide/entries.json", atomically: true, encoding: .utf8)
        let damaged = try await runProcess(halExecutable, args, timeout: 60)
        #expect(damaged.output.contains(#"storage.failed error="entries.json: [0].photo: missing""#), "\(damaged.output)")
        #expect(damaged.output.contains("guide.started cardAspect=5:7 entries=0"))
        // Nothing is written over the damaged list: it stays for repair.
        #expect(try String(contentsOfFile: folder + "/guide/entries.json", encoding: .utf8) == #"[{"number": 1, "taken": 0, "crop": [1, 2, 3]}]"#)
    }

    @Test func aRecordedRunKeepsItsFramesInItsOwnFolder() async throws {
        let folder = try makeScratchFolder()
        let run = try await runProcess(
            halExecutable, ["run", "fieldguide", packageRoot + "/traces/fieldguide/walk.run.json", "--record", folder + "/guide.jsonl"], timeout: 60)
        #expect(run.status == 0, "\(run.output)")
        let trace = try Trace.load(path: folder + "/guide.jsonl")
        let frames = trace.records.compactMap { Frame($0.reading) }
        #expect(frames.count == 20)
        #expect(frames.allSatisfy { frame in
            guard case .file(let path) = frame.storage else { return false }
            return path.hasPrefix("guide.frames/") && FileManager.default.fileExists(atPath: folder + "/" + path)
        })
    }

    @Test func badConfigsNameTheFileAndTheField() async throws {
        let folder = try makeScratchFolder()
        try #"{"favourites": [], "categories": [{"name": "Food", "words": []}]}"#.write(toFile: folder + "/board.json", atomically: true, encoding: .utf8)
        let run = try await runProcess(
            halExecutable, ["run", "talkboard", "--config", folder + "/board.json", "--input", packageRoot + "/traces/talkboard/session.jsonl"],
            timeout: 30)
        #expect(run.status != 0)
        #expect(run.output.contains("\(folder)/board.json: line 1, column 61: categories[0].words: 0 words; a page holds 1…96"), "\(run.output)")
        let unknown = try await runProcess(halExecutable, ["run", "chess"], timeout: 30)
        #expect(unknown.output.contains("no app 'chess'; the apps are explorer, fieldguide, talkboard, trainer, viewer"))
    }
}
