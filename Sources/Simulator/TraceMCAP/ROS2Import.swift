public import TraceFormat
import HAL
public import MCAP

/// A ROS 2 recording in MCAP (a rosbag2 `.mcap` file, `cdr` messages) as a trace: the `sensor_msgs` topics the HAL
/// has kinds for become channels, and the others are listed and skipped.
///
/// | ROS 2 type | channels | units and frames |
/// |---|---|---|
/// | `sensor_msgs/msg/Imu` | `TOPIC.gyro` (gyroscope), `TOPIC.accel` (accelerometer), and `TOPIC.attitude` when the message has an orientation (its covariance's first element is not −1) | rad/s and m/s² as ROS has them, in the sensor's own axes (`frame_id`, kept as the channel's name); the orientation as an ENU attitude (REP 103), normalised |
/// | `sensor_msgs/msg/MagneticField` | `TOPIC` (magnetometer) | tesla × 10⁶ = µT, in the sensor's axes |
/// | `sensor_msgs/msg/NavSatFix` | `TOPIC` (location) | degrees; altitude in metres as ROS gives it (above the WGS 84 ellipsoid, not converted to mean sea level); accuracy from the diagonal of the ENU covariance when its type is known: horizontal √((σ²e + σ²n)/2), vertical σu |
/// | `sensor_msgs/msg/Image` | `TOPIC` (camera) | `rgb8`, `bgr8`, `mono8` and `yuv422_yuy2` pixels, kept in memory |
/// | `sensor_msgs/msg/CompressedImage` | `TOPIC` (camera) | JPEG or PNG, its size read from the image's own header |
///
/// A record's time is its header stamp, or the message's log time when the stamp is zero; records are in time
/// order across channels. Channel ids are the topics with `/` as `.` (`/imu/data` → `imu.data.gyro`). An image topic
/// in an encoding the HAL has no pixel format for is skipped from that message on, and listed. Damage to the file (any ``MCAPError``) or a message
/// that does not decode stops the import with the records before it kept and the error in ``Trace/truncation``.
public struct ROS2Import: Sendable {
    /// A topic that has no HAL kind (or an image encoding the HAL has no format for), and so was left out.
    public struct SkippedTopic: Sendable, Hashable, CustomStringConvertible {
        /// The topic.
        public var topic: String
        /// Its message type, such as `tf2_msgs/msg/TFMessage`.
        public var type: String
        /// Its messages in the recording (up to the point the import stopped).
        public var messages: Int
        /// Why it was skipped.
        public var reason: String

        /// `TOPIC (TYPE): N messages, REASON`.
        public var description: String { "\(topic) (\(type)): \(messages) message\(messages == 1 ? "" : "s"), \(reason)" }
    }

    /// The recording as a trace.
    public var trace: Trace
    /// The topics left out, in the order they were declared.
    public var skipped: [SkippedTopic]

    /// Whether the MCAP file at `path` is a ROS 2 recording: its profile is `ros2`, or a channel carries `cdr`.
    public static func isROS2(_ reader: MCAPReader) -> Bool {
        var ros2 = false
        try? reader.scan { record in
            switch record {
            case .header(let profile, _): if profile == "ros2" { ros2 = true }
            case .channel(let channel): if channel.messageEncoding == "cdr" { ros2 = true }
            default: break
            }
            if ros2 { throw Found() }
        }
        return ros2
    }

    private struct Found: Error {}

    /// Imports the ROS 2 recording at `path`.
    public static func load(path: String) throws(TraceError) -> ROS2Import {
        let reader: MCAPReader
        do { reader = try MCAPReader(path: path) } catch { throw TraceError(.io, file: path, line: 0, error.reason) }
        return load(reader)
    }

    /// Imports a ROS 2 recording from its bytes; `file` names it in errors.
    public static func decode(_ bytes: [UInt8], file: String = "<memory>") -> ROS2Import {
        load(MCAPReader(bytes: bytes, name: file))
    }

    private static func load(_ reader: MCAPReader) -> ROS2Import {
        let path = reader.path
        var importer = Importer(path: path)
        do {
            try reader.scan { record in try importer.add(record) }
            // The messages are all read; a file cut or damaged after them (in its summary or footer) is still said.
            _ = try reader.summary()
        } catch let error as MCAPError {
            importer.truncation = TraceError(.badContainer, file: path, line: 0, "byte \(error.offset): \(error.record) record: \(error.reason)")
        } catch let error as TraceError {
            importer.truncation = error
        } catch {
            importer.truncation = TraceError(.io, file: path, line: 0, "\(error)")
        }
        return importer.result()
    }

