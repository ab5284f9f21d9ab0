import TraceMCAP
import Foundation
import HAL
import TraceFormat
import TestSupport
import Testing

/// ROS 2 recordings in MCAP, written by the field's own tools (Fixtures/ros2_bag.py: `rosbags` and
/// `mcap-ros2-support`), read as traces: every command that loads a trace reads them, and `hal convert` turns them
/// into JSON Lines.
@Suite struct ROS2ImportTests {
    /// MCAP traces are read through the registered container, as `hal` registers it.
    init() { TraceContainers.register(MCAPTraceContainer()) }

    static let script = packageRoot + "/Tests/SimulationTests/Fixtures/ros2_bag.py"
    static let png = packageRoot + "/traces/fieldguide/frames/cam-00.png"
    static let start: Int64 = 1_700_000_000_000_000_000

    /// Writes a recording with the script and returns the .mcap file's path.
    static func bag(_ arguments: [String]) async throws -> String {
        let run = try await runProcess("/usr/bin/env", ["python3", script] + arguments, timeout: 120)
        try #require(run.status == 0, "ros2_bag.py \(arguments.joined(separator: " ")): \(run.output)")
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func rosbagsBag() async throws -> String {
        try await bag(["rosbags", try makeScratchFolder() + "/walk", png])
    }

    static func records(_ trace: Trace, _ id: String) throws -> [Reading] {
        let index = try #require(trace.header.channelIndex(of: id), "no channel \(id) in \(trace.header.channels.map(\.id))")
        return trace.records.filter { $0.channel == index }.map(\.reading)
    }

    @Test func sensorTopicsBecomeChannelsWithTheirUnitsAndFrames() async throws {
        let trace = try Trace.load(path: try await Self.rosbagsBag())
        #expect(trace.truncation == nil)
        let channels = trace.header.channels
        #expect(channels.map(\.id) == [
            "imu.data.attitude", "imu.data.gyro", "imu.data.accel", "imu.data_raw.gyro", "imu.data_raw.accel", "imu.mag",
            "gps.fix", "camera.image_raw", "camera.image.compressed",
        ])
        #expect(channels.map(\.kind) == [.attitude, .gyroscope, .accelerometer, .gyroscope, .accelerometer, .magnetometer, .location, .camera, .camera])
        #expect(channels[0].frame == .enu && channels[1].name == "imu_link" && channels[1].source == "ros2:/imu/data")
        #expect(channels.allSatisfy { $0.backend == "ros2" })

        // Imu: rad/s and m/s² as they are, the orientation as an ENU attitude, stamped by the header.
        let gyro = try Self.records(trace, "imu.data.gyro")
        #expect(gyro.count == 20)
        for (index, reading) in gyro.enumerated() {
            guard case .motion(let sample) = reading else { Issue.record("not motion: \(reading)"); continue }
            #expect(sample.timestamp.nanoseconds == Self.start + Int64(index) * 10_000_000)
            #expect(sample.quantity == .angularVelocity && sample.value == Vector3(x: 0.01 * Double(index), y: -0.02, z: 1.0))
        }
        guard case .motion(let acceleration) = try Self.records(trace, "imu.data.accel")[3] else { throw Unexpected() }
        #expect(acceleration.quantity == .acceleration && acceleration.value == Vector3(x: 0.1, y: 0.2, z: 9.81))
        guard case .attitude(let attitude) = try Self.records(trace, "imu.data.attitude")[10] else { throw Unexpected() }
        #expect(abs(attitude.quaternion.w - cos(0.05)) < 1e-12 && abs(attitude.quaternion.z - sin(0.05)) < 1e-12)
        #expect(attitude.frame == .enu)
        // The raw IMU says it has no orientation (covariance[0] = −1): no attitude channel.
        #expect(trace.header.channelIndex(of: "imu.data_raw.attitude") == nil)
        guard case .motion(let raw) = try Self.records(trace, "imu.data_raw.gyro")[0] else { throw Unexpected() }
        #expect(raw.timestamp.nanoseconds == Self.start + 1)

        // MagneticField: tesla to µT.
        let magnetic = try Self.records(trace, "imu.mag")
        #expect(magnetic.count == 10)
        guard case .motion(let field) = magnetic[0] else { throw Unexpected() }
        #expect(field.quantity == .magneticField)
        #expect(abs(field.value.x - 22) < 1e-9 && abs(field.value.y - 5) < 1e-9 && abs(field.value.z + 41) < 1e-9)

