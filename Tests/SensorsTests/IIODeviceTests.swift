import Foundation
import HAL
import IIO
import TestSupport
import ProgramDevices
import Testing

/// The IIO backend through the real libiio, against IIO devices umockdev emulates from
/// Fixtures/*.umockdev (a bmi160-style IMU with a mount matrix, an hmc5883l magnetometer with
/// big-endian scan elements), locally and through a real iiod on loopback.
@Suite(.serialized)
struct IIODeviceTests {
    static let suite = "IIODeviceTests"
    static let imu = "\(packageRoot)/Tests/SensorsTests/Fixtures/bmi160-imu.umockdev"
    static let magnetometer = "\(packageRoot)/Tests/SensorsTests/Fixtures/hmc5883l-magnetometer.umockdev"
    /// The IMU's mount matrix, rows: (0, 1, 0; −1, 0, 0; 0, 0, 1).
    static func mounted(_ v: Vector3) -> Vector3 { Vector3(x: v.y, y: -v.x, z: v.z) }

    /// One scan: three 16-bit axes, two bytes of padding, a little-endian 64-bit timestamp.
    static func scan(_ x: Int16, _ y: Int16, _ z: Int16, time: Int64, bigEndianAxes: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        for axis in [x, y, z] {
            let value = bigEndianAxes ? axis.bigEndian : axis.littleEndian
            bytes += withUnsafeBytes(of: value, Array.init)
        }
        bytes += [0, 0]
        bytes += withUnsafeBytes(of: time.littleEndian, Array.init)
        return bytes
    }

    /// The scans the emulated buffer delivers: the gyro turning faster, 10 ms apart.
    static let scans: [(x: Int16, y: Int16, z: Int16, time: Int64)] = (0..<8).map { (index: Int) -> (x: Int16, y: Int16, z: Int16, time: Int64) in
        let time: Int64 = 5_000_000_000 + Int64(index) * 10_000_000
        return (x: Int16(100 * index), y: Int16(-3 * index), z: 7, time: time)
    }

    /// A testbed with `device`; its buffer node replays `scans` (one read each).
    static func testbed(_ device: String, node: String, scans: [[UInt8]], scratch: String) throws -> Umockdev.Testbed {
        let script = scratch + "/buffer.script"
        try Data(UmockdevScript.reads(scans)).write(to: URL(fileURLWithPath: script))
        var testbed = Umockdev.Testbed()
        testbed.devices = [device]
        testbed.scripts = [(node, script)]
        return testbed
    }

    static func imuTestbed(scratch: String) throws -> Umockdev.Testbed {
        try testbed(imu, node: "/dev/iio:device0", scans: scans.map { scan($0.x, $0.y, $0.z, time: $0.time) }, scratch: scratch)
    }

    static func sysfs(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test func polledReadsAreScaledRotatedAndStampedAtTheRate() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.imuTestbed(scratch: scratch), scratch: scratch, suite: Self.suite) {
            let gyro = try makeFactory().open("iio:local/iio:device0?mode=polled&rate=200#anglvel", as: (any MotionSensor).self)
            #expect(gyro.info.name == "bmi160")
            #expect(gyro.info.kind == .gyroscope)
            #expect(gyro.info.rate == 200)
            #expect(try Self.sysfs("/sys/bus/iio/devices/iio:device0/in_anglvel_sampling_frequency").hasPrefix("200"))
            #expect(gyro.info.resolution == 0.001065)
            #expect(gyro.info.range == 0.001065 * 32768)
            #expect(gyro.info.capabilities == ["anglvel", "accel"])
            let samples = try await collect(gyro.readings(buffering: .unbounded), count: 5)
            #expect(samples.count == 5)
            let expected = Self.mounted(Vector3(x: 100 * 0.001065, y: -200 * 0.001065, z: 300 * 0.001065))
            for sample in samples { #expect(sample.value == expected && sample.quantity == .angularVelocity) }
            #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
            let accel = try makeFactory().open("iio:local/iio:device0?mode=polled#accel", as: (any MotionSensor).self)
            let first = try await collect(accel.readings(buffering: .unbounded), count: 1)
            #expect(first.first?.value == Self.mounted(Vector3(x: -120 * 0.000598, y: 16390 * 0.000598, z: 305 * 0.000598)))
        }
    }

