import HALCommandLine
import AppCore
import DemoApps
import HAL
import Session
import Testing
import TestSupport
import TraceFormat

/// A heart-rate sensor, registered the way a user's package registers its own kind.
struct HeartRate: KindValue {
    var timestamp: Timestamp
    var bpm: Double
    var kind: DeviceKind { .heartRate }
}

extension DeviceKind {
    static let heartRate = DeviceKind("test-heart-rate")
}

let heartRateKind = KindDescription(
    .heartRate, value: HeartRate.self, summary: "heart rate", units: "bpm",
    fields: ValueFields(
        encode: { [("bpm", .number($0.bpm))] },
        decode: { (fields: inout RecordValues, time: Timestamp) throws(FieldError) -> HeartRate in
            HeartRate(timestamp: time, bpm: try fields.number("bpm"))
        }),
    text: { "\($0.bpm) bpm" })

/// Every kind visible to expectations, and a scenario's names checked before the run.
@Suite struct ScenarioNamesTests {
    init() { KindRegistry.register(heartRateKind) }

    /// Emits `ball.moved`, then `goal.reached`, at each touch release; `game.restarted` a second later.
    struct Game: AppLogic {
        static let name = "game"
        static let vocabulary: AppVocabulary? = AppVocabulary(
            events: ["ball.moved", "goal.reached", "game.restarted"], commands: ["pause"])
        var restartAt: Timestamp?

        mutating func start(at time: Timestamp, output: inout AppOutput) {}

        mutating func handle(_ input: AppInput, output: inout AppOutput) {
            guard case .reading(.pointer(let event), _) = input, event.phase == .release else { return }
            output.emit("ball.moved", at: input.timestamp)
            output.emit("goal.reached", at: input.timestamp)
            restartAt = input.timestamp + .seconds(1)
        }

        var nextDeadline: Timestamp? { restartAt }

        mutating func advance(to time: Timestamp, output: inout AppOutput) {
            guard let restart = restartAt, restart <= time else { return }
            output.emit("ball.moved", at: restart)
            output.emit("game.restarted", at: restart)
            restartAt = nil
        }
    }

    static let trace = Trace(
        header: TraceHeader(channels: [
            TraceChannel(id: "touch", kind: .pointer, source: "test:touch"),
            TraceChannel(id: "hr", kind: .heartRate, source: "test:hr", units: "bpm", rate: 1),
        ]),
        records: [
            TraceRecord(channel: 1, reading: HeartRate(timestamp: at(0), bpm: 150).reading),
            TraceRecord(channel: 0, reading: .pointer(PointerEvent(timestamp: at(0.5), phase: .release, x: 0.5, y: 0.5))),
            TraceRecord(channel: 1, reading: HeartRate(timestamp: at(1), bpm: 160).reading),
            TraceRecord(channel: 1, reading: HeartRate(timestamp: at(2), bpm: 170.5).reading),
        ])

    func check(_ expectations: [EventExpectation], commands: [ScriptedCommand] = []) async throws -> [EventExpectationResult] {
        try await AppSession(Game(), inputs: Self.trace, commands: commands, expectations: expectations).run().expectations
    }

    @Test func aRegisteredKindsFieldsAreAttributesThatMatchAsNumbers() async throws {
        let results = try await check([
            EventExpectation(event: "input:hr", with: ["bpm": "160"]),
            EventExpectation(event: "input:hr", with: ["bpm": "160.0"], between: [1, 1]),
            EventExpectation(event: "input:hr", with: ["bpm": "170.5"], count: 1),
            EventExpectation(event: "input:hr", with: ["bpm": "155"]),
        ])
        #expect(results.map(\.passed) == [true, true, true, false], "\(results.map(\.line))")
        #expect(results[3].line == "FAIL input:hr{bpm=155}: never happened")
    }

    @Test func aSpanRunsInTheOrderTheAppEmittedEvenAtOneTimestamp() async throws {
        let span = EventExpectation.Span(from: EventMatcher(event: "goal.reached"), to: EventMatcher(event: "game.restarted"))
        let results = try await check([
            EventExpectation(no: "ball.moved", during: span),
            EventExpectation(event: "ball.moved", during: span, count: 1),
        ])
        // The first ball.moved comes before goal.reached at 0.500 s, outside; the one at the restart is inside.
        #expect(results[0].line == "FAIL no ball.moved during goal.reached … game.restarted: found 1, at 1.500 s", "\(results[0].line)")
        #expect(results[1].passed, "\(results[1].line)")
    }

    @Test func namesARunCanNeverProduceAreRefusedWithWhatTheyCouldHaveMeant() async throws {
        let cases: [(EventExpectation, String)] = [
            (EventExpectation(event: "input:tuoch"), "expect[0].event: the run has no input channel 'tuoch'; did you mean 'touch'?"),
            (.response(each: EventMatcher(event: "input:touch", with: ["phse": "release"]), then: EventMatcher(event: "game.restarted"), within: 1),
             "expect[0].each.with.phse: input:touch events never carry 'phse'; did you mean 'phase'?"),
            (EventExpectation(event: "input:hr", with: ["bmp": "160"]), "expect[0].with.bmp: input:hr events never carry 'bmp'; did you mean 'bpm'?"),
            (EventExpectation(no: "goal.reachd"), "expect[0].no: the app never emits 'goal.reachd'; did you mean 'goal.reached'?"),
            (.cause(never: EventMatcher(event: "game.restarted"), without: EventMatcher(event: "command:pasue")),
             "expect[0].without.event: the app takes no command 'pasue'; did you mean 'pause'?"),
            (EventExpectation(event: "game.*"), ""),
            (EventExpectation(event: "speaker.started"), ""),
            (EventExpectation(event: "input:touch", with: ["phase": "release"]), ""),
        ]
        for (expectation, refusal) in cases {
            do {
                _ = try await check([expectation])
                #expect(refusal.isEmpty, "\(expectation.summary) was not refused")
            } catch let error as AppConfigError {
                #expect(error.description == refusal)
            }
        }
        await #expect(throws: AppConfigError.self) { try await check([], commands: [ScriptedCommand(at: 1, action: "puase")]) }
    }

    @Test func aScenarioFilesTypoIsRefusedBeforeTheRunWithItsLineAndColumn() async throws {
        let folder = try makeScratchFolder()
        let (path, typo) = try editedCampusScenario(
            in: folder, as: "typo.run.json",
            replacing: "\"without\": {\"event\": \"input:heading\"}", with: "\"without\": {\"event\": \"input:haeding\"}")
        let scenario = try Scenario(path: path)
        do {
            _ = try await scenario.run(catalog: AppCatalog(ShippedApps.all), outputs: .devices)
            Issue.record("the typo was not refused")
        } catch let error as ScriptError {
            let line = typo.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("input:haeding") }! + 1
            #expect(error.description.hasPrefix("\(folder)/typo.run.json: line \(line), column "), "\(error)")
            #expect(error.description.hasSuffix(
                "expect[15].without.event: the run has no input channel 'haeding'; did you mean 'heading'?"), "\(error)")
        }
    }
}
