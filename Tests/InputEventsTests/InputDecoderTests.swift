import HAL
import InputEvents
import Testing

/// The decoders on their own: mice, single-touch panels, keyboards, frames lost to SYN_DROPPED,
/// and the evemu format's errors.
struct InputDecoderTests {
    typealias Code = InputCode
    static func event(_ milliseconds: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent {
        InputEvent(timestamp: Timestamp(nanoseconds: milliseconds * 1_000_000), type: type, code: code, value: value)
    }
    static func report(_ milliseconds: Int64) -> InputEvent { event(milliseconds, Code.Event.synchronization, Code.Sync.report, 0) }

    static func decode(_ device: InputDeviceDescription, _ role: InputRole, _ events: [InputEvent]) throws -> [Reading] {
        var decoder = try InputDecoder(device: device, role: role)
        var readings: [Reading] = []
        for event in events { decoder.decode(event, into: &readings) }
        return readings
    }

    static let mouse = InputDeviceDescription(
        name: "USB Optical Mouse",
        codes: [Code.Event.key: [0x110, 0x111, 0x112], Code.Event.relative: [Code.Relative.x, Code.Relative.y]])

    @Test func aMouseDragsFromTheCentreAndItsOtherButtonsAreKeys() throws {
        #expect(Self.mouse.roles == [.pointer, .keys])
        let readings = try Self.decode(Self.mouse, .pointer, [
            Self.event(10, Code.Event.key, 0x110, 1), Self.report(10),
            Self.event(20, Code.Event.relative, Code.Relative.x, 250), Self.event(20, Code.Event.relative, Code.Relative.y, -100), Self.report(20),
            Self.event(30, Code.Event.relative, Code.Relative.x, 1000), Self.report(30),
            Self.event(40, Code.Event.key, 0x110, 0), Self.report(40),
            Self.event(50, Code.Event.key, 0x111, 1), Self.report(50),
        ])
        #expect(readings == [
            .pointer(PointerEvent(timestamp: Timestamp(nanoseconds: 10_000_000), phase: .press, x: 0.5, y: 0.5)),
            .pointer(PointerEvent(timestamp: Timestamp(nanoseconds: 20_000_000), phase: .move, x: 0.75, y: 0.4)),
            .pointer(PointerEvent(timestamp: Timestamp(nanoseconds: 30_000_000), phase: .move, x: 1, y: 0.4)),
            .pointer(PointerEvent(timestamp: Timestamp(nanoseconds: 40_000_000), phase: .release, x: 1, y: 0.4)),
        ])
        let keys = try Self.decode(Self.mouse, .keys, [Self.event(50, Code.Event.key, 0x111, 1), Self.report(50)])
        #expect(keys == [.key(KeyEvent(timestamp: Timestamp(nanoseconds: 50_000_000), code: 0x111, state: .press))])
    }

    @Test func aSingleTouchPanelUsesBTNTouchAndItsAxes() throws {
        let panel = InputDeviceDescription(
            name: "resistive panel", properties: [Code.Property.direct],
            codes: [Code.Event.key: [Code.Key.touch]],
            axes: [Code.Absolute.x: AbsoluteAxis(minimum: 100, maximum: 3900), Code.Absolute.y: AbsoluteAxis(minimum: 200, maximum: 3800)])
        #expect(panel.roles == [.pointer])
        let readings = try Self.decode(panel, .pointer, [
            Self.event(1, Code.Event.absolute, Code.Absolute.x, 2000), Self.event(1, Code.Event.absolute, Code.Absolute.y, 2000),
            Self.event(1, Code.Event.key, Code.Key.touch, 1), Self.report(1),
            Self.event(2, Code.Event.absolute, Code.Absolute.x, 5000), Self.report(2),
            Self.event(3, Code.Event.key, Code.Key.touch, 0), Self.report(3),
        ])
        #expect(readings.map { (reading: Reading) -> PointerPhase? in if case .pointer(let e) = reading { e.phase } else { nil } } == [.press, .move, .release])
        #expect(readings.first == .pointer(PointerEvent(timestamp: Timestamp(nanoseconds: 1_000_000), phase: .press, x: 0.5, y: 0.5)))
        // Outside the axis range clamps to the edge.
        #expect(readings[1] == .pointer(PointerEvent(timestamp: Timestamp(nanoseconds: 2_000_000), phase: .move, x: 1, y: 0.5)))
    }

    @Test func synDroppedDiscardsThePartialFrameAndTheRestUntilTheNextReport() throws {
        let keyboard = InputDeviceDescription(name: "AT keyboard", codes: [Code.Event.key: [28, 30, 48]])
        #expect(keyboard.roles == [.keys])
        let readings = try Self.decode(keyboard, .keys, [
            Self.event(1, Code.Event.key, 30, 1), Self.report(1),
            Self.event(2, Code.Event.key, 48, 1),
            Self.event(2, Code.Event.synchronization, Code.Sync.dropped, 0),
            Self.event(3, Code.Event.key, 28, 1),
            Self.report(3),
            Self.event(4, Code.Event.key, 30, 2), Self.report(4),
        ])
        #expect(readings == [
            .key(KeyEvent(timestamp: Timestamp(nanoseconds: 1_000_000), code: 30, state: .press)),
            .key(KeyEvent(timestamp: Timestamp(nanoseconds: 4_000_000), code: 30, state: .repeat)),
        ])
    }

    @Test func stickDeflectionHasADeadZoneAndFullRateAtTheEdge() throws {
        let pad = InputDeviceDescription(
            name: "pad", codes: [Code.Event.key: [Code.Key.gamepad]],
            axes: [Code.Absolute.x: AbsoluteAxis(minimum: -32768, maximum: 32767, flat: 4096), Code.Absolute.y: AbsoluteAxis(minimum: -32768, maximum: 32767, flat: 4096)])
        #expect(pad.roles == [.stick, .keys])
        let readings = try Self.decode(pad, .stick, [
            Self.event(1, Code.Event.absolute, Code.Absolute.x, 3000), Self.report(1),
            Self.event(2, Code.Event.absolute, Code.Absolute.x, -32768), Self.report(2),
        ])
        let rates = readings.compactMap { if case .motion(let sample) = $0 { sample.value } else { nil } }
        #expect(rates == [Vector3.zero, Vector3(x: 0, y: .pi / 2, z: 0)])
    }

    @Test func motionAxesWithoutResolutionAreRefused() {
        let sensor = InputDeviceDescription(
            name: "old accelerometer", properties: [Code.Property.accelerometer],
            axes: [0: AbsoluteAxis(minimum: -512, maximum: 511), 1: AbsoluteAxis(minimum: -512, maximum: 511), 2: AbsoluteAxis(minimum: -512, maximum: 511)])
        #expect(sensor.roles == [.accelerometer])
        #expect(throws: InputDecoderError("'old accelerometer' gives axis 0 no resolution, so its accelerometer values cannot be scaled")) {
            _ = try InputDecoder(device: sensor, role: .accelerometer)
        }
        #expect(throws: InputDecoderError("'old accelerometer' is not usable as pointer (it offers: accel)")) {
            _ = try InputDecoder(device: sensor, role: .pointer)
        }
    }

    @Test(arguments: [
        ("N: x\nE: 0.000000 0000 0000 0\n", "f.evemu:1: version: not an evemu recording: the '# EVEMU 1.3' line is missing"),
        ("# EVEMU 2.0\n", "f.evemu:1: version: evemu format '2.0' is not read (1.2 and 1.3 are)"),
        ("# EVEMU 1.3\nN: x\nA: 00 0 big 0 0 0\n", "f.evemu:3: A.maximum: 'big' is not a whole number"),
        ("# EVEMU 1.3\nN: x\nE: 1.000000 0003 0000 1\nE: 0.500000 0000 0000 0\n", "f.evemu:4: E.time: time goes backwards, from 1.000000000 s to 0.500000000 s"),
        ("# EVEMU 1.3\nN: x\nE: 1.5 0003 0000 1\n", "f.evemu:3: E.time: '1.5' is not SECONDS.MICROSECONDS"),
        ("# EVEMU 1.3\nN: x\nQ: 1\n", "f.evemu:3: Q: unknown line kind 'Q:'"),
        ("# EVEMU 1.3\nE: 1.000000 0003 0000 1\n", "f.evemu:3: N: the recording names no device (no 'N:' line)"),
    ])
    func badRecordingsNameTheFileLineAndField(text: String, message: String) {
        #expect(throws: (any Error).self) { _ = try EvemuRecording(text: text, file: "f.evemu") }
        do {
            _ = try EvemuRecording(text: text, file: "f.evemu")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func aRecordingKeepsLeadingZeroFractionsAsDecimal() throws {
        let recording = try EvemuRecording(text: "# EVEMU 1.3\nN: x\nB: 01 00 00 00 00 00 00 00 00\nE: 1.010000 0001 001e 1\t# KEY_A\n", file: "f.evemu")
        #expect(recording.events == [InputEvent(timestamp: Timestamp(nanoseconds: 1_010_000_000), type: 1, code: 30, value: 1)])
    }
}

/// Inputs `scripts/fuzz` found that crashed the evemu importer, kept as regression tests.
@Suite struct EvemuFuzzRegressionTests {
    /// An event time of 10^18 seconds overflowed 64-bit nanoseconds.
    @Test func anEventTimeBeyond64BitNanosecondsIsALineError() {
        let text = "# EVEMU 1.3\nN: fuzz\nI: 0003 0000 0000 0000\nE: 1119497005098336255.400000 0003 0000 128\n"
        do {
            _ = try EvemuRecording(text: text, file: "crash.evemu")
            Issue.record("the time was accepted")
        } catch {
            #expect(error.description.contains("crash.evemu:4"), "\(error)")
            #expect(error.description.contains("is not SECONDS.MICROSECONDS"), "\(error)")
        }
    }
}
