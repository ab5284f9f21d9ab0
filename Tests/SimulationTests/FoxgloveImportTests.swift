import TraceMCAP
import MCAP
import Foundation
import HAL
import TraceFormat
import TestSupport
import Testing

/// Recordings made with Foxglove's own SDK (Fixtures/foxglove_recording.py, PyPI `foxglove-sdk`), in Foxglove's
/// schemas in protobuf and JSON, read as traces by every command that loads one.
@Suite struct FoxgloveImportTests {
    /// MCAP traces are read through the registered container, as `hal` registers it.
    init() { TraceContainers.register(MCAPTraceContainer()) }

    static let script = packageRoot + "/Tests/SimulationTests/Fixtures/foxglove_recording.py"
    static let png = packageRoot + "/traces/fieldguide/frames/cam-00.png"
    static let start: Int64 = 1_700_000_000_000_000_000

    /// Writes the recording with Foxglove's SDK and returns its path.
    static func recording() async throws -> String {
        let path = try makeScratchFolder() + "/foxglove.mcap"
        let run = try await runProcess("/usr/bin/env", ["python3", script, path, png], timeout: 120)
        try #require(run.status == 0, "foxglove_recording.py: \(run.output)")
        return path
    }

    static func records(_ trace: Trace, _ id: String) throws -> [Reading] {
        let index = try #require(trace.header.channelIndex(of: id), "no channel \(id) in \(trace.header.channels.map(\.id))")
        return trace.records.filter { $0.channel == index }.map(\.reading)
    }

    static func fixes(_ trace: Trace, _ id: String) throws -> [LocationFix] {
        try records(trace, id).compactMap { if case .location(let fix) = $0 { fix } else { nil } }
    }

