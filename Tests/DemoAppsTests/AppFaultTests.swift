import HALCommandLine
import AppCore
import DemoApps
import Session
import Foundation
import HAL
import Replay
import Synthesis
import TraceFormat
import Testing
import TestSupport

/// Runs an app over a trace through the session library, as `hal run` does: records in replay order, then the plan's
/// faults, with the session's one merge.
func faultedEvents<Logic: AppLogic>(_ logic: Logic, _ trace: Trace, _ plan: FaultPlan?) async throws -> [AppEvent] {
    try await AppSession(logic, inputs: trace, faults: plan, outputs: .devices).run().events
}

/// The channel id of the first channel of a kind.
func channel(_ kind: DeviceKind, in trace: Trace) throws -> String {
    try #require(trace.header.channels.first { $0.kind == kind }?.id)
}

/// The 360° viewer under motion faults, over the shipped school tour (docs/faults.md, "How consumers cope").
@Suite struct ViewerFaultTests {
    static func tour() throws -> (ExperienceViewer, Trace) {
        let folder = packageRoot + "/traces/viewer"
        let config: ViewerConfig = try ScriptFile.decode(path: folder + "/school.json")
        return (try ExperienceViewer(config: config, clipFolder: folder), try Trace.loadInput(path: folder + "/school-tour.motion.json"))
    }

    /// What the child did and saw, without the view's direction: the hotspots hit, doors, warnings.
    static func story(_ log: [AppEvent]) -> [String] {
        log.filter { !$0.name.hasPrefix("view.") }.map { "\($0.name) \($0.attributes["hotspot"] ?? $0.attributes["panorama"] ?? .string(""))" }
    }

    @Test func motionReadingsThatStopShowMotionLostAndTheViewHoldsThenResumesWithoutALeap() async throws {
        let (viewer, trace) = try Self.tour()
        let gyro = try channel(.gyroscope, in: trace), accel = try channel(.accelerometer, in: trace)
        let plan = FaultPlan(seed: 1, faults: [
            Fault(.disconnect, channel: gyro, from: 2, to: 3.5), Fault(.disconnect, channel: accel, from: 2, to: 3.5),
        ])
        let log = try await faultedEvents(viewer, trace, plan)
        let lost = try #require(log.named("motion.lost").first)
        let restored = try #require(log.named("motion.restored").first)
        #expect(log.named("motion.lost").count == 1)
        // The last reading before the loss was at 1.99 s: lost half a second later; restored with the first at 3.500 s.
        #expect(abs(lost.timestamp.seconds - 2.49) < 0.011, "\(lost)")
        #expect(restored.timestamp == at(3.5))
        #expect(restored.attributes["gap"] == .double(1.5))
        // Nothing moves while lost, and the view resumes from where it held rather than leaping 45° ahead.
        let facings = log.named("view.facing")
        #expect(!facings.contains { $0.timestamp > lost.timestamp && $0.timestamp < restored.timestamp })
        let before = try #require(facings.last { $0.timestamp < lost.timestamp }?.attributes["yaw"])
        let after = try #require(facings.first { $0.timestamp >= restored.timestamp }?.attributes["yaw"])
        guard case .int(let yawBefore) = before, case .int(let yawAfter) = after else { Issue.record("\(before) \(after)"); return }
        #expect(abs(yawAfter - yawBefore) <= 15, "the view leapt from \(yawBefore)° to \(yawAfter)°")
    }

