import Foundation
import HAL
import InputEvents
import Sensors
import TestSupport
import Testing

/// The evdev backend through the real libevdev, against devices umockdev emulates from evemu
/// recordings in Fixtures/: each test re-runs itself under umockdev-run (TestSupport.Umockdev).
@Suite(.serialized)
struct EvdevDeviceTests {
    static let suite = "EvdevDeviceTests"

    static func fixture(_ name: String) -> String { "\(packageRoot)/Tests/SensorsTests/Fixtures/\(name)" }

    static func recording(_ name: String) throws -> EvemuRecording {
        try EvemuRecording(text: String(contentsOfFile: fixture(name), encoding: .utf8), file: name)
    }

    /// A testbed with one evemu-described device at /dev/input/event7 replaying its events.
    static func testbed(_ evemu: String, scratch: String, keysDown: Set<UInt16> = [], events: String? = nil) throws -> Umockdev.Testbed {
        let recording = try recording(evemu)
        let files = try UmockdevInputFixture.write(recording.device, eventNumber: 7, name: "device", into: scratch, keysDown: keysDown)
        var testbed = Umockdev.Testbed()
        testbed.devices = [files.umockdev]
        testbed.ioctls = [("/dev/input/event7", files.ioctl)]
        // Only the E: lines: umockdev warns about every header line of a full recording.
        let eventsFile = scratch + "/device.events"
        let text = try String(contentsOfFile: events ?? fixture(evemu), encoding: .utf8)
        try text.split(separator: "\n").filter { $0.hasPrefix("E:") }.map { $0 + "\n" }.joined()
            .write(toFile: eventsFile, atomically: true, encoding: .utf8)
        testbed.evemuEvents = [("/dev/input/event7", eventsFile)]
        return testbed
    }

    /// Reads a device until `count` readings came or `seconds` passed.
    static func collect<Source: ReadingSource>(_ source: Source, count: Int, seconds: Double = 10) async throws -> [Source.Element] {
        try await withThrowingTaskGroup(of: [Source.Element].self) { group in
            group.addTask {
                var taken: [Source.Element] = []
                for try await reading in source.readings(buffering: .unbounded) {
                    taken.append(reading)
                    if taken.count == count { break }
                }
                return taken
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return []
            }
            let first = try await group.next() ?? []
            group.cancelAll()
            return first
        }
    }

    /// The readings the evemu importer's decoder gives for the same recording.
    static func decoded(_ evemu: String, role: InputRole) throws -> [Reading] {
        let recording = try recording(evemu)
        var decoder = try InputDecoder(device: recording.device, role: role)
        var readings: [Reading] = []
        for event in recording.events { decoder.decode(event, into: &readings) }
        return readings
    }

    @Test func aTouchscreenGivesTapsAndDragsWithKernelTimestamps() async throws {
        let scratch = Umockdev.isInTestbed ? Umockdev.scratchFolder : try makeScratchFolder()
        try await Umockdev.run(Self.testbed(Self.recordingName, scratch: scratch), scratch: scratch, suite: Self.suite) {
            let device = try makeFactory().open("evdev:/dev/input/event7", as: (any PointerInput).self)
            #expect(device.info.kind == .pointer)
            #expect(device.info.name == "Goodix Capacitive TouchScreen")
            let expected = try Self.decoded(Self.recordingName, role: .pointer).compactMap { reading -> PointerEvent? in
                if case .pointer(let event) = reading { event } else { nil }
            }
            #expect(expected.count == 11)
            let events = try await Self.collect(device, count: expected.count)
            #expect(events == expected)
            // The tap: press and release at the centre, 80 ms apart.
            #expect(events.first == PointerEvent(timestamp: Timestamp(nanoseconds: 1_100_000_000), phase: .press, x: 640.0 / 1279, y: 400.0 / 799))
            #expect(events[1].phase == .release && events[1].timestamp == Timestamp(nanoseconds: 1_180_000_000))
        }
    }
    static let recordingName = "goodix-touchscreen.evemu"
}

func makeFactory() -> DeviceFactory {
    DeviceFactory(backends: [EvdevBackend(), IIOBackend()])
}
