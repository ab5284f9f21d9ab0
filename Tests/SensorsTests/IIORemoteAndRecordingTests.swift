import Foundation
import HAL
import Replay
import TraceFormat
import TestSupport
import Testing

/// What crosses process boundaries: a real iiod serving an emulated IMU on loopback, `hal record`
/// of an emulated IMU, and the permission errors of devices this user may not open.
@Suite(.serialized)
struct IIORemoteAndRecordingTests {

    /// The samples the emulated IMU's buffer gives, as the HAL should deliver them.
    static var expectedGyro: [MotionSample] {
        IIODeviceTests.scans.map { scan in
            MotionSample(
                timestamp: Timestamp(nanoseconds: scan.time), quantity: .angularVelocity,
                value: IIODeviceTests.mounted(Vector3(x: Double(scan.x) * 0.001065, y: Double(scan.y) * 0.001065, z: Double(scan.z) * 0.001065)))
        }
    }

    @Test func aRemoteBoardThroughIiodDeliversTheSameSamplesAndItsLossEndsTheStream() async throws {
        let scratch = try makeScratchFolder()
        let testbed = try IIODeviceTests.imuTestbed(scratch: scratch)
        let server = try await IiodServer(testbed: testbed, scratch: scratch)
        defer { server.stop() }
        let port = server.port

        let gyro = try makeFactory().open("iio:ip:127.0.0.1:\(port)/iio:device0#anglvel", as: (any MotionSensor).self)
        #expect(gyro.info.name == "bmi160" && gyro.info.rate == 100 && gyro.info.resolution == 0.001065)
        var samples: [MotionSample] = []
        var ending: DeviceError?
        do {
            for try await sample in gyro.readings(buffering: .unbounded) {
                samples.append(sample)
                if samples.count == Self.expectedGyro.count {
                    // The board goes away: iiod dies.
                    server.kill()
                }
            }
        } catch let error as DeviceError {
            ending = error
        }
        #expect(samples == Self.expectedGyro)
        #expect(ending?.code == .disconnected, "\(String(describing: ending))")
    }

    @Test func halRecordOfAnEmulatedIMUReplaysTheSameSamples() async throws {
        let scratch = try makeScratchFolder()
        let testbed = try IIODeviceTests.imuTestbed(scratch: scratch)
        let trace = scratch + "/imu.jsonl"
        let (status, output) = try await recordUnderUmockdev(
            testbed, uri: "iio:local/iio:device0#anglvel", into: trace, records: Self.expectedGyro.count, scratch: scratch)
        try #require(status == 0, "\(output)")
        let recorded = try Trace.load(path: trace)
        let channel = try #require(recorded.header.channels.first)
        #expect(channel.id == "anglvel" && channel.kind == .gyroscope && channel.source == "iio:local/iio:device0#anglvel")
        #expect(channel.name == "bmi160" && channel.backend == "iio" && channel.rate == 100)
        #expect(channel.resolution == 0.001065 && channel.range == 0.001065 * 32768)

        let replayed = try DeviceFactory(backends: [TraceBackend()]).open("trace:\(trace)#anglvel", as: (any MotionSensor).self)
        var samples: [MotionSample] = []
        for try await sample in replayed.readings(buffering: .unbounded) { samples.append(sample) }
        #expect(samples == Self.expectedGyro)
    }

    @Test func aDeviceThisUserMayNotOpenSaysWhichGroupIsMissing() throws {
        let scratch = try makeScratchFolder()
        chmod(scratch, 0o755)
        let node = scratch + "/event3"
        try Data().write(to: URL(fileURLWithPath: node))
        chmod(node, 0o600)
        let (status, output) = try runProcess(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", halExecutable, "record", "--out", scratch + "/x.jsonl", "evdev:\(node)"],
            timeout: 30)
        #expect(status != 0)
        #expect(output.contains("evdev:\(node): cannot open \(node): Permission denied; add the user to the 'input' group"), "\(output)")
    }
}