    /// The state of one import: the trace's channels as they are found, and each topic's handling.
    private struct Importer {
        let path: String
        var channels: [TraceChannel] = []
        var records: [TraceRecord] = []
        var metadata: [String: String] = [:]
        var truncation: TraceError?
        /// Per MCAP channel id: how its messages are handled.
        var topics: [UInt16: Topic] = [:]
        var skipped: [SkippedTopic] = []
        var skippedIndex: [UInt16: Int] = [:]
        var lastTimes: [Int64] = []

        struct Topic {
            var type: String
            var channels: [String: Int] = [:]
            var frameSequence: UInt64 = 0
            var messages = 0
        }

        init(path: String) {
            self.path = path
            metadata["source"] = path
        }

        mutating func add(_ record: MCAPReader.Record) throws {
            switch record {
            case .header(let profile, let library):
                metadata["mcap.profile"] = profile
                metadata["mcap.library"] = library
            case .channel(let channel):
                let type = channel.schemaID == 0 ? "" : schemaNames[channel.schemaID] ?? ""
                if channel.messageEncoding != "cdr" {
                    skip(channel, type: type, reason: "its message encoding is '\(channel.messageEncoding)', not cdr")
                } else if !Self.handled.contains(type) {
                    skip(channel, type: type, reason: "no HAL kind for this type")
                } else {
                    topics[channel.id] = Topic(type: type)
                }
            case .schema(let schema):
                schemaNames[schema.id] = schema.name
            case .message(let message, let channel):
                if let index = skippedIndex[channel.id] {
                    skipped[index].messages += 1
                    return
                }
                guard var topic = topics[channel.id] else { return }
                topic.messages += 1
                do {
                    try decode(message, channel, &topic)
                    topics[channel.id] = topic
                } catch let unsupported as Unsupported {
                    skip(channel, type: topic.type, reason: unsupported.reason)
                    skipped[skipped.count - 1].messages = 1
                    topics[channel.id] = nil
                } catch let failure as CDRReader.Failure {
                    throw TraceError(.invalidValue, file: path, line: 0, field: failure.field,
                        "\(channel.topic) (\(topic.type)), message \(topic.messages) (log time \(message.logTime)): \(failure.reason)")
                }
            default:
                break  // metadata, attachments, indexes and the summary: nothing a trace keeps
            }
        }

        var schemaNames: [UInt16: String] = [:]

        /// A topic whose messages the HAL cannot take, found at a message: it is skipped from there on.
        struct Unsupported: Error {
            let reason: String
        }

        /// The largest picture side taken, in pixels: the trace format's own (``TraceDecoder/maximumFrameSide``), so
        /// that an imported frame converts to JSON Lines and reads back.
        static let largestSide = Int(TraceDecoder.maximumFrameSide)

        static let handled: Set<String> = [
            "sensor_msgs/msg/Imu", "sensor_msgs/msg/MagneticField", "sensor_msgs/msg/NavSatFix",
            "sensor_msgs/msg/Image", "sensor_msgs/msg/CompressedImage",
        ]

        mutating func skip(_ channel: MCAPChannel, type: String, reason: String) {
            skippedIndex[channel.id] = skipped.count
            skipped.append(SkippedTopic(topic: channel.topic, type: type.isEmpty ? "no schema" : type, messages: 0, reason: reason))
        }

        /// The trace channel `suffix` of `topic`, made on first use.
        mutating func channel(_ topic: inout Topic, _ mcap: MCAPChannel, suffix: String?, kind: DeviceKind, frameID: String, frame: EarthFrame? = nil) -> Int {
            let key = suffix ?? ""
            if let index = topic.channels[key] { return index }
            var id = String(mcap.topic.drop { $0 == "/" }.map { $0 == "/" ? "." : $0 }.map { TraceChannel.isValidID(String($0)) ? $0 : "_" })
            if let suffix { id += "." + suffix }
            if id.isEmpty { id = "topic" }
            id = String(id.prefix(64))
            var unique = id
            var number = 2
            while channels.contains(where: { $0.id == unique }) {
                unique = String(id.prefix(60)) + "-\(number)"
                number += 1
            }
            channels.append(TraceChannel(
                id: unique, kind: kind, source: "ros2:\(mcap.topic)", name: frameID.isEmpty ? nil : frameID, backend: "ros2", frame: frame))
            lastTimes.append(.min)
            topic.channels[key] = channels.count - 1
            return channels.count - 1
        }

