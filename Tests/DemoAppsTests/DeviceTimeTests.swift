import AppCore
import HAL
import Replay
import Session
import Testing
import TraceFormat

/// An app sees when each reading happened and when it reached it (`InputDelivery`), so a latency fault exercises its
/// staleness logic; an app that does not ask sees what it always saw.
@Suite struct DeviceTimeTests {
    /// Ignores a reading that is more than `limit` late, and logs each one's two instants.
    struct Staleness: AppLogic {
        static let name = "staleness"
        static let vocabulary: AppVocabulary? = AppVocabulary(
            events: ["fresh", "stale"], commands: [], attributes: ["fresh": ["happened", "late"], "stale": ["happened", "late"]])
        let limit: Int64 = 2_000_000_000

        mutating func start(at time: Timestamp, output: inout AppOutput) {}

        mutating func handle(_ input: AppInput, output: inout AppOutput) {
            handle(input, delivery: InputDelivery(input), output: &output)
        }

        mutating func handle(_ input: AppInput, delivery: InputDelivery, output: inout AppOutput) {
            guard case .reading = input else { return }
            let name = delivery.delayNanoseconds > limit ? "stale" : "fresh"
            output.emit(name, at: input.timestamp, ["happened": .int(delivery.deviceTime.nanoseconds),
                                                    "late": .int(delivery.delayNanoseconds)])
        }
    }

    /// Three fixes a second apart on one channel, and a tap on another.
    static let trace = ExpectationRulesTests.trace([
        ExpectationRulesTests.sample(0), ExpectationRulesTests.sample(1_000_000_000), ExpectationRulesTests.tap(1_500_000_000),
        ExpectationRulesTests.sample(2_000_000_000)])

    static func events(_ plan: FaultPlan?) async throws -> [AppEvent] {
        try await AppSession(Staleness(), inputs: trace, faults: plan).run().events
    }

    /// A latency on the accelerometer just over the app's limit makes its readings stale, each with its own time;
    /// just under it, they stay fresh. The tap, on a channel without the fault, is on time.
    @Test func aLatencyFaultReachesTheAppsStalenessLogic() async throws {
        for (latency, verdict) in [(2.000000001, "stale"), (2.0, "fresh"), (1.999999999, "fresh")] {
            let plan = FaultPlan(seed: 1, faults: [Fault(.latency, channel: "accel", magnitude: latency)])
            let events = try await Self.events(plan)
            let accel = events.filter { $0.attributes["happened"] != .int(1_500_000_000) }
            #expect(accel.count == 3 && accel.allSatisfy { $0.name == verdict }, "\(latency): \(events)")
            #expect(accel.map(\.attributes["happened"]) == [0, 1_000_000_000, 2_000_000_000].map { .int($0) }, "\(events)")
            // The app's "now" is the delivery: its events are stamped there, the delay after the device time.
            for event in accel {
                guard case .int(let happened) = event.attributes["happened"], case .int(let late) = event.attributes["late"] else {
                    Issue.record("\(event)")
                    continue
                }
                #expect(event.timestamp.nanoseconds == happened + late && late >= 1_999_999_999, "\(event)")
            }
            #expect(events.contains { $0.name == "fresh" && $0.attributes["happened"] == .int(1_500_000_000) && $0.attributes["late"] == .int(0) })
        }
    }

    /// With no fault moving time, both instants are the reading's own, and the events are as before.
    @Test func withoutAFaultBothInstantsAreTheReadingsOwn() async throws {
        let events = try await Self.events(nil)
        #expect(events.map(\.name) == ["fresh", "fresh", "fresh", "fresh"])
        #expect(events.allSatisfy { $0.attributes["late"] == .int(0) })
        #expect(events.map(\.timestamp.nanoseconds) == [0, 1_000_000_000, 1_500_000_000, 2_000_000_000])
    }

    /// A reordered reading older than what the app has seen is delivered at the app's "now", and the app is told how
    /// old it is.
    @Test func aReadingOlderThanNowIsDeliveredAtNowWithItsOwnTime() async {
        var runner = AppRunner(logic: Staleness())
        _ = await runner.start(at: .zero)
        _ = await runner.feed(.reading(ExpectationRulesTests.sample(5_000_000_000).reading))
        let late = await runner.feed(.reading(ExpectationRulesTests.sample(2_500_000_000).reading))
        #expect(late.map(\.name) == ["stale"])
        #expect(late.first?.timestamp == Timestamp(nanoseconds: 5_000_000_000))
        #expect(late.first?.attributes["late"] == .int(2_500_000_000))
    }
}
