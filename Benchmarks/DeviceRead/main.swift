// Cost per sample from the device read to the HAL sample a consumer gets: buffered IIO through the
// real libiio against an IMU umockdev emulates, and the evdev decode from input events to samples.
// `Benchmarks/devices` runs it beside a C loop doing the same work (the floor).
//
//   DeviceRead prepare DIR SCANS   write the emulated IMU's buffer script into DIR
//   DeviceRead iio COUNT           read COUNT gyro samples from iio:local/iio:device0 (buffered), one hand-off each
//   DeviceRead iio-blocks COUNT    the same samples a refill at a time (IIOMotionSensor.blocks)
//   DeviceRead decode FRAMES       decode FRAMES in-memory DualShock 4 accelerometer frames (no read)
import Foundation
import HAL
import InputEvents
import IIO
import ProgramDevices

let arguments = CommandLine.arguments

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("DeviceRead: \(message)\n".utf8))
    exit(2)
}

/// One IMU scan as the bmi160 fixture lays it out: x, y, z as little-endian s16, padding, s64 time.
func scan(_ index: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    for axis in [Int16(truncatingIfNeeded: index), Int16(truncatingIfNeeded: -index), 7] { bytes += withUnsafeBytes(of: axis.littleEndian, Array.init) }
    bytes += [0, 0]
    bytes += withUnsafeBytes(of: (Int64(1_000_000_000) + Int64(index) * 1_000_000).littleEndian, Array.init)
    return bytes
}

func prepare(folder: String, scans: Int) throws {
    var chunks: [[UInt8]] = []
    for start in stride(from: 0, to: scans, by: 1000) {
        chunks.append((start..<min(start + 1000, scans)).flatMap(scan))
    }
    try Data(UmockdevScript.reads(chunks)).write(to: URL(fileURLWithPath: folder + "/imu-buffer.script"))
}

/// This process's CPU time (every thread, user and system), in seconds.
func processCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Reads `count` samples and prints the reader's CPU time per sample from the first to the last.
/// CPU time, not wall time: umockdev feeds the emulated device at its own pace.
func measure<Source: ReadingSource>(_ name: String, _ source: Source, count: Int) async throws {
    var taken = 0
    var start: Double?
    for try await _ in source.readings(buffering: .unbounded) {
        if start == nil { start = processCPUTime() }
        taken += 1
        if taken == count { break }
    }
    guard let start, taken == count else { fail("\(name): the device gave \(taken) of \(count) samples") }
    let cpu = processCPUTime() - start
    print("\(name) swift: \(count) samples, \(String(format: "%.0f", cpu / Double(count - 1) * 1e9)) ns CPU/sample")
}

guard arguments.count >= 3 else { fail("usage: DeviceRead prepare DIR SCANS | iio COUNT | decode FRAMES") }
switch arguments[1] {
case "prepare":
    guard arguments.count == 4, let scans = Int(arguments[3]) else { fail("usage: DeviceRead prepare DIR SCANS") }
    try prepare(folder: arguments[2], scans: scans)
case "iio":
    guard let count = Int(arguments[2]) else { fail("COUNT is a number") }
    try await measure("iio", IIOMotionSensor(uri: DeviceURI("iio:local/iio:device0?samples=1000#anglvel")), count: count)
case "iio-blocks":
    guard let count = Int(arguments[2]) else { fail("COUNT is a number") }
    let sensor = try IIOMotionSensor(uri: DeviceURI("iio:local/iio:device0?samples=1000#anglvel"))
    var taken = 0
    var start: Double?
    var checksum = 0.0
    for try await block in sensor.blocks() {
        if start == nil { start = processCPUTime() }
        for sample in block { checksum += sample.value.x }
        taken += block.count
        if taken >= count { break }
    }
    guard let start, taken >= count else { fail("iio-blocks: the device gave \(taken) of \(count) samples") }
    let cpu = processCPUTime() - start
    print("iio-blocks swift: \(taken) samples, \(String(format: "%.0f", cpu / Double(taken - 1) * 1e9)) ns CPU/sample (checksum \(String(format: "%.3f", checksum)))")
case "decode":
    guard let frames = Int(arguments[2]) else { fail("FRAMES is a number") }
    let evemu = try String(contentsOfFile: "Tests/SensorsTests/Fixtures/ds4-motion-sensors.evemu", encoding: .utf8)
    let device = try EvemuRecording(text: evemu, file: "ds4-motion-sensors.evemu").device
    var events: [InputEvent] = []
    events.reserveCapacity(frames * 7)
    for index in 0..<frames {
        let time = Timestamp(nanoseconds: 1_000_000_000 + Int64(index) * 4_000_000)
        for code in 0..<6 { events.append(InputEvent(timestamp: time, type: InputCode.Event.absolute, code: UInt16(code), value: Int32(index % 1000 + code))) }
        events.append(InputEvent(timestamp: time, type: InputCode.Event.synchronization, code: InputCode.Sync.report, value: 0))
    }
    var best = Double.infinity
    var checksum = 0.0
    for _ in 0..<5 {
        var decoder = try InputDecoder(device: device, role: .accelerometer)
        var readings: [Reading] = []
        readings.reserveCapacity(4)
        let start = processCPUTime()
        for event in events {
            decoder.decode(event, into: &readings)
            if case .motion(let sample)? = readings.last { checksum += sample.value.x }
            readings.removeAll(keepingCapacity: true)
        }
        best = min(best, processCPUTime() - start)
    }
    print("evdev-decode swift: \(frames) samples, \(String(format: "%.1f", best / Double(frames) * 1e9)) ns CPU/sample (checksum \(String(format: "%.3f", checksum)))")
default:
    fail("unknown command \(arguments[1])")
}