        mutating func append(_ reading: Reading, channel: Int, topic: String) throws(TraceError) {
            let time = reading.timestamp.nanoseconds
            guard time >= lastTimes[channel] else {
                throw TraceError(.timestampBackwards, file: path, line: 0, field: channels[channel].id,
                    "\(topic): a message stamped \(time) ns after one stamped \(lastTimes[channel]) ns")
            }
            lastTimes[channel] = time
            records.append(TraceRecord(channel: channel, reading: reading))
        }

        /// The message's header: its time (the stamp, or the log time when the stamp is zero) and frame id.
        func header(_ input: inout CDRReader, logTime: UInt64) throws(CDRReader.Failure) -> (Timestamp, String) {
            let seconds = try input.int32("header.stamp.sec")
            let nanoseconds = try input.uint32("header.stamp.nanosec")
            let frameID = try input.string("header.frame_id")
            let stamp = Int64(seconds) * 1_000_000_000 + Int64(nanoseconds)
            return (Timestamp(nanoseconds: stamp != 0 ? stamp : Int64(clamping: logTime)), frameID)
        }

        func vector(_ input: inout CDRReader, _ field: String) throws(CDRReader.Failure) -> Vector3 {
            Vector3(x: try input.float64("\(field).x"), y: try input.float64("\(field).y"), z: try input.float64("\(field).z"))
        }

        mutating func decode(_ message: MCAPMessage, _ mcap: MCAPChannel, _ topic: inout Topic) throws {
            var input = try CDRReader(message.data)
            let (time, frameID) = try header(&input, logTime: message.logTime)
            switch topic.type {
            case "sensor_msgs/msg/Imu":
                let q = (x: try input.float64("orientation.x"), y: try input.float64("orientation.y"),
                         z: try input.float64("orientation.z"), w: try input.float64("orientation.w"))
                let orientationCovariance = try input.float64s(9, "orientation_covariance")
                let rate = try vector(&input, "angular_velocity")
                _ = try input.float64s(9, "angular_velocity_covariance")
                let acceleration = try vector(&input, "linear_acceleration")
                let norm = (q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z).squareRoot()
                if orientationCovariance[0] != -1, norm > 0, norm.isFinite {
                    let attitude = channel(&topic, mcap, suffix: "attitude", kind: .attitude, frameID: frameID, frame: .enu)
                    let quaternion = Quaternion(w: q.w / norm, x: q.x / norm, y: q.y / norm, z: q.z / norm)
                    try append(.attitude(AttitudeSample(timestamp: time, quaternion: quaternion, frame: .enu)), channel: attitude, topic: mcap.topic)
                }
                let gyro = channel(&topic, mcap, suffix: "gyro", kind: .gyroscope, frameID: frameID)
                try append(.motion(MotionSample(timestamp: time, quantity: .angularVelocity, value: rate)), channel: gyro, topic: mcap.topic)
                let accel = channel(&topic, mcap, suffix: "accel", kind: .accelerometer, frameID: frameID)
                try append(.motion(MotionSample(timestamp: time, quantity: .acceleration, value: acceleration)), channel: accel, topic: mcap.topic)
            case "sensor_msgs/msg/MagneticField":
                let field = try vector(&input, "magnetic_field") * 1e6
                let mag = channel(&topic, mcap, suffix: nil, kind: .magnetometer, frameID: frameID)
                try append(.motion(MotionSample(timestamp: time, quantity: .magneticField, value: field)), channel: mag, topic: mcap.topic)
            case "sensor_msgs/msg/NavSatFix":
                let status = try input.int8("status.status")
                _ = try input.uint16("status.service")
                let latitude = try input.float64("latitude"), longitude = try input.float64("longitude")
                let altitude = try input.float64("altitude")
                let covariance = try input.float64s(9, "position_covariance")
                let covarianceType = try input.uint8("position_covariance_type")
                let fix: LocationFix
                if status < 0 || !latitude.isFinite || !longitude.isFinite {
                    fix = .noFix(at: time, utcNanoseconds: time.nanoseconds)
                } else {
                    guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                        throw CDRReader.Failure(field: "latitude", reason: "(\(latitude), \(longitude)) is not a position on the earth")
                    }
                    // A variance that is not a finite number of 0 or more says nothing: no accuracy then.
                    func deviation(_ variance: Double) -> Double? { variance.isFinite && variance >= 0 ? variance.squareRoot() : nil }
                    let known = covarianceType != 0
                    fix = LocationFix(
                        timestamp: time, utcNanoseconds: time.nanoseconds, mode: altitude.isFinite ? .threeDimensional : .twoDimensional,
                        coordinate: GeoCoordinate(latitude: latitude, longitude: longitude), altitude: altitude.isFinite ? altitude : nil,
                        horizontalAccuracy: known ? deviation((covariance[0] + covariance[4]) / 2) : nil,
                        verticalAccuracy: known && altitude.isFinite ? deviation(covariance[8]) : nil)
                }
                let location = channel(&topic, mcap, suffix: nil, kind: .location, frameID: frameID)
                try append(.location(fix), channel: location, topic: mcap.topic)
            case "sensor_msgs/msg/Image":
                let height = Int(try input.uint32("height")), width = Int(try input.uint32("width"))
                let encoding = try input.string("encoding")
                _ = try input.uint8("is_bigendian")
                let step = Int(try input.uint32("step"))
                let data = try input.bytes("data")
                let formats: [String: PixelFormat] = ["rgb8": .rgb24, "bgr8": .bgr24, "mono8": .grey, "yuv422_yuy2": .yuyv]
                guard let format = formats[encoding] else {
                    throw Unsupported(reason: "its image encoding '\(encoding)' has no HAL pixel format (rgb8, bgr8, mono8 and yuv422_yuy2 do)")
                }
                let bytesPerPixel = format == .grey ? 1 : format == .yuyv ? 2 : 3
                guard (1...Self.largestSide).contains(width), (1...Self.largestSide).contains(height) else {
                    throw CDRReader.Failure(field: "width", reason: "\(width)×\(height) is not a picture size (1 to \(Self.largestSide) a side)")
                }
                guard step >= width * bytesPerPixel else {
                    throw CDRReader.Failure(field: "step", reason: "\(step) bytes a row is short of \(width) pixels of \(bytesPerPixel) bytes")
                }
                let frame = Frame(timestamp: time, sequence: topic.frameSequence, width: width, height: height, pixelFormat: format, bytesPerRow: step, storage: .bytes(data))
                // The rows' bytes (with the product's overflow) are checked as every in-memory frame's are.
                if let damage = frame.damage { throw CDRReader.Failure(field: "data", reason: damage) }
                let camera = channel(&topic, mcap, suffix: nil, kind: .camera, frameID: frameID)
                topic.frameSequence += 1
                try append(.frame(frame), channel: camera, topic: mcap.topic)
            case "sensor_msgs/msg/CompressedImage":
                let format = try input.string("format").lowercased()
                let data = try input.bytes("data")
                let pixelFormat: PixelFormat = format.contains("png") ? .png : .mjpeg
                guard let size = pixelFormat == .png ? ImageSize.png(data) : ImageSize.jpeg(data),
                      (1...Self.largestSide).contains(size.width), (1...Self.largestSide).contains(size.height) else {
                    throw CDRReader.Failure(field: "data", reason: "not a \(pixelFormat == .png ? "PNG" : "JPEG") image of a picture's size (format '\(format)')")
                }
                let camera = channel(&topic, mcap, suffix: nil, kind: .camera, frameID: frameID)
                let frame = Frame(timestamp: time, sequence: topic.frameSequence, width: size.width, height: size.height, pixelFormat: pixelFormat, bytesPerRow: 0, storage: .bytes(data))
                topic.frameSequence += 1
                try append(.frame(frame), channel: camera, topic: mcap.topic)
            default:
                break
            }
        }