    @Test func bufferedReadsUseTheScanElementsTriggerAndKernelTimestamps() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.imuTestbed(scratch: scratch), scratch: scratch, suite: Self.suite) {
            let gyro = try makeFactory().open("iio:local/iio:device0#anglvel", as: (any MotionSensor).self)
            let device = "/sys/bus/iio/devices/iio:device0"
            // The scan elements as the open buffer has them: libiio disables them all when the buffer closes.
            let samples = try await collect(gyro.readings(buffering: .unbounded), count: Self.scans.count) { () throws in
                #expect(try Self.sysfs("\(device)/scan_elements/in_anglvel_x_en").hasPrefix("1"))
                #expect(try Self.sysfs("\(device)/scan_elements/in_accel_x_en").hasPrefix("0"))
            }
            #expect(samples == Self.scans.map { scan in
                MotionSample(
                    timestamp: Timestamp(nanoseconds: scan.time), quantity: .angularVelocity,
                    value: Self.mounted(Vector3(x: Double(scan.x) * 0.001065, y: Double(scan.y) * 0.001065, z: Double(scan.z) * 0.001065)))
            })
            #expect(try Self.sysfs("\(device)/current_timestamp_clock").hasPrefix("monotonic"))
            #expect(try Self.sysfs("\(device)/trigger/current_trigger").hasPrefix("bmi160-dev0"))
        }
    }

    @Test func blocksHandOverEachRefillsScansAsOneElement() async throws {
        let scratch = try Umockdev.testScratchFolder()
        // The buffer gives four scans a read; the reader asks for four a refill.
        let scans = Self.scans.map { Self.scan($0.x, $0.y, $0.z, time: $0.time) }
        var testbed = try Self.testbed(Self.imu, node: "/dev/iio:device0", scans: [], scratch: scratch)
        try Data(UmockdevScript.reads([Array(scans[0..<4].joined()), Array(scans[4..<8].joined())]))
            .write(to: URL(fileURLWithPath: testbed.scripts[0].file))
        testbed.scripts = [testbed.scripts[0]]
        try await Umockdev.run(testbed, scratch: scratch, suite: Self.suite) {
            let gyro = try IIOMotionSensor(uri: DeviceURI("iio:local/iio:device0?samples=4#anglvel"))
            let blocks = try await collect(gyro.blocks(), count: 2)
            #expect(blocks.map(\.count) == [4, 4])
            #expect(blocks.flatMap { $0 } == Self.scans.map { scan in
                MotionSample(
                    timestamp: Timestamp(nanoseconds: scan.time), quantity: .angularVelocity,
                    value: Self.mounted(Vector3(x: Double(scan.x) * 0.001065, y: Double(scan.y) * 0.001065, z: Double(scan.z) * 0.001065)))
            })
        }
    }

    @Test func bigEndianScanElementsOfAMagnetometerBecomeMicrotesla() async throws {
        let scratch = try Umockdev.testScratchFolder()
        let scans = [Self.scan(-214, 55, -480, time: 7_000_000_000, bigEndianAxes: true), Self.scan(300, -1, 0, time: 7_066_666_666, bigEndianAxes: true)]
        try await Umockdev.run(
            Self.testbed(Self.magnetometer, node: "/dev/iio:device1", scans: scans, scratch: scratch), scratch: scratch, suite: Self.suite
        ) {
            let magnetometer = try makeFactory().open("iio:local/hmc5883l", as: (any MotionSensor).self)
            #expect(magnetometer.info.kind == .magnetometer && magnetometer.info.rate == 15)
            let samples = try await collect(magnetometer.readings(buffering: .unbounded), count: 2)
            let scale = 0.000917431 * 100
            #expect(samples.map(\.value) == [
                Vector3(x: -214 * scale, y: 55 * scale, z: -480 * scale), Vector3(x: 300 * scale, y: -1 * scale, z: 0),
            ])
            #expect(samples.map(\.timestamp.nanoseconds) == [7_000_000_000, 7_066_666_666])
        }
    }

    /// Removes the IMU from the emulated sysfs, as unbinding its driver does.
    ///
    /// libiio reaches the device's attributes through the `/sys/bus/iio/devices` link, opening the file at every read,
    /// so the link goes first, in one `rename`: from that instant every read of the device fails, whichever file a
    /// reader's thread is at. (Removing the device's folder first took its files one at a time, and a reader could
    /// still read the ones not yet removed.)
    static func unplugIMU() throws {
        guard let root = Umockdev.testbedRoot else { return }
        let link = root + "/sys/bus/iio/devices/iio:device0", unplugged = root + "/unplugged-iio:device0"
        guard rename(link, unplugged) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        try FileManager.default.removeItem(atPath: unplugged)
        try FileManager.default.removeItem(atPath: root + "/sys/devices/platform/soc/i2c-1/1-0068/iio:device0")
    }

    /// Reads until the stream ends, unplugging the device once `after` samples came. Returns the samples, the span of
    /// `CLOCK_MONOTONIC` (the polled samples' clock) during which the unplug happened, and the error that ended the
    /// stream.
    static func readUntilUnplugged(
        _ uri: String, after: Int
    ) async throws -> (samples: [MotionSample], unplugged: ClosedRange<Timestamp>?, ending: DeviceError?) {
        let sensor = try makeFactory().open(uri, as: (any MotionSensor).self)
        var samples: [MotionSample] = []
        var unplugged: ClosedRange<Timestamp>?
        do {
            for try await sample in sensor.readings(buffering: .unbounded) {
                samples.append(sample)
                if samples.count == after {
                    let start = MonotonicClock.now
                    try unplugIMU()
                    unplugged = start...MonotonicClock.now
                }
            }
        } catch let error as DeviceError {
            return (samples, unplugged, error)
        }
        return (samples, unplugged, nil)
    }

    @Test func aBufferedDeviceThatDisappearsEndsTheStreamAsDisconnected() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.imuTestbed(scratch: scratch), scratch: scratch, suite: Self.suite) {
            let (samples, _, ending) = try await Self.readUntilUnplugged("iio:local/iio:device0#anglvel", after: 3)
            // The scans already in the buffer still arrive; then the device is found gone.
            #expect(samples.count == Self.scans.count)
            #expect(ending?.code == .disconnected)
            #expect(ending?.message == "the device went away (its sysfs entry is gone)")
        }
    }

    /// The polled reader's thread reads the three axes' `in_anglvel_*_raw` at the rate and stamps each sample when its
    /// reads are done, however far behind the consumer is: when the test unplugs the device after its third sample, the
    /// thread may have read any number more. What the design guarantees, and all this test counts: every sample read
    /// before the unplug arrives, whole; at most one read was under way across the unplug (its files opened before,
    /// its stamp taken after); the next read finds the files gone, and the stream ends as disconnected.
    @Test func aPolledDeviceThatDisappearsEndsTheStreamAsDisconnected() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.imuTestbed(scratch: scratch), scratch: scratch, suite: Self.suite) {
            let (samples, unplugged, ending) = try await Self.readUntilUnplugged(
                "iio:local/iio:device0?mode=polled&rate=100#anglvel", after: 3)
            let unplug = try #require(unplugged, "the stream ended before its third sample: \(String(describing: ending))")
            #expect(samples.count >= 3)
            let stamps = samples.map(\.timestamp)
            #expect(stamps.filter { $0 > unplug.upperBound }.count <= 1, "read after the unplug: \(stamps), unplugged during \(unplug)")
            #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })
            let expected = Self.mounted(Vector3(x: 100 * 0.001065, y: -200 * 0.001065, z: 300 * 0.001065))
            #expect(samples.allSatisfy { $0.value == expected && $0.quantity == .angularVelocity })
            #expect(ending?.code == .disconnected, "\(String(describing: ending))")
        }
    }

    @Test func badURIsSayWhatIsWrong() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.imuTestbed(scratch: scratch), scratch: scratch, suite: Self.suite) {
            func message(_ uri: String) -> String? {
                do { _ = try makeFactory().open(uri); return nil } catch { return (error as? DeviceError)?.message }
            }
            #expect(message("iio:local/iio:device0") == "the device has anglvel, accel channels: name one with #TYPE")
            #expect(message("iio:local/iio:device9#anglvel") == "no IIO device 'iio:device9' in local: (found: iio:device0 (bmi160))")
            #expect(message("iio:local/iio:device0#magn") == "no 'magn' channels (has: anglvel, accel)")
            #expect(message("iio:local/iio:device0?mode=fast#accel") == "mode=fast: use polled or buffered")
            #expect(message("iio:local/iio:device0?rate=-1#accel") == "rate=-1 is not a positive rate in Hz")
            #expect(message("iio:local/iio:device0?speed=1#accel") == "unknown option 'speed' (known: mode, rate, trigger, samples)")
            #expect(message("iio:iio:device0") == "an IIO device is iio:local/DEVICE or iio:ip:HOST[:PORT]/DEVICE")
            let discovered = try IIOBackend().discover()
            #expect(discovered.map(\.uri) == ["iio:local/iio:device0#anglvel", "iio:local/iio:device0#accel"])
        }
    }
}