    @Test func duplicatedReorderedJitteredSpikedAndBiasedReadingsHitTheSameHotspots() async throws {
        let (viewer, trace) = try Self.tour()
        let gyro = try channel(.gyroscope, in: trace), accel = try channel(.accelerometer, in: trace)
        let clean = try await faultedEvents(viewer, trace, nil)
        let plan = FaultPlan(seed: 7, faults: [
            Fault(.duplicate, channel: gyro, probability: 0.1), Fault(.reorder, channel: accel, probability: 0.05),
            Fault(.jitter, channel: gyro, magnitude: 0.002), Fault(.spike, channel: gyro, probability: 0.01, magnitude: 0.5),
            Fault(.bias, channel: gyro, magnitude: 0.002),
        ])
        let faulted = try await faultedEvents(viewer, trace, plan)
        #expect(Self.story(faulted) == Self.story(clean))
        #expect(faulted.named("motion.lost").isEmpty)
        #expect(zip(faulted, faulted.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp }, "the log went back in time")
        // The same plan, the same log.
        #expect(try await faultedEvents(viewer, trace, plan) == faulted)
    }

    @Test func aStuckGyroscopeKeepsTurningTheViewAtTheStuckRate() async throws {
        let (viewer, trace) = try Self.tour()
        // Stuck mid-turn (30°/s from 1 s to 4 s), through the half-second hold that follows.
        let plan = FaultPlan(seed: 1, faults: [Fault(.stuck, channel: try channel(.gyroscope, in: trace), from: 3.5, to: 4.5)])
        let clean = try await faultedEvents(viewer, trace, nil)
        let stuck = try await faultedEvents(viewer, trace, plan)
        func yaws(_ log: [AppEvent], before seconds: Double) -> Set<AppEventValue> {
            Set(log.named("view.facing").filter { $0.timestamp <= at(seconds) }.compactMap { $0.attributes["yaw"] })
        }
        #expect(!yaws(clean, before: 4.5).contains(.int(105)))
        #expect(yaws(stuck, before: 4.5).contains(.int(105)), "a stuck gyroscope cannot be told from a turn: the view turns on")
        #expect(stuck.named("motion.lost").isEmpty)
    }
}

/// The emotion trainer's Facial Fun under expression faults.
@Suite struct TrainerFaultTests {
    static func round() throws -> EmotionTrainer {
        try EmotionTrainer(config: TrainerConfig(questions: [], facialFun: [.init(target: .happy, threshold: 0.7, hold: 2, capture: .hold)]))
    }

    /// A happy face at 10 Hz for `seconds`, as a trace.
    static func smiling(for seconds: Double) -> Trace {
        let channel = TraceChannel(id: "faces", kind: .expression, source: "sim:test", name: "faces", backend: "test")
        let records = (0...Int(seconds * 10)).map { tenth in
            TraceRecord(channel: 0, reading: .expression(ExpressionReading(
                timestamp: at(Double(tenth) / 10), face: FaceBox(x: 10, y: 10, width: 50, height: 50), scores: ExpressionScores(peak: .happy, score: 0.9))))
        }
        return Trace(header: TraceHeader(channels: [channel]), records: records)
    }

    @Test func aGapInReadingsBreaksTheHoldSoOnlyConfirmedSecondsCount() async throws {
        let plan = FaultPlan(seed: 1, faults: [Fault(.disconnect, channel: "faces", from: 1, to: 2.5)])
        let log = try await faultedEvents(try Self.round(), Self.smiling(for: 6), plan)
        // Held from 0 s, a 1.6 s gap (0.9 to 2.5): broken, held again from 2.5, correct 2 s later.
        let broken = try #require(log.named("facialFun.holdBroken").first)
        #expect(broken.timestamp == at(2.5))
        #expect(broken.attributes["gap"] == .double(1.6))
        #expect(broken.attributes["held"] == .double(0.9))
        #expect(log.named("facialFun.correct").map(\.timestamp) == [at(4.5)])
        // Unfaulted, the same face is correct at 2 s.
        #expect(try await faultedEvents(try Self.round(), Self.smiling(for: 6), nil).named("facialFun.correct").map(\.timestamp) == [at(2)])
    }

