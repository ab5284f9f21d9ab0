import AppCore
import Foundation
import Greenhouse
import HAL
import Replay
import Session
import Testing
import TraceFormat

/// The example's own tests: its app against its recorded day through the session library, in-process.
@Suite struct GreenhouseTests {
    init() { KindRegistry.register(SoilMoistureSample.kind) }

    /// The example package's folder.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test func theRecordedDayMeetsItsScenario() async throws {
        let scenario = try Scenario(path: Self.root + "/traces/day.run.json")
        let result = try await scenario.run(catalog: AppCatalog([GreenhouseMonitor.self]))
        #expect(result.passed, "\(result.expectations.filter { !$0.passed }.map(\.line))")
        let golden = try String(contentsOfFile: Self.root + "/traces/day.events.log", encoding: .utf8)
        #expect(result.logLines.map { $0 + "\n" }.joined() == golden)
    }

    @Test func aProbeThatDropsOutIsReportedAndComesBack() async throws {
        let day = try Trace.load(path: Self.root + "/traces/day.jsonl")
        let monitor = try GreenhouseMonitor(settings: .init(dryBelow: 25, wetAbove: 30, dryFor: 1800, frostBelow: 1, probeSilence: 900))
        // Bed 1's probe is unplugged for an hour in the second hour.
        let plan = FaultPlan(seed: 1, faults: [Fault(.disconnect, channel: "bed1", from: 3600, to: 7200)])
        let result = try await AppSession(monitor, inputs: day, faults: plan).run()
        let lost = try #require(result.events.first { $0.name == "probe.lost" && $0.attributes["probe"] == .int(1) })
        #expect(lost.timestamp == Timestamp(nanoseconds: (3300 + 900) * 1_000_000_000))
        #expect(result.events.contains { $0.name == "probe.back" && $0.timestamp == Timestamp(nanoseconds: 7200 * 1_000_000_000) })
    }

    @Test func soilMoistureGoesThroughATraceAndBackAndFaultsKnowIt() throws {
        let day = try Trace.load(path: Self.root + "/traces/day.jsonl")
        // The file is in the canonical form: reading and writing it gives the same bytes.
        let bytes = try day.encoded()
        #expect(bytes == Array(try Data(contentsOf: URL(fileURLWithPath: Self.root + "/traces/day.jsonl"))))
        let bed1 = try ReplayedChannel<SoilMoistureSample>(trace: day, channel: "bed1").allReadings()
        #expect(bed1.first == SoilMoistureSample(timestamp: .zero, probe: 1, moisture: 30))
        let biased = try ReplayedChannel<SoilMoistureSample>(
            trace: day, channel: "bed1", options: ReplayOptions(faults: FaultPlan(seed: 1, faults: [Fault(.bias, magnitude: 5)]))
        ).allReadings()
        #expect(biased.first?.moisture == 35)
        #expect(DeviceKind.soilMoisture.kindDescription.text(bed1[0].reading) == "probe 1: 30.0 %VWC")
    }
}
