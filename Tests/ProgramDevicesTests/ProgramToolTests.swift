import Audio
import Foundation
import HAL
import InputEvents
import ProgramDevices
import TestSupport
import Testing
import TraceFormat

/// Real programs, unmodified, run under `hal exec`: evtest and python3-evdev on the input devices, libiio's
/// `iio_info` and `iio_readdev` and a plain sysfs reader on the IIO devices, `gpspipe` on the gpsd and `head` on the
/// serial node, `aplay` and `espeak-ng` on the speaker. What each prints is compared with the trace.
///
/// Serialized: each runs a program in real time, and they share the machine's two cores.
@Suite(.serialized) struct ProgramToolTests {
    private func time(_ seconds: Double) -> Timestamp { Timestamp(nanoseconds: Int64((seconds * 1e9).rounded())) }

    /// Writes a JSON Lines trace of `channels` and `records` into `folder` and returns its path.
    private func writeTrace(_ channels: [TraceChannel], _ records: [TraceRecord], in folder: String, name: String = "input.jsonl") throws -> String {
        let path = folder + "/" + name
        let trace = Trace(header: TraceHeader(channels: channels), records: records.sorted { $0.timestamp < $1.timestamp })
        try TraceConversion.write(trace, to: TraceWriter(path: path, header: trace.header, durability: .buffered))
        return path
    }

    /// Runs `hal exec ARGUMENTS` with the test's scratch folder as `TMPDIR`.
    private func exec(_ arguments: [String], scratch: String) async throws -> (status: Int32, output: String) {
        try await runProcess(halExecutable, ["exec"] + arguments, environment: ["TMPDIR": scratch], timeout: 120)
    }