    @Test func scatteredDropsShorterThanTheHoldGapKeepTheHold() async throws {
        let plan = FaultPlan(seed: 3, faults: [Fault(.drop, channel: "faces", probability: 0.3, burst: 2)])
        let log = try await faultedEvents(try Self.round(), Self.smiling(for: 6), plan)
        let correct = try #require(log.named("facialFun.correct").first)
        #expect(log.named("facialFun.holdBroken").isEmpty)
        #expect(correct.timestamp >= at(2) && correct.timestamp <= at(2.5))
    }

    @Test func aCameraGoneLongerThanItsTimeoutShowsNoCameraThenTheFaceAgain() async throws {
        let plan = FaultPlan(seed: 1, faults: [Fault(.disconnect, channel: "faces", from: 1, to: 5)])
        let log = try await faultedEvents(try Self.round(), Self.smiling(for: 8), plan)
        #expect(names(log).filter { $0.hasPrefix("facialFun.") } == [
            "facialFun.shown", "facialFun.faceFound", "facialFun.holding", "facialFun.noCamera", "facialFun.faceFound",
            "facialFun.holding", "facialFun.correct",
        ])
        #expect(log.named("facialFun.noCamera").map(\.timestamp) == [at(3.9)])
        #expect(log.named("facialFun.correct").map(\.timestamp) == [at(7)])
    }
}

/// The talk board under pointer faults, over the shipped session.
@Suite struct TalkBoardFaultTests {
    static func session() throws -> (TalkBoard, Trace) {
        let folder = packageRoot + "/traces/talkboard"
        return (try TalkBoard(board: ScriptFile.decode(path: folder + "/board.json")), try Trace.load(path: folder + "/session.jsonl"))
    }

    @Test func duplicatedPointerEventsChangeNothing() async throws {
        let (board, trace) = try Self.session()
        let clean = try await faultedEvents(board, trace, nil)
        let faulted = try await faultedEvents(board, trace, FaultPlan(seed: 5, faults: [Fault(.duplicate, channel: "touch", probability: 0.5)]))
        #expect(faulted == clean)
    }

    @Test func aLostOrReorderedTapIsLostAndNeverPicksAWordTheBoardDidNotShow() async throws {
        let (board, trace) = try Self.session()
        let clean = try await faultedEvents(board, trace, nil)
        let config: WordBoard = try ScriptFile.decode(path: packageRoot + "/traces/talkboard/board.json")
        for plan in [
            FaultPlan(seed: 2, faults: [Fault(.drop, channel: "touch", probability: 0.15)]),
            FaultPlan(seed: 2, faults: [Fault(.reorder, channel: "touch", probability: 0.2)]),
        ] {
            let faulted = try await faultedEvents(board, trace, plan)
            #expect(faulted.named("word.added").count < clean.named("word.added").count, "\(plan.faults[0].kind): nothing was lost")
            // Every word added is on the page shown at that moment.
            var page = "Favourites"
            for event in faulted {
                if event.name == "page.shown", case .string(let name)? = event.attributes["page"] { page = name }
                guard event.name == "word.added", case .string(let word)? = event.attributes["word"] else { continue }
                let words = page == "Favourites" ? config.favourites : config.categories.first { $0.name == page }?.words ?? []
                #expect(words.contains(word), "\(plan.faults[0].kind): '\(word)' added while \(page) was shown")
            }
        }
    }
}

/// The apps under injected faults, through `hal run --faults` over the shipped scenarios.
@Suite(.serialized) struct FaultedRunTests {
    func run(_ app: String, _ scenario: String, plan: String, check: Bool = false) async throws -> [String] {
        let folder = try makeScratchFolder()
        try plan.write(toFile: folder + "/plan.json", atomically: true, encoding: .utf8)
        let arguments = ["run", app, packageRoot + "/" + scenario, "--faults", folder + "/plan.json"] + (check ? ["--check"] : [])
        let run = try await runProcess(halExecutable, arguments, timeout: 60)
        #expect(run.status == 0, "\(run.output)")
        return run.output.split(separator: "\n").map(String.init)
    }