        // NavSatFix: a 3D fix with accuracies from the covariance, a lost fix, and a fix with no altitude.
        let fixes = try Self.records(trace, "gps.fix").compactMap { reading -> LocationFix? in
            if case .location(let fix) = reading { return fix } else { return nil }
        }
        #expect(fixes.map(\.mode) == [.threeDimensional, .threeDimensional, .none, .twoDimensional])
        #expect(fixes[0].coordinate == GeoCoordinate(latitude: 49.2606, longitude: -123.2460) && fixes[0].altitude == 80.5)
        #expect(fixes[0].horizontalAccuracy == (6.5 as Double).squareRoot() && fixes[0].verticalAccuracy == 4)
        #expect(fixes[0].utcNanoseconds == Self.start && fixes[2].coordinate == nil)
        #expect(fixes[3].altitude == nil && fixes[3].verticalAccuracy == nil)

        // Image and CompressedImage: pixels in memory; a compressed image's size from its own header.
        guard case .frame(let raw8) = try Self.records(trace, "camera.image_raw")[0] else { throw Unexpected() }
        #expect(raw8.width == 4 && raw8.height == 3 && raw8.pixelFormat == .rgb24 && raw8.bytesPerRow == 12)
        #expect(raw8.storage == .bytes((0..<36).map(UInt8.init)))
        let compressed = try Self.records(trace, "camera.image.compressed").compactMap { reading -> Frame? in
            if case .frame(let frame) = reading { return frame } else { return nil }
        }
        #expect(compressed.map(\.pixelFormat) == [.png, .mjpeg] && compressed.map(\.sequence) == [0, 1])
        #expect(compressed[0].width == 160 && compressed[0].height == 120)
        #expect(compressed[0].storage == .bytes(Array(try Data(contentsOf: URL(fileURLWithPath: Self.png)))))
        #expect(compressed[1].width == 320 && compressed[1].height == 240)