        func result() -> ROS2Import {
            var metadata = self.metadata
            if !skipped.isEmpty { metadata["ros2.skipped"] = skipped.map(\.description).joined(separator: "; ") }
            // In time order across channels (stable, so each channel keeps its own order), as a recording would be.
            let ordered = records.indices.sorted { (records[$0].timestamp, $0) < (records[$1].timestamp, $1) }.map { records[$0] }
            var trace = Trace(header: TraceHeader(channels: channels, metadata: metadata), records: ordered, path: path)
            trace.truncation = truncation
            return ROS2Import(trace: trace, skipped: skipped)
        }
    }
}

/// An image's width and height from its own header.
enum ImageSize {
    /// From a PNG's IHDR chunk.
    static func png(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
              bytes[12..<16].elementsEqual(Array("IHDR".utf8)) else { return nil }
        func u32(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (u32(16), u32(20))
    }

    /// From a JPEG's start-of-frame marker.
    static func jpeg(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var at = 2
        while at + 9 < bytes.count {
            guard bytes[at] == 0xFF else { return nil }
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { at += 2; continue }
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = Int(bytes[at + 5]) << 8 | Int(bytes[at + 6])
                let width = Int(bytes[at + 7]) << 8 | Int(bytes[at + 8])
                return width > 0 && height > 0 ? (width, height) : nil
            }
            at += 2 + length
        }
        return nil
    }
}
