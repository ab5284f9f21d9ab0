import HALCommandLine
import AppCore
import DemoApps
import HAL
import Replay
import Session
import Testing
import TestSupport

/// "Every X followed by Y within S" and "never Y without X before it", on events and on inputs.
@Suite struct ResponseTimeTests {
    static func event(_ seconds: Double, _ name: String, _ attributes: [String: AppEventValue] = [:]) -> AppEvent {
        AppEvent(timestamp: at(seconds), name: name, attributes: attributes)
    }

    @Test func everyCauseFollowedByAnEffectWithinTheLimitReportsTheWorstCase() {
        let events = [Self.event(1, "answer.correct"), Self.event(1.4, "feedback"), Self.event(5, "answer.wrong"), Self.event(6.5, "feedback")]
        let expectation = EventExpectation.response(each: EventMatcher(event: "answer.*"), then: EventMatcher(event: "feedback"), within: 2)
        let passed = expectation.check(events, start: .zero)
        #expect(passed.line == "PASS every answer.* followed by feedback within 2.000 s: worst 1500 ms after the one at 5.000 s, of 2")
        var strict = expectation
        strict.within = 1
        #expect(strict.check(events, start: .zero).line == "FAIL every answer.* followed by feedback within 1.000 s: 1 of 2 too late; worst 1500 ms after the one at 5.000 s, of 2")
        let unanswered = expectation.check(events + [Self.event(9, "answer.correct")], start: .zero)
        #expect(unanswered.line == "FAIL every answer.* followed by feedback within 2.000 s: answer.* at 9.000 s was never followed by feedback")
    }

    @Test func noEffectWithoutACauseEachCausePairedOnce() {
        let tap = EventMatcher(event: "input:touch", with: ["phase": "release"])
        let expectation = EventExpectation.cause(never: EventMatcher(event: "sound.played"), without: tap, within: 0.5)
        let release = { (seconds: Double) in Self.event(seconds, "input:touch", ["phase": .string("release")]) }
        // Same-time cause and effect: the cause counts as before.
        #expect(expectation.check([release(1), Self.event(1, "sound.played"), release(3), Self.event(3.3, "sound.played")], start: .zero).line
            == "PASS no sound.played without input:touch{phase=release} before it within 0.500 s: worst 300 ms, at 3.300 s, of 2")
        // One tap does not answer two sounds.
        #expect(expectation.check([release(1), Self.event(1.1, "sound.played"), Self.event(1.2, "sound.played")], start: .zero).line
            == "FAIL no sound.played without input:touch{phase=release} before it within 0.500 s: sound.played at 1.200 s had no input:touch{phase=release} before it")
        #expect(expectation.check([release(1), Self.event(1.7, "sound.played")], start: .zero).line
            == "FAIL no sound.played without input:touch{phase=release} before it within 0.500 s: sound.played at 1.700 s came 700 ms after its input:touch{phase=release}")
        // A press is not a release.
        #expect(!expectation.check([Self.event(1, "input:touch", ["phase": .string("press")]), Self.event(1, "sound.played")], start: .zero).passed)
    }

    @Test func responseExpectationsAreCheckedForTheirFields() {
        var missingWithin = EventExpectation()
        missingWithin.each = EventMatcher(event: "a")
        missingWithin.then = EventMatcher(event: "b")
        #expect(throws: AppConfigError.self) { try missingWithin.validate(field: "expect[0]") }
        var mixed = EventExpectation.cause(never: EventMatcher(event: "a"), without: EventMatcher(event: "b"))
        mixed.event = "c"
        #expect(throws: AppConfigError.self) { try mixed.validate(field: "expect[0]") }
        var negative = EventExpectation.response(each: EventMatcher(event: "a"), then: EventMatcher(event: "b"), within: -1)
        #expect(throws: AppConfigError.self) { try negative.validate(field: "expect[0]") }
        negative.within = 0
        #expect(throws: Never.self) { try negative.validate(field: "expect[0]") }
    }

    @Test func aLateTouchscreenMakesTheViewerMissItsHalfSecond() async throws {
        let scenario = try Scenario(path: packageRoot + "/traces/viewer/school.run.json")
        let catalog = AppCatalog(ShippedApps.all)
        #expect(try await scenario.run(catalog: catalog, outputs: .devices).passed)
        // Every touch reaches the app 0.8 s late, and the sounds it starts are stamped with that delivery: 800 ms after
        // the taps. (Before delivery times, a late touch was handled at the time of the motion sample before it, and
        // the check measured 790 ms.)
        let late = FaultPlan(seed: 1, faults: [Fault(.latency, channel: "touch", magnitude: 0.8)])
        let result = try await scenario.run(catalog: catalog, outputs: .devices, faults: late)
        let failed = result.expectations.filter { !$0.passed }.map(\.line)
        #expect(failed.contains("FAIL no sound.played without input:touch{phase=release} before it within 0.500 s: sound.played at 5.380 s came 800 ms after its input:touch{phase=release}"), "\(failed)")
    }
}