    @Test func foxgloveSchemasInProtobufAndJSONBecomeChannels() async throws {
        let trace = try Trace.load(path: try await Self.recording())
        #expect(trace.truncation == nil)
        let channels = trace.header.channels
        #expect(channels.map(\.id) == ["gps.fix", "gps_json", "camera.raw", "camera_json", "pose", "pose_ned", "camera.compressed", "log", "log_json"])
        #expect(channels.map(\.kind) == [.location, .location, .camera, .camera, .attitude, .attitude, .camera, .app, .app])
        #expect(channels[0].source == "foxglove:/gps/fix" && channels[0].name == "antenna" && channels[0].backend == "foxglove")

        // LocationFix: a 3D fix with its accuracies from the covariance, a lost fix (NaN), a fix with no altitude.
        let fixes = try Self.fixes(trace, "gps.fix")
        #expect(fixes.map(\.mode) == [.threeDimensional, .threeDimensional, .none, .twoDimensional])
        #expect(fixes[0].coordinate == GeoCoordinate(latitude: 49.2606, longitude: -123.2460) && fixes[0].altitude == 80.5)
        #expect(fixes[0].horizontalAccuracy == (6.5 as Double).squareRoot() && fixes[0].verticalAccuracy == 4)
        #expect(fixes[0].utcNanoseconds == Self.start && fixes[2].coordinate == nil)
        #expect(fixes[3].coordinate == GeoCoordinate(latitude: 49.2608, longitude: -123.2458) && fixes[3].altitude == nil)
        // The same fixes in JSON read the same.
        let json = try Self.fixes(trace, "gps_json")
        #expect(json.count == 4 && json[0] == fixes[0] && json[1] == fixes[1])

        // RawImage (protobuf and JSON with base64 pixels) and CompressedImage; frames numbered per channel.
        let raw = try Self.records(trace, "camera.raw").compactMap { if case .frame(let frame) = $0 { frame } else { nil } }
        #expect(raw.map(\.sequence) == [0, 1, 2, 3])
        #expect(raw[1].width == 4 && raw[1].height == 3 && raw[1].pixelFormat == .rgb24 && raw[1].bytesPerRow == 12)
        #expect(raw[1].storage == .bytes((1..<37).map(UInt8.init)) && raw[1].timestamp.nanoseconds == Self.start + 100_000_000)
        guard case .frame(let mono) = try Self.records(trace, "camera_json")[2] else { throw Unexpected() }
        #expect(mono.pixelFormat == .grey && mono.width == 2 && mono.storage == .bytes([2, 1, 2, 3]))
        guard case .frame(let picture) = try Self.records(trace, "camera.compressed")[0] else { throw Unexpected() }
        #expect(picture.pixelFormat == .png && picture.width == 160 && picture.height == 120)
        #expect(picture.storage == .bytes(Array(try Data(contentsOf: URL(fileURLWithPath: Self.png)))))

        // PoseInFrame: the orientation normalised, in ENU for a 'map' frame and in the frame an earth frame's name gives.
        let poses = try Self.records(trace, "pose").compactMap { if case .attitude(let sample) = $0 { sample } else { nil } }
        #expect(poses.count == 4 && poses.allSatisfy { $0.frame == .enu } && channels[4].frame == .enu && channels[4].name == "map")
        #expect(abs(poses[2].quaternion.w - cos(0.1)) < 1e-12 && abs(poses[2].quaternion.z - sin(0.1)) < 1e-12)
        #expect(poses[0].quaternion == Quaternion(w: 1, x: 0, y: 0, z: 0))
        #expect(channels[5].frame == .ned)

        // Log: app events named by level, the log time standing in for a missing timestamp.
        let events = try Self.records(trace, "log").compactMap { if case .appEvent(let event) = $0 { event } else { nil } }
        #expect(events.map(\.name) == ["log.info", "log.error"])
        #expect(events[0].attributes == ["message": .string("arrived at the library"), "logger": .string("guide"), "file": .string("guide.py"), "line": .int(42)])
        #expect(events[1].timestamp.nanoseconds == Self.start + 250_000_000 && events[1].attributes["message"] == .string("lost the fix"))
        guard case .appEvent(let warning) = try Self.records(trace, "log_json")[0] else { throw Unexpected() }
        #expect(warning.name == "log.warning" && warning.attributes["logger"] == .string("power"))

        // Schemas with no HAL meaning are listed, not fatal; records are in time order.
        #expect(trace.header.metadata["foxglove.skipped"] == "/camera/rgba (foxglove.RawImage): 4 messages, its image encoding 'bgra8' has no HAL pixel format (rgb8, bgr8, mono8 and yuv422_yuy2 do); "
            + "/scene (foxglove.SceneUpdate): 4 messages, no HAL kind for this type")
        #expect(trace.header.metadata["mcap.library"]?.hasPrefix("foxglove-sdk-python") == true)
        #expect(zip(trace.records, trace.records.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
        #expect(trace.records.count == 28)
    }

    /// `hal info`, `hal replay` and `hal plot` read a Foxglove recording directly, and `hal convert` makes it a JSON
    /// Lines trace that reads back the same.
    @Test func everyCommandReadsAFoxgloveRecording() async throws {
        let recording = try await Self.recording()
        let info = try await runProcess(halExecutable, ["info", recording], timeout: 60)
        #expect(info.status == 0 && info.output.contains("  gps.fix ") && info.output.contains("foxglove.skipped"), "\(info.output)")
        let replay = try await runProcess(halExecutable, ["replay", recording], timeout: 60)
        #expect(replay.status == 0 && replay.output.split(separator: "\n").count == 28, "\(replay.output)")
        let folder = try makeScratchFolder()
        let plot = try await runProcess(halExecutable, ["plot", recording, "-o", folder + "/plot.svg"], timeout: 60)
        #expect(plot.status == 0, "\(plot.output)")
        let svg = try String(contentsOfFile: folder + "/plot.svg", encoding: .utf8)
        #expect(svg.contains("<svg") && svg.contains("gps.fix"), "\(svg.prefix(400))")
        let convert = try await runProcess(halExecutable, ["convert", recording, folder + "/rec.jsonl"], timeout: 60)
        #expect(convert.status == 0 && convert.output.contains("skipped (no HAL kind): /camera/rgba (foxglove.RawImage)"), "\(convert.output)")
        let converted = try Trace.load(path: folder + "/rec.jsonl")
        let original = try Trace.load(path: recording)
        #expect(converted.header.channels == original.header.channels)
        #expect(converted.records.map(\.timestamp) == original.records.map(\.timestamp))
        #expect(try Self.fixes(converted, "gps.fix") == Self.fixes(original, "gps.fix"))
    }

    /// A message that does not decode stops the import there, naming the topic, the message and the field.
    @Test func aBadMessageNamesItsField() throws {
        func recording(encoding: String, schema name: String = "foxglove.LocationFix", _ messages: [[UInt8]]) throws -> Trace {
            let writer = MCAPWriter()
            let schema = try writer.addSchema(name: name, encoding: encoding == "json" ? "jsonschema" : "protobuf", data: [])
            let channel = try writer.addChannel(topic: "/fix", messageEncoding: encoding, schemaID: schema)
            for (index, data) in messages.enumerated() {
                try writer.add(MCAPMessage(channelID: channel, sequence: UInt32(index), logTime: UInt64(index + 1), publishTime: UInt64(index + 1), data: data))
            }
            try writer.finish()
            return FoxgloveImport.decode(writer.bytes, file: "fix.mcap").trace
        }
        let good = Array(#"{"latitude": 1.5, "longitude": 2.5}"#.utf8)
        let json = try recording(encoding: "json", [good, Array(#"{"latitude": "north", "longitude": 2}"#.utf8)])
        #expect(json.records.count == 1)
        #expect(json.truncation?.field == "latitude" && json.truncation?.message == "/fix (foxglove.LocationFix), message 2 (log time 2): not a number", "\(String(describing: json.truncation))")
        let nested = try recording(encoding: "json", [Array(#"{"timestamp": {"sec": "x"}}"#.utf8)])
        #expect(nested.truncation?.field == "timestamp.sec", "\(String(describing: nested.truncation))")
        let notJSON = try recording(encoding: "json", [Array(#"{"latitude": 1} x"#.utf8)])
        #expect(notJSON.truncation?.field == "message", "\(String(describing: notJSON.truncation))")
        // Protobuf: latitude (field 1) as a varint, where the schema has a double.
        let protobuf = try recording(encoding: "protobuf", [[0x08, 0x01]])
        #expect(protobuf.truncation?.field == "latitude" && protobuf.truncation?.message.contains("wire type 0") == true, "\(String(describing: protobuf.truncation))")
        // Whole-number fields take whole numbers a 64-bit integer holds, and a time must fit in nanoseconds: refused,
        // not trapped on.
        let huge = try recording(encoding: "json", [Array(#"{"timestamp": {"sec": 1e300, "nsec": 0}, "latitude": 1, "longitude": 2}"#.utf8)])
        #expect(huge.truncation?.field == "timestamp.sec" && huge.truncation?.message.hasSuffix("is not a whole number") == true, "\(String(describing: huge.truncation))")
        let late = try recording(encoding: "json", [Array(#"{"timestamp": {"sec": 9000000000000000000, "nsec": 0}, "latitude": 1, "longitude": 2}"#.utf8)])
        #expect(late.truncation?.field == "timestamp", "\(String(describing: late.truncation))")
        let wide = try recording(encoding: "json", schema: "foxglove.RawImage", [Array(#"{"width": 2.5, "height": 1, "encoding": "mono8", "step": 3, "data": "AAAA"}"#.utf8)])
        #expect(wide.truncation?.field == "width", "\(String(describing: wide.truncation))")
        let vast = try recording(encoding: "json", schema: "foxglove.RawImage", [Array(#"{"width": 4294967296000, "height": 1, "encoding": "mono8", "step": 3, "data": "AAAA"}"#.utf8)])
        #expect(vast.truncation?.field == "width" && vast.truncation?.message.contains("not a picture size") == true, "\(String(describing: vast.truncation))")
        // A position off the earth.
        let off = try recording(encoding: "json", [Array(#"{"latitude": 91, "longitude": 0}"#.utf8)])
        #expect(off.truncation?.field == "latitude", "\(String(describing: off.truncation))")
    }

    struct Unexpected: Error {}
}