    /// The log lines strictly between two times, in seconds after the start.
    func lines(_ lines: [String], after start: Double, before end: Double) -> [String] {
        lines.filter { line in Double(line.split(separator: " ").first ?? "").map { $0 > start && $0 < end } ?? false }
    }

    @Test func theExplorerShowsALostFixAtOnceAndTheSameFaultsGiveTheSameLog() async throws {
        let plan = #"{"seed": 9, "faults": [{"kind": "lostFix", "channel": "gps", "from": 200, "to": 215}, {"kind": "duplicate", "channel": "gps", "probability": 0.2}, {"kind": "reorder", "channel": "gps", "probability": 0.1}]}"#
        let first = try await run("explorer", "traces/ubc/explorer.run.json", plan: plan, check: true)
        #expect(first.contains("  200.000 gps.lost reason=\"no fix\""))
        #expect(first.contains("  215.000 gps.acquired accuracy=3.0"))
        // Nothing from before the loss is shown during it.
        #expect(lines(first, after: 200, before: 215).isEmpty)
        // Duplicated and reordered fixes do not make arrivals flicker.
        #expect(first.filter { !$0.hasPrefix("check:") && $0.contains("place.arrived") && $0.contains("clock-tower") }.count == 1)
        #expect(try await run("explorer", "traces/ubc/explorer.run.json", plan: plan, check: true) == first)
    }