    /// The program's own lines in `hal exec`'s output, without their `[time]` prefix.
    private func programLines(_ output: String) -> [String] {
        output.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return nil }
            return String(line[line.index(close, offsetBy: 2)...])
        }
    }

    /// A shell command that runs `evtest NODE` into `file` until it has printed `frames` SYN_REPORT lines, then stops
    /// it: the test waits for what evtest has seen, not for a time (`--end` is only the safety net). The file exists
    /// before evtest starts, so the first count reads 0, not an empty word (which ended the wait at once in dash).
    private func evtestUntil(_ node: String, frames: Int, into file: String) -> String {
        ": > \(file); evtest \(node) >> \(file) & p=$!; while kill -0 $p 2>/dev/null && [ \"$(grep -c SYN_REPORT \(file))\" -lt \(frames) ]; do sleep 0.01; done; kill $p"
    }

    /// The events evtest printed, as `type code value` (SYN_REPORT as `0 0 0`) with their times: from lines such as
    /// "Event: time 0.200000, type 3 (EV_ABS), code 57 (ABS_MT_TRACKING_ID), value 0" and
    /// "Event: time 0.200000, -------------- SYN_REPORT ------------".
    private func evtestEvents(_ lines: [Substring]) -> [(time: Double, event: String)] {
        lines.filter { $0.hasPrefix("Event: time ") }.map { line in
            let fields = line.dropFirst("Event: time ".count).split(separator: ",")
            let time = Double(fields[0])!
            if line.hasSuffix("SYN_REPORT ------------") { return (time, "0 0 0") }
            // " type 3 (EV_ABS)" → "3"
            let numbers = fields.dropFirst().map { $0.split(separator: " ")[1] }
            return (time, numbers.joined(separator: " "))
        }
    }

    /// The touch and key channels of the input tests: a tap, a drag with two fingers, and Enter pressed and released.
    private func inputTrace(in scratch: String) throws -> (path: String, records: [TraceRecord]) {
        let records = [
            TraceRecord(channel: 0, reading: .pointer(PointerEvent(timestamp: time(0.2), pointer: 0, phase: .press, x: 0.1, y: 0.9))),
            TraceRecord(channel: 0, reading: .pointer(PointerEvent(timestamp: time(0.25), pointer: 0, phase: .move, x: 0.2, y: 0.8))),
            TraceRecord(channel: 0, reading: .pointer(PointerEvent(timestamp: time(0.3), pointer: 1, phase: .press, x: 0.7, y: 0.3))),
            TraceRecord(channel: 0, reading: .pointer(PointerEvent(timestamp: time(0.35), pointer: 0, phase: .release, x: 0.2, y: 0.8))),
            TraceRecord(channel: 0, reading: .pointer(PointerEvent(timestamp: time(0.4), pointer: 1, phase: .release, x: 0.7, y: 0.3))),
            TraceRecord(channel: 1, reading: .key(KeyEvent(timestamp: time(0.5), code: 28, state: .press))),
            TraceRecord(channel: 1, reading: .key(KeyEvent(timestamp: time(0.6), code: 28, state: .release))),
        ]
        let path = try writeTrace(
            [TraceChannel(id: "touch", kind: .pointer, source: "test"), TraceChannel(id: "keys", kind: .keys, source: "test")], records, in: scratch)
        return (path, records)
    }

    /// The frames a device sends for one of the trace's channels, as `type code value` (SYN_REPORT as `0 0 0`) at
    /// seconds after the trace's first record, after an empty frame at 0 s that carries the wait for the first one
    /// when the channel starts later.
    private func expectedEvents(_ records: [TraceRecord], channel: Int) -> [(time: Double, event: String)] {
        var encoder = InputDeviceEncoding.Encoder()
        let origin = records.map(\.timestamp).min()!
        let events = records.filter { $0.channel == channel }.flatMap { encoder.encode($0.reading) }
        let lead: [(time: Double, event: String)] = events.first!.timestamp > origin ? [(0, "0 0 0")] : []
        return lead + events.map { (Double($0.timestamp.nanoseconds - origin.nanoseconds) / 1e9, "\($0.type) \($0.code) \($0.value)") }
    }

    /// evtest describes the touchscreen as a real one (name, axes with their ranges and resolution, the direct
    /// property) and prints every event of the trace, in order, framed by SYN_REPORT, at the trace's times.
    @Test func evtestSeesTheTouchscreen() async throws {
        let scratch = try makeScratchFolder()
        let (trace, records) = try inputTrace(in: scratch)
        let expected = expectedEvents(records, channel: 0)
        let printed = scratch + "/evtest.txt"
        let frames = expected.filter { $0.event == "0 0 0" }.count
        let (status, output) = try await exec(
            [trace, "--end", "60", "--", "/bin/sh", "-c", evtestUntil("/dev/input/event0", frames: frames, into: printed)], scratch: scratch)
        #expect(status == 0, "\(output)")
        let lines = try String(contentsOfFile: printed, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains("Input device name: \"HAL simulated touchscreen\""), "\(output)")
        #expect(lines.contains("  Property type 1 (INPUT_PROP_DIRECT)"), "\(output)")
        #expect(lines.contains("    Event code 53 (ABS_MT_POSITION_X)") && lines.contains("      Max     4095") && lines.contains("      Resolution      16"))
        let seen = evtestEvents(lines)
        #expect(seen.map(\.event) == expected.map(\.event), "\(output)")
        // On the trace's clock the events are stamped on the program's CLOCK_MONOTONIC: 1 s at the first record.
        let base = Double(TraceClock.monotonicBase) / 1e9
        for (got, want) in zip(seen, expected) { #expect(abs(got.time - base - want.time) < 1e-6, "\(got) \(want)") }
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// evdev's variable-size ioctls answer at any buffer size, as the kernel does: `lsinput` (input-utils) names both
    /// devices, and a program asking with sizes of its own gets `min(size, length)` bytes and that count (the name
    /// truncated without its NUL, or whole with it; a key bitmap of 96 bytes at most), `ENOENT` for the missing
    /// `PHYS`, and `EINVAL` for an event type the kernel has no bitmap for. The node's uevent carries what udev
    /// would add: the major and minor numbers and the `ID_INPUT*` class.
    @Test func evdevIoctlsAnswerAtAnySize() async throws {
        let scratch = try makeScratchFolder()
        let (trace, _) = try inputTrace(in: scratch)
        let script = scratch + "/ask.py"
        try """
            import errno, fcntl, os
            def ask(node, nr, size):
                fd = os.open(node, os.O_RDONLY)
                buffer = bytearray(size)
                try:
                    count = fcntl.ioctl(fd, (2 << 30) | (size << 16) | (ord("E") << 8) | nr, buffer, True)
                    return "%d %s" % (count, buffer[:count].hex())
                except OSError as error:
                    return errno.errorcode[error.errno]
                finally:
                    os.close(fd)
            touch, keys = os.environ["HAL_DEVICE_TOUCH"], os.environ["HAL_DEVICE_KEYS"]
            print("name10", ask(touch, 0x06, 10))
            print("name300", ask(touch, 0x06, 300))
            print("keybits5", ask(keys, 0x21, 5))
            print("keybits200", ask(keys, 0x21, 200))
            print("absbits3", ask(touch, 0x23, 3))
            print("phys", ask(touch, 0x07, 64))
            print("repbits", ask(touch, 0x34, 8))
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let listed = scratch + "/lsinput.txt"
        let (status, output) = try await exec(
            [trace, "--end", "5", "--", "/bin/sh", "-c", "lsinput > \(listed); /usr/bin/python3 \(script); cat /sys/class/input/event0/uevent"], scratch: scratch)
        #expect(status == 0, "\(output)")
        let lsinput = try String(contentsOfFile: listed, encoding: .utf8)
        #expect(lsinput.contains("name    : \"HAL simulated touchscreen\"") && lsinput.contains("name    : \"HAL simulated keys\""), "\(lsinput)")
        let lines = programLines(output)
        let name = Array("HAL simulated touchscreen".utf8)
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        // Enter (28) is the keys device's only key: bit 4 of byte 3.
        #expect(lines.contains("name10 10 \(hex(Array(name.prefix(10))))"), "\(output)")
        #expect(lines.contains("name300 \(name.count + 1) \(hex(name + [0]))"), "\(output)")
        #expect(lines.contains("keybits5 5 0000001000"), "\(output)")
        #expect(lines.contains("keybits200 96 0000001000" + String(repeating: "00", count: 91)), "\(output)")
        #expect(lines.contains("phys ENOENT") && lines.contains("repbits EINVAL"), "\(output)")
        // ABS_X and ABS_Y (bits 0 and 1) with the multitouch axes from 0x2f up, 3 bytes of 8.
        #expect(lines.contains("absbits3 3 030000"), "\(output)")
        #expect(lines.contains("MAJOR=13") && lines.contains("MINOR=64") && lines.contains("ID_INPUT=1") && lines.contains("ID_INPUT_TOUCHSCREEN=1"), "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// libinput, through udev as a compositor runs it: `libinput list-devices` finds both devices (udev's database
    /// entries and the nodes' device numbers are as a real system has them), and `libinput debug-events` reports the
    /// trace's touches (each finger's down, motion and up, at the trace's positions as percentages of the screen) and
    /// Enter's press and release, each at its time after libinput started.
    @Test func libinputReportsTheTouchesAndKeys() async throws {
        let scratch = try makeScratchFolder()
        let (trace, records) = try inputTrace(in: scratch)
        let (_, output) = try await exec(
            [trace, "--end", "2", "--", "/bin/sh", "-c", "libinput list-devices | grep -E '^(Device|Capabilities):'; libinput debug-events --show-keycodes"],
            scratch: scratch)
        let lines = programLines(output)
        #expect(lines.prefix(4) == ["Device:           HAL simulated touchscreen", "Capabilities:     touch ", "Device:           HAL simulated keys", "Capabilities:     keyboard "], "\(output)")
        // "-event0   TOUCH_DOWN              +0.000s\t0 (0) 10.01/89.99 (25.62/230.38mm)" → ("TOUCH_DOWN", 0.0, "0 (0) 10.01/89.99 (…)")
        let reported: [(kind: String, time: Double, rest: String)] = lines.compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 3, fields[0].hasPrefix("-event") || fields[0].hasPrefix("event"), fields[2].hasPrefix("+") else { return nil }
            let time = fields[2].dropFirst().prefix { $0 != "s" }
            let rest = line.split(separator: "\t").dropFirst().first.map(String.init) ?? ""
            return (String(fields[1]), Double(time) ?? -1, rest)
        }
        #expect(lines.filter { $0.contains(" DEVICE_ADDED ") }.count == 2, "\(output)")
        let touches = reported.filter { $0.kind.hasPrefix("TOUCH_") && $0.kind != "TOUCH_FRAME" }
        // The trace's pointer records, in order: what libinput must report for each, at its time after the first.
        let origin = records[0].timestamp
        var wanted: [(kind: String, time: Double, slot: Int, x: Double, y: Double)] = []
        for record in records {
            guard case .pointer(let event) = record.reading else { continue }
            let kind = event.phase == .press ? "TOUCH_DOWN" : event.phase == .move ? "TOUCH_MOTION" : "TOUCH_UP"
            wanted.append((kind, Double(record.timestamp.nanoseconds - origin.nanoseconds) / 1e9, event.pointer, event.x * 100, event.y * 100))
        }
        #expect(touches.map(\.kind) == wanted.map(\.kind), "\(output)")
        for (got, want) in zip(touches, wanted) {
            #expect(abs(got.time - want.time) < 1e-6 && got.rest.hasPrefix("\(want.slot) (\(want.slot))"), "\(got) vs \(want)")
            guard want.kind != "TOUCH_UP" else { continue }
            // "0 (0) 10.01/89.99 (…mm)": percentages of the screen, within one of its 4096 steps.
            let position = got.rest.split(separator: " ")[2].split(separator: "/").compactMap { Double($0) }
            #expect(position.count == 2 && abs(position[0] - want.x) < 0.03 && abs(position[1] - want.y) < 0.03, "\(got) vs \(want)")
        }
        let keys = reported.filter { $0.kind == "KEYBOARD_KEY" }
        #expect(keys.map(\.rest) == ["KEY_ENTER (28) pressed", "KEY_ENTER (28) released"] && keys.map(\.time) == [0.3, 0.4], "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// python3-evdev, as a Python program reads a device: the keys device's name, its keys, and Enter's press and
    /// release each followed by SYN_REPORT, stamped alike on either clock; the touchscreen's absolute axes and
    /// properties.
    @Test(arguments: ["wall", "trace"]) func pythonEvdevSeesTheKeysAndTouchscreen(clock: String) async throws {
        let scratch = try makeScratchFolder()
        let (trace, records) = try inputTrace(in: scratch)
        let script = scratch + "/read.py"
        try """
            import os, evdev
            touch = evdev.InputDevice(os.environ["HAL_DEVICE_TOUCH"])
            print("touch", touch.name, [p for p in touch.input_props()], touch.absinfo(evdev.ecodes.ABS_MT_POSITION_X))
            keys = evdev.InputDevice(os.environ["HAL_DEVICE_KEYS"])
            print("keys", keys.name, keys.capabilities()[evdev.ecodes.EV_KEY])
            count = 0
            for event in keys.read_loop():
                print("event", event.type, event.code, event.value, event.sec, event.usec, flush=True)
                count += 1
                if count == 4: break
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let (status, output) = try await exec([trace, "--clock", clock, "--end", "60", "--", "/usr/bin/python3", script], scratch: scratch)
        #expect(status == 0, "\(output)")
        let lines = programLines(output)
        #expect(lines.contains("touch HAL simulated touchscreen [1] val 0, min 0, max 4095, fuzz 0, flat 0, res 16"), "\(output)")
        #expect(lines.contains("keys HAL simulated keys [28]"), "\(output)")
        // On the machine's clock, umockdev's script opens the keys' stream with an empty frame at 0 s (the trace starts
        // with the first touch, at 0.2 s); on the trace's clock the stream is the trace's own. Then Enter at 0.5 s and
        // 0.6 s of the trace, stamped 0.3 s and 0.4 s after the run's zero on the machine's clock, and on the program's
        // CLOCK_MONOTONIC on the trace's (1 s at the first record: 1.3 s and 1.4 s).
        let all = expectedEvents(records, channel: 1).map { "event \($0.event) 0 \(Int(($0.time * 1e6).rounded()))" }
        let monotonic = expectedEvents(records, channel: 1).dropFirst().map { "event \($0.event) 1 \(Int(($0.time * 1e6).rounded()))" }
        let expected = (clock == "wall" ? all : monotonic).prefix(4)
        #expect(lines.filter { $0.hasPrefix("event ") } == Array(expected), "\(output)")
        #expect(all.prefix(5) == ["event 0 0 0 0 0", "event 1 28 1 0 300000", "event 0 0 0 0 300000", "event 1 28 0 0 400000", "event 0 0 0 0 400000"])
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// Accelerometer and gyroscope channels served as one evdev motion device, read with python3-evdev: the
    /// accelerometer property, the axes' resolutions (8192 a g, 1024 a degree per second), and each sample's frame
    /// as the encoder makes it, which decodes back within one step.
    @Test func pythonEvdevReadsTheMotionDevice() async throws {
        let scratch = try makeScratchFolder()
        var records: [TraceRecord] = []
        for index in 0..<5 {
            let at = time(Double(index) * 0.05), step = Double(index)
            records.append(TraceRecord(channel: 0, reading: .motion(MotionSample(timestamp: at, quantity: .acceleration, value: Vector3(x: 0.5 * step, y: 9.80665, z: -1)))))
            records.append(TraceRecord(channel: 1, reading: .motion(MotionSample(timestamp: at, quantity: .angularVelocity, value: Vector3(x: 0.1, y: -0.2 * step, z: 1)))))
        }
        let trace = try writeTrace(
            [TraceChannel(id: "accel", kind: .accelerometer, source: "test"), TraceChannel(id: "gyro", kind: .gyroscope, source: "test")], records, in: scratch)
        let script = scratch + "/motion.py"
        try """
            import os, evdev
            device = evdev.InputDevice(os.environ["HAL_DEVICE_ACCEL"])
            print("props", [p for p in device.input_props()], os.environ["HAL_DEVICE_GYRO"] == os.environ["HAL_DEVICE_ACCEL"])
            print("res", device.absinfo(evdev.ecodes.ABS_X).resolution, device.absinfo(evdev.ecodes.ABS_RX).resolution)
            frames = 0
            for event in device.read_loop():
                print("event", event.type, event.code, event.value, flush=True)
                if event.type == 0:
                    frames += 1
                    if frames == 10: break
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let (status, output) = try await exec(
            [trace, "--device", "accel=evdev", "--device", "gyro=evdev", "--end", "60", "--", "/usr/bin/python3", script], scratch: scratch)
        #expect(status == 0, "\(output)")
        let lines = programLines(output)
        #expect(lines.contains("props [6] True") && lines.contains("res 8192 1024"), "\(output)")
        var encoder = InputDeviceEncoding.Encoder()
        let expected = records.flatMap { encoder.encode($0.reading) }.map { "event \($0.type) \($0.code) \($0.value)" }
        #expect(lines.filter { $0.hasPrefix("event ") } == expected, "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// An IMU trace of 60 scans at 100 Hz: the gyroscope at (0.5, -0.01 i, 3) rad/s and the accelerometer at
    /// (0.05 i, 9.80665, -1) m/s² in scan i.
    private func imuTrace(in scratch: String, scans: Int = 60) throws -> String {
        var records: [TraceRecord] = []
        for index in 0..<scans {
            let at = time(Double(index) * 0.01)
            records.append(TraceRecord(channel: 0, reading: .motion(MotionSample(timestamp: at, quantity: .angularVelocity, value: Vector3(x: 0.5, y: -0.01 * Double(index), z: 3)))))
            records.append(TraceRecord(channel: 1, reading: .motion(MotionSample(timestamp: at, quantity: .acceleration, value: Vector3(x: 0.05 * Double(index), y: 9.80665, z: -1)))))
        }
        return try writeTrace(
            [TraceChannel(id: "gyro", kind: .gyroscope, source: "test", rate: 100), TraceChannel(id: "accel", kind: .accelerometer, source: "test", rate: 100)],
            records, in: scratch)
    }

    /// The IMU as libiio's own tools see it: `iio_info` lists the device and its channels with their scale, and
    /// `iio_readdev` reads the buffer's scans, whose values equal the trace's within one step of the scale.
    @Test func libiioToolsReadTheIMU() async throws {
        let scratch = try makeScratchFolder()
        let trace = try imuTrace(in: scratch)
        let buffer = scratch + "/buffer.bin", info = scratch + "/info.txt"
        let (status, output) = try await exec(
            [trace, "--end", "60", "--", "/bin/sh", "-c", "iio_info > \(info) && iio_readdev -b 20 -s 40 iio:device0 > \(buffer)"], scratch: scratch)
        #expect(status == 0, "\(output)")
        let text = try String(contentsOfFile: info, encoding: .utf8)
        #expect(text.contains("iio:device0: hal-imu (buffer capable)"), "\(text)")
        #expect(text.contains("anglvel_x:  (input, index: 0, format: le:S16/16>>0)") && text.contains("accel_z:  (input, index: 5, format: le:S16/16>>0)"))
        #expect(text.contains("scale value: 0.002394202") && text.contains("sampling_frequency value: 100"))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: buffer)))
        #expect(bytes.count == 40 * 24)
        for scan in 0..<min(40, bytes.count / 24) {
            func int16(_ index: Int) -> Double { Double(Int16(bitPattern: UInt16(bytes[scan * 24 + 2 * index]) | UInt16(bytes[scan * 24 + 2 * index + 1]) << 8)) }
            let gyro = [int16(0), int16(1), int16(2)].map { $0 * 0.001064724 }
            let accel = [int16(3), int16(4), int16(5)].map { $0 * 0.002394202 }
            let wantGyro = [0.5, -0.01 * Double(scan), 3], wantAccel = [0.05 * Double(scan), 9.80665, -1]
            for (got, want) in zip(gyro, wantGyro) { #expect(abs(got - want) <= 0.001064724 / 2 + 1e-9, "scan \(scan): gyro \(gyro)") }
            for (got, want) in zip(accel, wantAccel) { #expect(abs(got - want) <= 0.002394202 / 2 + 1e-9, "scan \(scan): accel \(accel)") }
            var nanoseconds: Int64 = 0
            for index in 0..<8 { nanoseconds |= Int64(bytes[scan * 24 + 16 + index]) << (8 * Int64(index)) }
            #expect(nanoseconds == Int64(scan) * 10_000_000)
        }
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// `iio_readdev` with a channel subset, the usual call, on either clock: the buffer holds the enabled channels
    /// alone, in index order (the accelerometer's three s16, 6 bytes a scan; with the timestamp, padded to 16), and
    /// the values are the trace's.
    @Test(arguments: ["trace", "wall"]) func iioReaddevReadsTheChannelsItEnabled(clock: String) async throws {
        let scratch = try makeScratchFolder()
        // On the machine's clock the scans go by whether or not a reader has started: enough for a slow start.
        let trace = try imuTrace(in: scratch, scans: clock == "wall" ? 600 : 60)
        let plain = scratch + "/plain.bin", stamped = scratch + "/stamped.bin"
        let (status, output) = try await exec(
            [trace, "--clock", clock, "--end", "60", "--", "/bin/sh", "-c",
             "iio_readdev -b 8 -s 32 iio:device0 accel_z accel_x accel_y > \(plain) && iio_readdev -b 8 -s 16 iio:device0 accel_x timestamp > \(stamped)"],
            scratch: scratch)
        #expect(status == 0, "\(output)")
        func int16(_ bytes: [UInt8], _ at: Int) -> Double { Double(Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8)) }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        #expect(bytes.count == 32 * 6, "\(output)")
        // The first scan the buffer holds is the one at the time the program enabled it: the x values tell which.
        let first = Int((int16(bytes, 0) * 0.002394202 / 0.05).rounded())
        for scan in 0..<min(32, bytes.count / 6) {
            let accel = [int16(bytes, scan * 6), int16(bytes, scan * 6 + 2), int16(bytes, scan * 6 + 4)].map { $0 * 0.002394202 }
            let want = [0.05 * Double(first + scan), 9.80665, -1]
            for (got, expected) in zip(accel, want) { #expect(abs(got - expected) <= 0.002394202 / 2 + 1e-9, "scan \(scan): \(accel)") }
        }
        // accel_x and the timestamp: 2 bytes, 6 of padding, 8 of time.
        let withTime = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stamped)))
        #expect(withTime.count == 16 * 16, "\(output)")
        for scan in 0..<min(16, withTime.count / 16) {
            var nanoseconds: Int64 = 0
            for index in 0..<8 { nanoseconds |= Int64(withTime[scan * 16 + 8 + index]) << (8 * Int64(index)) }
            let index = Int(nanoseconds / 10_000_000)
            #expect(nanoseconds == Int64(index) * 10_000_000 && abs(int16(withTime, scan * 16) * 0.002394202 - 0.05 * Double(index)) <= 0.002394202 / 2 + 1e-9)
        }
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// iio-sensor-proxy, as a desktop runs it (on a D-Bus of the run's own, as its system bus), finds the IMU's
    /// accelerometer through udev (`IIO_SENSOR_PROXY_TYPE`), reads the trace's raw values, and `monitor-sensor` reports
    /// the orientation the trace holds: gravity along +y for 5 s (bottom-up), then along +x (left-up), the change seen
    /// at iio-sensor-proxy's first poll after 5 s (it polls every 700 ms from its claim).
    @Test func monitorSensorFollowsTheAccelerometer() async throws {
        let scratch = try makeScratchFolder()
        let records = (0..<100).map { index in
            let gravity = index < 50 ? Vector3(x: 0, y: 9.80665, z: 0) : Vector3(x: 9.80665, y: 0, z: 0)
            return TraceRecord(channel: 0, reading: .motion(MotionSample(timestamp: time(Double(index) * 0.1), quantity: .acceleration, value: gravity)))
        }
        let trace = try writeTrace([TraceChannel(id: "accel", kind: .accelerometer, source: "test", rate: 10)], records, in: scratch)
        // GLib writes its debug messages to standard output. monitor-sensor runs until the end stops it.
        let program = "export DBUS_SYSTEM_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS; G_MESSAGES_DEBUG=all /usr/sbin/iio-sensor-proxy > \(scratch)/proxy.txt 2>&1 & monitor-sensor"
        let (_, output) = try await exec([trace, "--end", "8", "--", "dbus-run-session", "--", "/bin/sh", "-c", program], scratch: scratch)
        let lines = output.split(separator: "\n")
        #expect(output.contains("hal exec: end passed at 8.0 s"), "\(output)")
        // monitor-sensor may start before or after iio-sensor-proxy claims its name (two processes in one instant of
        // the trace), so its first lines differ; the accelerometer and the orientations it reports do not.
        #expect(lines.contains { $0.contains("=== Has accelerometer") }, "\(output)")
        let changes = lines.filter { $0.contains("Accelerometer orientation changed: ") && !$0.hasSuffix(" undefined") }.map { line in
            (time: Double(line.dropFirst().prefix { $0 != "]" }.trimmingCharacters(in: .whitespaces)) ?? -1, orientation: String(line.split(separator: " ").last!))
        }
        #expect(changes.map(\.orientation) == ["bottom-up", "left-up"], "\(output)")
        if changes.count == 2 { #expect(changes[1].time >= 5 && changes[1].time <= 5.7, "\(output)") }
        // What it read: 9.80665 m/s² is 4096 steps of 0.002394202.
        let proxy = (try? String(contentsOfFile: scratch + "/proxy.txt", encoding: .utf8)) ?? ""
        #expect(proxy.contains("Accel read from IIO on 'hal-imu': 0, 4096, 0") && proxy.contains("Accel read from IIO on 'hal-imu': 4096, 0, 0"), "\(proxy)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// A plain sysfs reader polling `in_accel_x_raw` sees the value change as the trace goes: it reads the first
    /// value, then waits (a state, not a time) for the last one, which equals the trace's within the scale. libiio's
    /// `iio_attr` reads the environment sensor's temperature: the trace's value in the IIO ABI's milli-degrees, after
    /// the scale.
    @Test func sysfsReaderAndIioAttrSeePolledValues() async throws {
        let scratch = try makeScratchFolder()
        var records = [0.0, 0.2, 0.4].enumerated().map { index, at in
            TraceRecord(channel: 0, reading: .motion(MotionSample(timestamp: time(at), quantity: .acceleration, value: Vector3(x: [1.0, 2.0, -3.5][index], y: 0, z: 0))))
        }
        records.append(TraceRecord(channel: 1, reading: ScalarSample(timestamp: time(0), kind: .temperature, value: 21.5).reading))
        let trace = try writeTrace(
            [TraceChannel(id: "accel", kind: .accelerometer, source: "test"), TraceChannel(id: "air", kind: .temperature, source: "test")], records, in: scratch)
        let raw = Int((-3.5 / 0.002394202).rounded())
        let reader = """
            iio_attr -c iio:device1 temp raw && iio_attr -c iio:device1 temp scale && echo $HAL_DEVICE_AIR && \
            cd /sys/bus/iio/devices/iio:device0 && cat name in_accel_scale in_accel_x_raw && \
            for i in $(seq 1 6000); do v=$(cat in_accel_x_raw); if [ "$v" = "\(raw)" ]; then echo reached $v; exit 0; fi; sleep 0.01; done; exit 1
            """
        let (status, output) = try await exec([trace, "--end", "90", "--", "/bin/sh", "-c", reader], scratch: scratch)
        #expect(status == 0, "\(output)")
        let lines = programLines(output)
        #expect(lines.prefix(5) == ["21500000", "0.001", "iio:device1", "hal-imu", "0.002394202"], "\(output)")
        // The first read sees whichever of the trace's values is current by then (the reader may start after the first
        // change); the wait ends on the last.
        let values = [1.0, 2.0, -3.5].map { "\(Int(($0 / 0.002394202).rounded()))" }
        #expect(lines.count >= 7 && values.contains(lines[5]) && lines[6] == "reached \(raw)", "\(output)")
        // raw × scale is the trace's 21.5 °C in milli-degrees.
        #expect(abs(21_500_000 * 0.001 - 21.5 * 1000) < 1e-6)
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// A location channel's fixes as a serial receiver's NMEA (read with `head`) and through a real gpsd (read with
    /// `gpspipe -w`): every TPV report's position equals the trace's fix of the same time.
    /// The GPS tests' walk: 40 fixes a second apart from 2026-08-29, each 0.0001° north and 0.0002° west of the last.
    /// More fixes than the readers need (gpsd first takes a moment to recognise the receiver): the readers stop when
    /// they have theirs, and the run ends with them.
    private func gpsTrace(in scratch: String) throws -> (path: String, fixes: [LocationFix], utc: Int64) {
        let utc: Int64 = 1_788_000_000_000_000_000
        var fixes: [LocationFix] = []
        for index in 0..<40 {
            let step = Double(index)
            let coordinate = GeoCoordinate(latitude: 49.2606 + 0.0001 * step, longitude: -123.2460 - 0.0002 * step)
            let utcTime: Int64 = utc + Int64(index) * 1_000_000_000
            fixes.append(LocationFix(
                timestamp: time(step), utcNanoseconds: utcTime, mode: .threeDimensional, coordinate: coordinate, altitude: 80, horizontalAccuracy: 3, satellites: 9))
        }
        let path = try writeTrace([TraceChannel(id: "gps", kind: .location, source: "test", rate: 1)], fixes.map { TraceRecord(channel: 0, reading: .location($0)) }, in: scratch)
        return (path, fixes, utc)
    }

    @Test func gpspipeAndTheSerialNodeSeeTheFixes() async throws {
        let scratch = try makeScratchFolder()
        let (trace, fixes, utc) = try gpsTrace(in: scratch)
        // A client of gpsd's own Python module (python3-gps, what cgps is built on) reads three TPV reports beside
        // gpspipe. It writes them to a file of its own: on the shared stdout, gpspipe's lines could land inside its
        // lines (hal exec runs Python unbuffered, so `print` writes word by word), which once lost a report in CI.
        let client = scratch + "/client.py", clientOutput = scratch + "/client.txt"
        try """
            import gps, os
            session = gps.gps(host="127.0.0.1", port=os.environ["HAL_GPSD_PORT"], mode=gps.WATCH_ENABLE | gps.WATCH_JSON)
            count = 0
            with open("\(clientOutput)", "w") as out:
                for report in session:
                    if report["class"] == "TPV" and "lat" in report:
                        out.write(f"client {report['time']} {report['lat']} {report['lon']}\\n")
                        count += 1
                        if count == 3: break
            """.write(toFile: client, atomically: true, encoding: .utf8)
        let (status, output) = try await exec(
            [trace, "--rate", "4", "--end", "400", "--", "/bin/sh", "-c", "head -n 2 $HAL_DEVICE_GPS; /usr/bin/python3 \(client) & gpspipe -w -n 9 $HAL_GPSD; wait"], scratch: scratch)
        #expect(status == 0, "\(output)")
        let lines = programLines(output)
        #expect(lines.first?.hasPrefix("$GPRMC,") == true || lines.first?.hasPrefix("$GPGGA,") == true, "\(output)")
        struct TPV: Decodable { var `class`: String; var time: String?; var lat: Double?; var lon: Double? }
        var reports: [TPV] = []
        for line in lines {
            guard let report = try? JSONDecoder().decode(TPV.self, from: Data(line.utf8)), report.class == "TPV", report.lat != nil else { continue }
            reports.append(report)
        }
        #expect(!reports.isEmpty, "\(output)")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        /// A position a reader reported at a UTC time equals the trace's fix of that time.
        func expectFix(at time: String?, _ lat: Double?, _ lon: Double?, _ what: String) {
            guard let time = time.flatMap(formatter.date(from:)), let lat, let lon else { return }
            let index = Int((time.timeIntervalSince1970 - Double(utc) / 1e9).rounded())
            guard fixes.indices.contains(index), let want = fixes[index].coordinate else { Issue.record("a report at an unknown time: \(what)"); return }
            #expect(abs(lat - want.latitude) < 1e-6 && abs(lon - want.longitude) < 1e-6, "\(what) vs \(want)")
        }
        for report in reports { expectFix(at: report.time, report.lat, report.lon, "\(report)") }
        let clientLines = ((try? String(contentsOfFile: clientOutput, encoding: .utf8)) ?? "").split(separator: "\n")
        let clientReports = clientLines.map { $0.split(separator: " ") }
        #expect(clientReports.count == 3 && clientReports.allSatisfy { $0.first == "client" }, "\(clientLines)\n\(output)")
        for fields in clientReports where fields.count == 4 { expectFix(at: String(fields[1]), Double(fields[2]), Double(fields[3]), "\(fields)") }
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// gpsd's clients that assume its default port, unchanged: gpsd's Python module with no host or port reads three
    /// TPV reports, `gpxlogger -e sockets` (localhost:2947) logs a GPX track that gpxpy reads, and `gpsctl` names the
    /// receiver. Every position equals the trace's fix of its time.
    @Test func gpsdClientsFindItOnTheDefaultPort() async throws {
        let scratch = try makeScratchFolder()
        let (trace, fixes, utc) = try gpsTrace(in: scratch)
        let client = scratch + "/client.py", gpx = scratch + "/track.gpx", control = scratch + "/gpsctl.txt"
        try """
            import gps
            session = gps.gps(mode=gps.WATCH_ENABLE)
            count = 0
            for report in session:
                if report["class"] == "TPV" and "lat" in report:
                    print("client", report["time"], report["lat"], report["lon"], flush=True)
                    count += 1
                    if count == 3: break
            """.write(toFile: client, atomically: true, encoding: .utf8)
        // gpxlogger ends its track on SIGTERM, once it has logged three points (a state: the file says so).
        let program = """
            gpxlogger -e sockets -f \(gpx) & logger=$!
            /usr/bin/python3 \(client)
            gpsctl > \(control) 2>&1
            for i in $(seq 1 30); do [ "$(grep -c '<trkpt' \(gpx))" -ge 3 ] && break; sleep 1; done
            kill -TERM $logger; wait $logger
            """
        let (status, output) = try await exec([trace, "--end", "60", "--", "/bin/sh", "-c", program], scratch: scratch)
        #expect(status == 0, "\(output)")
        func expectFix(at time: String, _ lat: Double?, _ lon: Double?, _ what: String) {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            guard let date = formatter.date(from: time) ?? ISO8601DateFormatter().date(from: time), let lat, let lon else {
                Issue.record("not a report: \(what)")
                return
            }
            let index = Int((date.timeIntervalSince1970 - Double(utc) / 1e9).rounded())
            guard fixes.indices.contains(index), let want = fixes[index].coordinate else { Issue.record("a report at an unknown time: \(what)"); return }
            #expect(abs(lat - want.latitude) < 1e-6 && abs(lon - want.longitude) < 1e-6, "\(what) vs \(want)")
        }
        let clientReports = programLines(output).filter { $0.hasPrefix("client ") }.map { $0.split(separator: " ") }
        #expect(clientReports.count == 3, "\(output)")
        for fields in clientReports where fields.count == 4 { expectFix(at: String(fields[1]), Double(fields[2]), Double(fields[3]), "\(fields)") }
        let (parsed, points) = try await runProcess("/usr/bin/env", ["python3", "-c", """
            import gpxpy, sys
            track = gpxpy.parse(open(sys.argv[1]))
            for point in (p for t in track.tracks for s in t.segments for p in s.points):
                print(point.time.strftime("%Y-%m-%dT%H:%M:%SZ"), point.latitude, point.longitude)
            """, gpx], timeout: 60)
        #expect(parsed == 0, "\(points)")
        let logged = points.split(separator: "\n").map { $0.split(separator: " ") }
        #expect(logged.count >= 3, "\(points)\n\(output)")
        for fields in logged where fields.count == 3 { expectFix(at: String(fields[0]), Double(fields[1]), Double(fields[2]), "gpx \(fields)") }
        let controlled = (try? String(contentsOfFile: control, encoding: .utf8)) ?? ""
        #expect(controlled.contains("identified as a NMEA0183"), "\(controlled)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// What `aplay` plays becomes `speaker.started` with the clip's rate, channels, length and loudness (the same as
    /// the package measures of the file), then `speaker.stopped` the clip's length later; `espeak-ng` is a second clip.
    @Test func aplayAndEspeakAreCaptured() async throws {
        let scratch = try makeScratchFolder()
        let (trace, _) = try inputTrace(in: scratch)
        let tone = scratch + "/tone.wav"
        let rate = 16000, frames = 8000
        let samples = (0..<frames).map { Float(0.25 * sin(2 * Double.pi * 440 * Double($0) / Double(rate))) }
        var wav = Array("RIFF".utf8) + le(UInt32(36 + frames * 2)) + Array("WAVEfmt ".utf8) + le(UInt32(16)) + le(UInt16(1)) + le(UInt16(1))
        wav += le(UInt32(rate)) + le(UInt32(rate * 2)) + le(UInt16(2)) + le(UInt16(16)) + Array("data".utf8) + le(UInt32(frames * 2))
        for sample in samples { wav += le(UInt16(bitPattern: Int16((sample * 32767).rounded()))) }
        try Data(wav).write(to: URL(fileURLWithPath: tone))
        let (status, output) = try await exec([trace, "--end", "60", "--", "/bin/sh", "-c", "aplay -q \(tone) && espeak-ng 'hello' && echo done"], scratch: scratch)
        #expect(status == 0, "\(output)")
        let log = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let started = log.filter { $0.contains("speaker.started") }
        #expect(started.count == 2, "\(output)")
        let quantized = samples.map { Float(Int16(($0 * 32767).rounded())) / 32768 }
        let loudness = Loudness(measuring: PCMAudio(sampleRate: rate, channelCount: 1, samples: quantized)).integrated
        let first = try #require(started.first)
        #expect(first.contains("channels=1 clip=1") && first.contains("rate=16000 seconds=0.5"), "\(first)")
        let measured = Double(first.components(separatedBy: "loudness=")[1].prefix { $0 != " " })!
        #expect(abs(measured - loudness) <= 0.05, "\(first) vs \(loudness)")
        #expect(started[1].contains("clip=2") && started[1].contains("rate=22050"), "\(output)")
        // The first clip stops half a second after it started, and the second starts after it (the capture plays them in turn).
        let times = log.filter { $0.contains("speaker.") }.map { Double($0.prefix { $0 != " " })! }
        #expect(times.count == 4 && abs(times[1] - times[0] - 0.5) < 0.002 && times[2] >= times[1] - 0.1, "\(times) \(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// A program that probes device nodes that exist nowhere is told ENOENT, on either clock, as many times as it
    /// asks: `aplay -l` (alsa-lib probes 32 cards) says there is no sound card and exits 0, and 200 failed opens of
    /// `/dev/snd/controlCN` leave the program running. umockdev's preload alone aborts the program at its 50th
    /// failed open (`fd_map_add(): overflow`).
    @Test(arguments: ["wall", "trace"]) func probingMissingNodesNeverCrashes(clock: String) async throws {
        let scratch = try makeScratchFolder()
        let (trace, _) = try inputTrace(in: scratch)
        let probe = "import os\nmissing = 0\nfor n in range(200):\n    try:\n        os.close(os.open(f'/dev/snd/controlC{n}', os.O_RDONLY))\n    except FileNotFoundError:\n        missing += 1\nprint('missing', missing)"
        let (status, output) = try await exec(
            [trace, "--clock", clock, "--end", "1", "--", "/bin/sh", "-c", "aplay -l; echo aplay $?; /usr/bin/python3 -c \"$0\"", probe], scratch: scratch)
        #expect(status == 0, "\(output)")
        #expect(output.contains("no soundcards found") && output.contains("aplay 0") && output.contains("missing 200"), "\(output)")
        #expect(!output.contains("overflow"), "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// Three 64×48 grey frames, each pixel a different function of its index, ten a second.
    private func cameraTrace(in scratch: String) throws -> (path: String, frames: [[UInt8]]) {
        let (width, height) = (64, 48)
        let frames = (0..<3).map { index in
            (0..<(width * height)).map { UInt8(truncatingIfNeeded: $0 * (index + 1) + index * 50) }
        }
        let records = frames.enumerated().map { index, pixels in
            TraceRecord(channel: 0, reading: .frame(Frame(
                timestamp: time(Double(index) * 0.1), sequence: UInt64(index), width: width, height: height, pixelFormat: .grey, bytesPerRow: width,
                storage: .bytes(pixels))))
        }
        return (try writeTrace([TraceChannel(id: "cam", kind: .camera, source: "test", rate: 10)], records, in: scratch), frames)
    }

    /// The programs people capture with, which stream with MMAP: ffmpeg (`-f v4l2`, three frames as raw grey) gets the
    /// trace's frames byte for byte from the first; OpenCV's `VideoCapture` (three frames, converted to BGR by OpenCV:
    /// each channel equals the grey value) gets consecutive frames of the trace's loop, byte for byte.
    @Test func ffmpegAndOpenCVCaptureTheTracesFrames() async throws {
        let scratch = try makeScratchFolder()
        let (trace, frames) = try cameraTrace(in: scratch)
        let ffmpeg = scratch + "/ffmpeg.raw", opencv = scratch + "/opencv.raw", capture = scratch + "/capture.py"
        try """
            import cv2, sys
            camera = cv2.VideoCapture(0, cv2.CAP_V4L2)
            with open(sys.argv[1], "wb") as out:
                for _ in range(3):
                    ok, frame = camera.read()
                    if not ok: sys.exit("no frame")
                    out.write(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).tobytes())
            """.write(toFile: capture, atomically: true, encoding: .utf8)
        let script = """
            ffmpeg -hide_banner -loglevel error -f v4l2 -i /dev/video0 -frames:v 3 -f rawvideo -pix_fmt gray -y \(ffmpeg) && \
            /usr/bin/python3 \(capture) \(opencv)
            """
        let (status, output) = try await exec([trace, "--end", "60", "--", "/bin/sh", "-c", script], scratch: scratch)
        #expect(status == 0, "\(output)")
        let expected = frames.flatMap { $0 }
        let viaFFmpeg = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: ffmpeg))) ?? Data())
        #expect(viaFFmpeg == expected, "ffmpeg's frames differ from the trace's (\(viaFFmpeg.count) bytes)\n\(output)")
        // OpenCV takes a frame itself when it opens the camera, so its reads start one later: consecutive frames of the
        // trace's loop, from whichever the first is.
        let viaOpenCV = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: opencv))) ?? Data())
        let size = frames[0].count
        let first = frames.firstIndex { Array(viaOpenCV.prefix(size)) == $0 }
        #expect(first != nil && viaOpenCV == (0..<3).flatMap { frames[(first! + $0) % 3] }, "OpenCV's frames differ from the trace's (\(viaOpenCV.count) bytes)\n\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// A camera channel as V4L2, seen with v4l2-ctl: the device and its one format, and three frames streamed with
    /// USERPTR and three with MMAP (buffers hal's preload maps from files hal-testbed fills), each equal to the trace's,
    /// byte for byte.
    @Test func v4l2CtlStreamsTheCameraWithUserPointersAndMMAP() async throws {
        let scratch = try makeScratchFolder()
        let (trace, frames) = try cameraTrace(in: scratch)
        let out = scratch + "/user.raw", mapped = scratch + "/mmap.raw"
        let script = """
            v4l2-ctl -d $HAL_DEVICE_CAM --all && v4l2-ctl -d /dev/video0 --list-formats-ext &&             v4l2-ctl -d /dev/video0 --stream-user --stream-count=3 --stream-to=\(out) &&             v4l2-ctl -d /dev/video0 --stream-mmap --stream-count=3 --stream-to=\(mapped)
            """
        let (status, output) = try await exec([trace, "--end", "30", "--", "/bin/sh", "-c", script], scratch: scratch)
        #expect(status == 0, "\(output)")
        let lines = programLines(output).map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("Driver name      : hal-sim") && lines.contains("Width/Height      : 64/48"), "\(output)")
        #expect(lines.contains("Pixel Format      : 'GREY' (8-bit Greyscale)"), "\(output)")
        #expect(lines.contains("Interval: Discrete 0.100s (10.000 fps)"), "\(output)")
        let streamed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(streamed == frames.flatMap { $0 }, "USERPTR frames differ from the trace's")
        let viaMMAP = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: mapped))) ?? Data())
        #expect(viaMMAP == frames.flatMap { $0 }, "MMAP frames differ from the trace's (\(viaMMAP.count) bytes)\n\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// Live devices (`sim:` devices paced in real time, as a board's would be) are recorded while the program reads
    /// them: evtest sees the touch channel's frames as the recording has them, and iio_readdev's scans are the
    /// recorded accelerometer readings, in order, within one step of the scale.
    @Test func liveDevicesAreServedAsTheyAreRecorded() async throws {
        let scratch = try makeScratchFolder()
        let recording = scratch + "/live.jsonl", events = scratch + "/evtest.txt", buffer = scratch + "/buffer.bin"
        // A still device, tapped 0.3 s in: the program waits for the tap's two frames (a state), not for a time.
        let script = scratch + "/tap.motion.json"
        try #"{"title": "a tap", "rate": 100, "steps": [{"hold": 0.3}, {"tap": {"x": 0.5, "y": 0.5, "seconds": 0.1}}, {"hold": 0.5}]}"#
            .write(toFile: script, atomically: true, encoding: .utf8)
        let (status, output) = try await exec(
            [
                "--live", "sim:\(script)?realtime#touch", "--live", "sim:\(script)?realtime#accel", "--record", recording, "--end", "60", "--",
                "/bin/sh", "-c", "iio_readdev -b 10 -s 20 iio:device0 > \(buffer); " + evtestUntil("/dev/input/event0", frames: 2, into: events),
            ], scratch: scratch)
        #expect(status == 0, "\(output)")
        #expect(output.contains("recorded ") && output.contains("readings into \(recording)"), "\(output)")
        let trace = try Trace.load(path: recording)
        let touch = try #require(trace.header.channelIndex(of: "touch")), accel = try #require(trace.header.channelIndex(of: "accel"))
        // evtest's events: a prefix, whole frames, of the recorded touch channel's frames.
        var encoder = InputDeviceEncoding.Encoder()
        let expected = trace.records.filter { $0.channel == touch }.flatMap { encoder.encode($0.reading) }.map { "\($0.type) \($0.code) \($0.value)" }
        let seen = evtestEvents(try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")).map(\.event)
        #expect(seen.filter { $0 == "0 0 0" }.count == 2 && seen.last == "0 0 0" && expected == seen, "\(seen) vs \(expected)")
        // The tap keeps its place in the script: live devices of one script are paced from the script's start.
        #expect(trace.records.first { $0.channel == touch }?.timestamp == Timestamp(nanoseconds: 300_000_000))
        // iio_readdev's scans (accel x, y, z as s16, padding to 8 bytes, the timestamp): the first 20 accelerometer
        // readings recorded.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: buffer)))
        let readings = trace.records.filter { $0.channel == accel }.compactMap { record -> Vector3? in
            if case .motion(let sample) = record.reading { return sample.value }
            return nil
        }
        #expect(bytes.count == 20 * 16 && readings.count >= 20, "\(bytes.count) bytes, \(readings.count) readings")
        for scan in 0..<min(20, bytes.count / 16, readings.count) {
            func int16(_ index: Int) -> Double { Double(Int16(bitPattern: UInt16(bytes[scan * 16 + 2 * index]) | UInt16(bytes[scan * 16 + 2 * index + 1]) << 8)) }
            let want = readings[scan]
            for (got, value) in zip([int16(0), int16(1), int16(2)], [want.x, want.y, want.z]) {
                #expect(abs(got * 0.002394202 - value) <= 0.002394202 / 2 + 1e-9, "scan \(scan): \(got) vs \(value)")
            }
        }
        try? FileManager.default.removeItem(atPath: scratch)
    }

    private func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
}