        // The topics with no HAL kind are listed, not fatal; records are in time order.
        #expect(trace.header.metadata["ros2.skipped"] == "/chatter (std_msgs/msg/String): 20 messages, no HAL kind for this type; "
            + "/odom_rate (std_msgs/msg/Float64): 1 message, no HAL kind for this type; "
            + "/camera/rgba (sensor_msgs/msg/Image): 2 messages, its image encoding 'bgra8' has no HAL pixel format (rgb8, bgr8, mono8 and yuv422_yuy2 do)")
        #expect(trace.header.metadata["mcap.profile"] == "ros2")
        #expect(zip(trace.records, trace.records.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
        #expect(trace.records.count == 117)
    }

    @Test func aFileFromMcapRos2SupportReadsToo() async throws {
        let trace = try Trace.load(path: try await Self.bag(["mcap-ros2", try makeScratchFolder() + "/imu.mcap"]))
        #expect(trace.header.channels.map(\.id) == ["imu.attitude", "imu.gyro", "imu.accel"])
        let gyro = try Self.records(trace, "imu.gyro")
        #expect(gyro.count == 50)
        guard case .motion(let last) = gyro[49] else { throw Unexpected() }
        #expect(last.timestamp.nanoseconds == Self.start + 49 * 5_000_000 && last.value == Vector3(x: 0, y: 0, z: 0.049))
        #expect(trace.header.metadata["mcap.library"]?.contains("mcap-ros2-support") == true)
    }

    @Test func halConvertWritesJSONLinesWithTheFramesBesideIt() async throws {
        let bag = try await Self.rosbagsBag()
        let folder = try makeScratchFolder()
        let output = folder + "/walk.jsonl"
        let run = try await runProcess(halExecutable, ["convert", bag, output], timeout: 60)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("walk.jsonl: 117 records on 9 channels"))
        #expect(run.output.contains("skipped (no HAL kind): /chatter (std_msgs/msg/String): 20 messages"))
        let converted = try Trace.load(path: output)
        let original = try Trace.load(path: bag)
        #expect(converted.header.channels == original.header.channels)
        #expect(converted.records.count == 117 && converted.records.map(\.timestamp) == original.records.map(\.timestamp))
        let frames = try FileManager.default.contentsOfDirectory(atPath: folder + "/walk.frames").sorted()
        #expect(frames == ["camera.image.compressed-0.png", "camera.image.compressed-1.jpg", "camera.image_raw-0.raw"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/walk.frames/camera.image.compressed-0.png")) == Data(contentsOf: URL(fileURLWithPath: Self.png)))
        // Converting the JSON Lines again gives the same bytes.
        let again = folder + "/again/walk.jsonl"
        try FileManager.default.createDirectory(atPath: folder + "/again", withIntermediateDirectories: true)
        let second = try await runProcess(halExecutable, ["convert", output, again], timeout: 60)
        #expect(second.status == 0, "\(second.output)")
        let first = try String(contentsOfFile: output, encoding: .utf8)
        let rewritten = try String(contentsOfFile: again, encoding: .utf8)
        #expect(rewritten.replacingOccurrences(of: "\"file\":\"walk.frames/", with: "") == first.replacingOccurrences(of: "\"file\":\"walk.frames/", with: ""))
        // hal replay reads it directly; as JSON Lines only once converted, since its images are in memory.
        let replay = try await runProcess(halExecutable, ["replay", bag], timeout: 60)
        #expect(replay.status == 0 && replay.output.components(separatedBy: "\n").filter { !$0.isEmpty }.count == 117, "\(replay.output)")
        let jsonl = try await runProcess(halExecutable, ["replay", "--jsonl", bag], timeout: 60)
        #expect(jsonl.status != 0 && jsonl.output.contains("frames are in memory, not in files: `hal convert` it"), "\(jsonl.output)")
        // hal info reads the bag directly.
        let info = try await runProcess(halExecutable, ["info", bag], timeout: 60)
        #expect(info.status == 0 && info.output.contains("  imu.data.attitude       attitude "), "\(info.output)")
    }

    @Test func aRecordingCutShortKeepsItsRecordsAndSaysWhere() async throws {
        let bag = try await Self.rosbagsBag()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: bag))
        // rosbags writes every message in one chunk, then the summary: cut inside the summary.
        let cut = try makeScratchFolder() + "/cut.mcap"
        try bytes.prefix(bytes.count - 1_000).write(to: URL(fileURLWithPath: cut))
        let trace = try Trace.load(path: cut)
        #expect(trace.records.count == 117)
        let truncation = try #require(trace.truncation, "no truncation reported")
        #expect(truncation.kind == .badContainer && truncation.file == cut)
        #expect(truncation.message.hasPrefix("byte ") && truncation.message.contains("cut short"))
        // Cut inside the chunk: nothing readable before it, and the error names the chunk.
        try bytes.prefix(2_000).write(to: URL(fileURLWithPath: cut))
        let early = try Trace.load(path: cut)
        #expect(early.records.isEmpty)
        #expect(early.truncation?.message.contains("Chunk record") == true)
        let convert = try await runProcess(halExecutable, ["convert", cut, cut + ".jsonl"], timeout: 60)
        #expect(convert.status == 1 && convert.output.contains("error: \(cut): byte "))
    }

    /// An image whose height and row length multiply past 64 bits is refused, naming the field, not trapped on.
    @Test func anImpossibleImageSizeIsAClearError() async throws {
        let trace = try Trace.load(path: try await Self.bag(["huge-image", try makeScratchFolder() + "/huge.mcap"]))
        #expect(trace.records.isEmpty)
        #expect(trace.truncation?.field == "width")
        #expect(trace.truncation?.message.contains("/cam (sensor_msgs/msg/Image), message 1") == true, "\(String(describing: trace.truncation))")
    }

    @Test func anMCAPFileThatIsNotAROS2RecordingIsNamedAsSuch() throws {
        let path = try makeScratchFolder() + "/other.mcap"
        // The MCAP magic, a header with another profile, a channel with JSON messages: not ROS 2.
        var bytes: [UInt8] = [0x89, 0x4D, 0x43, 0x41, 0x50, 0x30, 0x0D, 0x0A]
        func record(_ opcode: UInt8, _ content: [UInt8]) {
            bytes.append(opcode)
            withUnsafeBytes(of: UInt64(content.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes += content
        }
        func string(_ text: String) -> [UInt8] { withUnsafeBytes(of: UInt32(text.utf8.count).littleEndian, Array.init) + Array(text.utf8) }
        record(0x01, string("") + string("test"))
        record(0x04, [1, 0, 0, 0] + string("/x") + string("json") + [0, 0, 0, 0])
        record(0x0F, [0, 0, 0, 0])
        record(0x02, [UInt8](repeating: 0, count: 20))
        bytes += [0x89, 0x4D, 0x43, 0x41, 0x50, 0x30, 0x0D, 0x0A]
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: TraceError.self) { try Trace.load(path: path) }
        #expect(error?.message.hasPrefix("an MCAP file, but neither a HAL trace (profile 'hal'), a ROS 2 recording") == true, "\(String(describing: error))")
    }

    struct Unexpected: Error {}
}
