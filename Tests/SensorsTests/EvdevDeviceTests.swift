import Foundation
import HAL
import InputEvents
import IIO
import Evdev
import TestSupport
import ProgramDevices
import Testing
import Interchange
import TraceFormat

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
    /// `events` replaces the recording's own `E:` lines.
    static func testbed(_ evemu: String, scratch: String, keysDown: Set<UInt16> = [], events: String? = nil) throws -> Umockdev.Testbed {
        let recording = try recording(evemu)
        let device = UmockdevInputDevice(recording.device, eventNumber: 7, keysDown: keysDown)
        let files = (umockdev: scratch + "/device.umockdev", ioctl: scratch + "/device.ioctl", answers: scratch + "/device.answers")
        try device.sysfsTree.write(toFile: files.umockdev, atomically: true, encoding: .utf8)
        try device.ioctls.write(toFile: files.ioctl, atomically: true, encoding: .utf8)
        try device.answers.write(toFile: files.answers, atomically: true, encoding: .utf8)
        var testbed = Umockdev.Testbed()
        testbed.devices = [files.umockdev]
        testbed.ioctls = [("/dev/input/event7", files.ioctl)]
        testbed.answers = [("/dev/input/event7", files.answers)]
        // Only the E: lines: umockdev warns about every header line of a full recording.
        let eventsFile = scratch + "/device.events"
        let text = try events ?? String(contentsOfFile: fixture(evemu), encoding: .utf8)
        try text.split(separator: "\n").filter { $0.hasPrefix("E:") }.map { $0 + "\n" }.joined()
            .write(toFile: eventsFile, atomically: true, encoding: .utf8)
        testbed.evemuEvents = [("/dev/input/event7", eventsFile)]
        return testbed
    }

    /// The readings the evemu importer puts in a trace for the same recording, for one role.
    static func imported(_ evemu: String, role: InputRole) throws -> [Reading] {
        let trace = try recording(evemu).trace(source: "file:\(evemu)", roles: [role])
        return trace.records.map(\.reading)
    }

    @Test func aTouchscreenReplayedThroughUmockdevMatchesItsImportedTrace() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.testbed("goodix-touchscreen.evemu", scratch: scratch), scratch: scratch, suite: Self.suite) {
            let device = try makeFactory().open("evdev:/dev/input/event7", as: (any PointerInput).self)
            #expect(device.info.kind == .pointer)
            #expect(device.info.name == "Goodix Capacitive TouchScreen")
            #expect(device.info.capabilities == ["pointer"])
            let expected = try Self.imported("goodix-touchscreen.evemu", role: .pointer)
            let events = try await collect(device.readings(buffering: .unbounded), count: expected.count)
            #expect(events.map(Reading.pointer) == expected)
            // A tap at the centre, 80 ms, with the kernel's timestamps.
            #expect(events.first == PointerEvent(timestamp: Timestamp(nanoseconds: 1_100_000_000), phase: .press, x: 640.0 / 1279, y: 400.0 / 799))
            #expect(events[1] == PointerEvent(timestamp: Timestamp(nanoseconds: 1_180_000_000), phase: .release, x: 640.0 / 1279, y: 400.0 / 799))
            // A drag to the right with a second finger (slot 1) joining and both lifting together.
            #expect(events.filter { $0.pointer == 0 }.map(\.phase) == [.press, .release, .press, .move, .move, .move, .move, .move, .release])
            #expect(events.filter { $0.pointer == 1 }.map(\.phase) == [.press, .release])
            #expect(events.last { $0.pointer == 0 }?.x == 1000.0 / 1279)
        }
    }

    /// A finger goes down on the touchscreen at (300, 200) at 1.1 s.
    static let fingerDown = """
        E: 1.100000 0003 002f 0
        E: 1.100000 0003 0039 20
        E: 1.100000 0003 0035 300
        E: 1.100000 0003 0036 200
        E: 1.100000 0001 014a 1
        E: 1.100000 0003 0000 300
        E: 1.100000 0003 0001 200
        E: 1.100000 0000 0000 0

        """

    @Test func synDroppedResynchronisesAFingerLiftedDuringTheOverrun() async throws {
        let scratch = try Umockdev.testScratchFolder()
        let events = Self.fingerDown + """
            E: 1.200000 0003 0035 310
            E: 1.200000 0000 0003 0

            """
        // The device state libevdev reads back after the drop: no finger down.
        try await Umockdev.run(
            Self.testbed("goodix-touchscreen.evemu", scratch: scratch, events: events), scratch: scratch, suite: Self.suite
        ) {
            let device = try makeFactory().open("evdev:/dev/input/event7", as: (any PointerInput).self)
            let readings = try await collect(device.readings(buffering: .unbounded), count: 2)
            #expect(readings.map(\.phase) == [.press, .release])
            // The partial frame (x moved to 310) was dropped; the release is where the finger was last known.
            #expect(readings.last?.x == 300.0 / 1279)
            #expect(readings.last!.timestamp >= readings.first!.timestamp)
        }
        // The importer has no device to ask, so it drops the frame and everything to the next SYN_REPORT.
        let header = try String(contentsOfFile: Self.fixture("goodix-touchscreen.evemu"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("E:") }.joined(separator: "\n")
        let recording = try EvemuRecording(text: header + "\n" + events, file: "dropped.evemu")
        #expect(try recording.trace(source: "file:dropped.evemu").records.map(\.reading.timestamp) == [Timestamp(nanoseconds: 1_100_000_000)])
    }

    @Test func aRemovedDeviceCancelsItsContactAndEndsTheStream() async throws {
        let scratch = try Umockdev.testScratchFolder()
        // A finger goes down and moves, then the device goes quiet.
        let events = Self.fingerDown + """
            E: 1.200000 0003 0035 310
            E: 1.200000 0000 0000 0

            """
        try await Umockdev.run(
            Self.testbed("goodix-touchscreen.evemu", scratch: scratch, events: events), scratch: scratch, suite: Self.suite
        ) {
            let device = try makeFactory().open("evdev:/dev/input/event7", as: (any PointerInput).self)
            var phases: [PointerPhase] = []
            var ending: DeviceError?
            do {
                for try await event in device.readings(buffering: .unbounded) {
                    phases.append(event.phase)
                    // Unplugged with the finger down: the node disappears from /dev.
                    if phases.count == 2, let root = Umockdev.testbedRoot {
                        try FileManager.default.removeItem(atPath: root + "/dev/input/event7")
                    }
                }
            } catch let error as DeviceError {
                ending = error
            }
            #expect(phases == [.press, .move, .cancel])
            #expect(ending?.code == .disconnected)
            #expect(ending?.message == "the device went away (/dev/input/event7 is gone)")
        }
    }

    @Test func anInputAccelerometerGivesMotionSamplesInSIUnits() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.testbed("ds4-motion-sensors.evemu", scratch: scratch), scratch: scratch, suite: Self.suite) {
            let factory = makeFactory()
            let accelerometer = try factory.open("evdev:/dev/input/event7", as: (any MotionSensor).self)
            #expect(accelerometer.info.kind == .accelerometer)
            #expect(accelerometer.info.capabilities == ["accel", "gyro"])
            let samples = try await collect(accelerometer.readings(buffering: .unbounded), count: 6)
            #expect(samples.map(Reading.motion) == (try Self.imported("ds4-motion-sensors.evemu", role: .accelerometer)))
            // 8192 units per g.
            #expect(samples[0].value == Vector3(x: 120 * 9.80665 / 8192, y: 9.80665, z: -300 * 9.80665 / 8192))
            #expect(samples[0].timestamp == Timestamp(nanoseconds: 3_100_001_000))
            #expect(samples[1].timestamp == Timestamp(nanoseconds: 3_104_001_000))
        }
    }

    @Test func anInputGyroscopeIsScaledByItsResolution() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.testbed("ds4-motion-sensors.evemu", scratch: scratch), scratch: scratch, suite: Self.suite) {
            let gyroscope = try makeFactory().open("evdev:/dev/input/event7#gyro", as: (any MotionSensor).self)
            #expect(gyroscope.info.kind == .gyroscope)
            let samples = try await collect(gyroscope.readings(buffering: .unbounded), count: 6)
            #expect(samples.map(Reading.motion) == (try Self.imported("ds4-motion-sensors.evemu", role: .gyroscope)))
            // 1024 units per degree per second: 10·i °/s about x, −0.5 °/s about y.
            #expect(abs(samples[5].value.x - 50 * .pi / 180) < 1e-12)
            #expect(abs(samples[5].value.y - -0.5 * .pi / 180) < 1e-12)
        }
    }

    @Test func aMotionDeviceHandsOverBlocksOfTheSameSamples() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.testbed("ds4-gamepad.evemu", scratch: scratch), scratch: scratch, suite: Self.suite) {
            let stick = try makeFactory().open("evdev:/dev/input/event7?fullrate=90#stick", as: EvdevMotionSensor.self)
            let expected = try Self.imported("ds4-gamepad.evemu", role: .stick).compactMap { reading -> MotionSample? in
                if case .motion(let sample) = reading { sample } else { nil }
            }
            var samples: [MotionSample] = []
            for try await block in stick.blocks() {
                #expect(!block.isEmpty)
                samples += block
                if samples.count >= expected.count { break }
            }
            #expect(samples == expected)
        }
    }

    @Test func aGamepadGivesButtonsAsKeysWhileGrabbed() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.testbed("ds4-gamepad.evemu", scratch: scratch), scratch: scratch, suite: Self.suite) {
            let keys = try makeFactory().open("evdev:/dev/input/event7?grab=1#keys", as: (any KeyInput).self)
            let events = try await collect(keys.readings(buffering: .unbounded), count: 2)
            #expect(events == [
                KeyEvent(timestamp: Timestamp(nanoseconds: 4_100_000_000), code: 0x130, state: .press),
                KeyEvent(timestamp: Timestamp(nanoseconds: 4_200_000_000), code: 0x130, state: .release),
            ])
        }
    }

    @Test func aGamepadStickIsAVirtualGyroscopeForTheMotionControls() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.testbed("ds4-gamepad.evemu", scratch: scratch), scratch: scratch, suite: Self.suite) {
            let stick = try makeFactory().open("evdev:/dev/input/event7?fullrate=90#stick", as: (any MotionSensor).self)
            #expect(stick.info.kind == .gyroscope)
            let samples = try await collect(stick.readings(buffering: .unbounded), count: 3)
            #expect(samples.map(Reading.motion) == (try Self.imported("ds4-gamepad.evemu", role: .stick)))
            // Full right turns right at 90°/s (negative about y); full up looks up (positive about x);
            // back inside the dead zone stops.
            #expect(samples[0].value == Vector3(x: 0, y: -.pi / 2, z: 0))
            #expect(samples[1].value == Vector3(x: .pi / 2, y: 0, z: 0))
            #expect(samples[2].value == .zero)
        }
    }

    @Test func aRoleTheDeviceLacksIsRefusedWithItsRoles() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.testbed("goodix-touchscreen.evemu", scratch: scratch), scratch: scratch, suite: Self.suite) {
            #expect {
                _ = try makeFactory().open("evdev:/dev/input/event7#gyro")
            } throws: { error in
                (error as? DeviceError)?.message == "'Goodix Capacitive TouchScreen' has no role 'gyro'; it offers: pointer"
            }
            let discovered = try EvdevBackend().discover()
            #expect(discovered.map(\.uri) == ["evdev:/dev/input/event7#pointer"])
            #expect(discovered.first?.unavailableReason == nil)
        }
    }
}

func makeFactory() -> DeviceFactory {
    DeviceFactory(backends: [EvdevBackend(), IIOBackend()])
}
