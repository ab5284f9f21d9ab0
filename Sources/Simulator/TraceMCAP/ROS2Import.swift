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
    public typealias SkippedTopic = TraceMCAP.SkippedTopic

    /// The recording as a trace.
    public var trace: Trace
    /// The topics left out, in the order they were declared.
    public var skipped: [SkippedTopic]

    /// Whether the MCAP file at `path` is a ROS 2 recording: its profile is `ros2`, or a channel carries `cdr`.
    public static func isROS2(_ reader: MCAPReader) -> Bool {
        (try? reader.header().profile) == "ros2" || MCAPFiles.hasChannel(reader) { channel, _ in channel.messageEncoding == "cdr" }
    }

    /// Imports the ROS 2 recording at `path`.
    public static func load(path: String) throws(TraceError) -> ROS2Import {
        load(try MCAPFiles.open(path))
    }

    /// Imports a ROS 2 recording from its bytes; `file` names it in errors.
    public static func decode(_ bytes: [UInt8], file: String = "<memory>") -> ROS2Import {
        load(MCAPReader(bytes: bytes, name: file))
    }

    /// Imports the ROS 2 recording an open reader reads.
    static func load(_ reader: MCAPReader) -> ROS2Import {
        let (trace, skipped) = RecordingImporter.load(reader, decoder: CDRDecoder())
        return ROS2Import(trace: trace, skipped: skipped)
    }

    /// The `sensor_msgs` types' CDR messages as readings.
    private struct CDRDecoder: RecordingDecoder {
        var format: String { "ros2" }

        static let handled: Set<String> = [
            "sensor_msgs/msg/Imu", "sensor_msgs/msg/MagneticField", "sensor_msgs/msg/NavSatFix",
            "sensor_msgs/msg/Image", "sensor_msgs/msg/CompressedImage",
        ]

        func skipReason(_ channel: MCAPChannel, type: String) -> String? {
            if channel.messageEncoding != "cdr" { return "its message encoding is '\(channel.messageEncoding)', not cdr" }
            return Self.handled.contains(type) ? nil : "no HAL kind for this type"
        }

        func decode(_ message: MCAPMessage, _ channel: MCAPChannel, type: String) throws(RecordingImportFailure) -> [ImportedReading] {
            do {
                return try read(message, type: type)
            } catch let failure as CDRReader.Failure {
                throw .badMessage(field: failure.field, reason: failure.reason)
            } catch let failure as RecordingImportFailure {
                throw failure
            } catch {
                throw .badMessage(field: "", reason: "\(error)")
            }
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

        func read(_ message: MCAPMessage, type: String) throws -> [ImportedReading] {
            var input = try CDRReader(message.data)
            let (time, frameID) = try header(&input, logTime: message.logTime)
            switch type {
            case "sensor_msgs/msg/Imu":
                let q = (x: try input.float64("orientation.x"), y: try input.float64("orientation.y"),
                         z: try input.float64("orientation.z"), w: try input.float64("orientation.w"))
                let orientationCovariance = try input.float64s(9, "orientation_covariance")
                let rate = try vector(&input, "angular_velocity")
                _ = try input.float64s(9, "angular_velocity_covariance")
                let acceleration = try vector(&input, "linear_acceleration")
                var readings: [ImportedReading] = []
                let norm = (q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z).squareRoot()
                if orientationCovariance[0] != -1, norm > 0, norm.isFinite {
                    let quaternion = Quaternion(w: q.w / norm, x: q.x / norm, y: q.y / norm, z: q.z / norm)
                    readings.append(ImportedReading(suffix: "attitude", kind: .attitude, frameID: frameID, frame: .enu,
                        reading: .attitude(AttitudeSample(timestamp: time, quaternion: quaternion, frame: .enu))))
                }
                readings.append(ImportedReading(suffix: "gyro", kind: .gyroscope, frameID: frameID,
                    reading: .motion(MotionSample(timestamp: time, quantity: .angularVelocity, value: rate))))
                readings.append(ImportedReading(suffix: "accel", kind: .accelerometer, frameID: frameID,
                    reading: .motion(MotionSample(timestamp: time, quantity: .acceleration, value: acceleration))))
                return readings
            case "sensor_msgs/msg/MagneticField":
                let field = try vector(&input, "magnetic_field") * 1e6
                return [ImportedReading(kind: .magnetometer, frameID: frameID,
                    reading: .motion(MotionSample(timestamp: time, quantity: .magneticField, value: field)))]
            case "sensor_msgs/msg/NavSatFix":
                let status = try input.int8("status.status")
                _ = try input.uint16("status.service")
                let latitude = try input.float64("latitude"), longitude = try input.float64("longitude")
                let altitude = try input.float64("altitude")
                let covariance = try input.float64s(9, "position_covariance")
                let covarianceType = try input.uint8("position_covariance_type")
                let fix = try LocationFix.imported(
                    at: time, latitude: latitude, longitude: longitude, altitude: altitude, lost: status < 0,
                    covariance: covariance, covarianceType: Int(covarianceType))
                return [ImportedReading(kind: .location, frameID: frameID, reading: .location(fix))]
            case "sensor_msgs/msg/Image":
                let height = Int(try input.uint32("height")), width = Int(try input.uint32("width"))
                let encoding = try input.string("encoding")
                _ = try input.uint8("is_bigendian")
                let step = Int(try input.uint32("step"))
                let data = try input.bytes("data")
                let frame = try ImageSize.rawFrame(data, width: width, height: height, step: step, encoding: encoding, at: time)
                return [ImportedReading(kind: .camera, frameID: frameID, reading: .frame(frame))]
            case "sensor_msgs/msg/CompressedImage":
                let format = try input.string("format")
                let data = try input.bytes("data")
                let frame = try ImageSize.compressedFrame(data, format: format, at: time, field: "data")
                return [ImportedReading(kind: .camera, frameID: frameID, reading: .frame(frame))]
            default:
                return []
            }
        }
    }
}

extension LocationFix {
    /// A fix from a recording's position message (ROS 2's `NavSatFix`, Foxglove's `LocationFix`): no fix when `lost`
    /// or a coordinate is not finite; the accuracies from the diagonal of the ENU covariance when its type (ROS's
    /// and Foxglove's numbering: 0 unknown) is known.
    static func imported(
        at time: Timestamp, latitude: Double, longitude: Double, altitude: Double?, lost: Bool, covariance: [Double], covarianceType: Int
    ) throws(RecordingImportFailure) -> LocationFix {
        if lost || !latitude.isFinite || !longitude.isFinite { return .noFix(at: time, utcNanoseconds: time.nanoseconds) }
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            throw .badMessage(field: "latitude", reason: "(\(latitude), \(longitude)) is not a position on the earth")
        }
        let altitude = altitude.flatMap { $0.isFinite ? $0 : nil }
        // A variance that is not a finite number of 0 or more says nothing: no accuracy then.
        func deviation(_ variance: Double) -> Double? { variance.isFinite && variance >= 0 ? variance.squareRoot() : nil }
        let known = covarianceType != 0 && covariance.count == 9
        return LocationFix(
            timestamp: time, utcNanoseconds: time.nanoseconds, mode: altitude != nil ? .threeDimensional : .twoDimensional,
            coordinate: GeoCoordinate(latitude: latitude, longitude: longitude), altitude: altitude,
            horizontalAccuracy: known ? deviation((covariance[0] + covariance[4]) / 2) : nil,
            verticalAccuracy: known && altitude != nil ? deviation(covariance[8]) : nil)
    }
}