    @Test func aReceiverThatGoesShowsGPSLostAfterItsTimeoutAndAFrozenPositionLooksLikeStandingStill() async throws {
        let gone = try await run("explorer", "traces/ubc/explorer.run.json", plan: #"{"seed": 1, "faults": [{"kind": "disconnect", "channel": "gps", "from": 100, "to": 130}]}"#)
        #expect(gone.contains { $0.hasPrefix("  104.") && $0.contains("gps.lost") }, "\(gone)")
        // While it is gone, only the user's own commands show (a sign-in at 110 s): no place, guidance or message.
        #expect(lines(gone, after: 105, before: 130).allSatisfy { $0.contains("user.") || $0.contains("command.") })
        #expect(gone.contains { $0.hasPrefix("  130.000 gps.acquired") })
        let frozen = try await run("explorer", "traces/ubc/explorer.run.json", plan: #"{"seed": 1, "faults": [{"kind": "stuck", "channel": "gps", "from": 100, "to": 160}]}"#)
        // A frozen position: no loss, and nothing new about places while it holds, as when standing still.
        #expect(lines(frozen, after: 100.5, before: 160).allSatisfy { $0.contains("user.") || $0.contains("command.") })
    }

    @Test func aJumpFarOffCampusLeavesThePlaceForItsDurationOnly() async throws {
        let clean = try await run("explorer", "traces/ubc/explorer.run.json", plan: #"{"seed": 1, "faults": []}"#)
        let jumped = try await run("explorer", "traces/ubc/explorer.run.json", plan: #"{"seed": 1, "faults": [{"kind": "jump", "channel": "gps", "from": 240, "to": 243, "magnitude": 400, "bearing": 90}]}"#)
        // Standing at the clock tower at 240 s; a 400 m jump east for 3 s leaves it, and the next true fix arrives again.
        let during = lines(jumped, after: 239.9, before: 246)
        #expect(during.contains { $0.contains("place.left") && $0.contains("clock-tower") }, "\(during)")
        #expect(during.contains { $0.contains("place.arrived") && $0.contains("clock-tower") }, "\(during)")
        #expect(lines(jumped, after: 250, before: 10_000) == lines(clean, after: 250, before: 10_000))
    }

    @Test func theFieldGuideNeverCapturesADamagedFrameAndCountsDroppedOnes() async throws {
        let corrupt = try await run("fieldguide", "traces/fieldguide/walk.run.json", plan: #"{"seed": 4, "faults": [{"kind": "corruptFrame", "channel": "cam", "probability": 1}]}"#)
        #expect(corrupt.filter { $0.contains("camera.frameDamaged") }.count == 20)
        #expect(!corrupt.contains { $0.contains("capture.saved") })
        #expect(corrupt.filter { $0.contains("capture.refused") }.allSatisfy { $0.contains("no camera frame") })
        let dropped = try await run("fieldguide", "traces/fieldguide/walk.run.json", plan: #"{"seed": 4, "faults": [{"kind": "drop", "channel": "cam", "probability": 0.3}]}"#)
        let counts = dropped.filter { $0.contains("camera.framesDropped") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("count=") }.flatMap { Int($0.dropFirst(6)) }
        }
        #expect(counts.reduce(0, +) >= 1)
        let lost = try await run("fieldguide", "traces/fieldguide/walk.run.json", plan: #"{"seed": 4, "faults": [{"kind": "lostFix", "channel": "gps"}]}"#)
        #expect(!lost.contains { $0.contains("capture.saved") })
        #expect(!lost.contains { $0.contains("gps.acquired") })
    }

    @Test func aSpeakerGoneMidClipIsReportedOnceAndWhatFollowsIsSkippedNotHeard() async throws {
        // The viewer's welcome clip starts at about 4.500 s; the speaker goes at 5 s, before the tap that pauses it.
        let viewer = try await run("viewer", "traces/viewer/school.run.json", plan: #"{"seed": 1, "faults": [{"kind": "disconnect", "channel": "speaker", "from": 5}]}"#)
        #expect(viewer.filter { $0.contains("speaker.failed") } == [#"    5.000 speaker.failed error="the speaker disconnected (fault plan)""#])
        #expect(viewer.contains("    5.000 sound.interrupted hotspot=welcome"))
        // With the clip gone, the next tap on it plays it again, and the runner says it was not heard.
        let replayed = try #require(viewer.firstIndex { $0.contains("sound.played") && $0.contains("welcome") && ($0.split(separator: " ").first.flatMap { Double($0) } ?? 0) > 5 })
        #expect(viewer[replayed + 1].contains("speaker.skipped clip=clips/hall-welcome.wav"), "\(viewer[replayed...].prefix(3))")
        #expect(!viewer.contains { $0.contains("sound.paused") })
        // The trainer's narration goes on in its log, each one marked as not heard.
        let trainer = try await run("trainer", "traces/trainer/facial-fun.run.json", plan: #"{"seed": 1, "faults": [{"kind": "disconnect", "channel": "speaker", "from": 10}]}"#)
        let spoken = trainer.filter { $0.contains("narration.spoken") && ($0.split(separator: " ").first.flatMap { Double($0) } ?? 0) > 10 }
        let skipped = trainer.filter { $0.contains("speaker.skipped text=") && !$0.contains("text=Correct!") }
        #expect(spoken.count == skipped.count && !spoken.isEmpty)
    }

    @Test func aBadPlanNamesTheFault() async throws {
        let folder = try makeScratchFolder()
        for (plan, message) in [
            (#"{"seed": 1, "faults": [{"kind": "spike", "channel": "gyro"}]}"#, "plan.json: line 1, column 24: faults[0]: spike needs a probability"),
            (#"{"seed": 1, "faults": [{"kind": "drop", "channel": "speaker", "probability": 0.5}]}"#, "plan.json: line 1, column 24: faults[0]: the speaker takes disconnect, latency and jitter, not drop"),
            // Times out of range were a crash (an Int64 conversion) before they were refused.
            (#"{"seed": 1, "faults": [{"kind": "disconnect", "channel": "speaker", "from": 1e300}]}"#, "line 1, column 77: faults[0].from: 1e300 s is not a whole number of nanoseconds"),
        ] {
            try plan.write(toFile: folder + "/plan.json", atomically: true, encoding: .utf8)
            let run = try await runProcess(halExecutable, ["run", "viewer", "--faults", folder + "/plan.json"], timeout: 60)
            #expect(run.status != 0)
            #expect(run.output.contains(message), "\(run.output)")
        }
    }
}
