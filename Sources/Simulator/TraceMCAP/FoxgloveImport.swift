public import TraceFormat
import HAL
public import MCAP
import FoundationEssentials

/// A recording made with Foxglove's SDK (or any writer of Foxglove's schemas), in protobuf or JSON, as a trace: the
/// schemas the HAL has kinds for become channels, and the others are listed and skipped, as ROS 2 topics are
/// (``ROS2Import``).
///
/// | Foxglove schema | channel | units and frames |
/// |---|---|---|
/// | `foxglove.LocationFix` | `TOPIC` (location) | degrees; altitude in metres when the message has one (a 2D fix without); accuracy from the diagonal of the ENU covariance when its type is known: horizontal √((σ²e + σ²n)/2), vertical σu; a latitude or longitude that is not finite is a lost fix |
/// | `foxglove.RawImage` | `TOPIC` (camera) | `rgb8`, `bgr8`, `mono8` and `yuyv` (`yuv422_yuy2`) pixels, kept in memory |
/// | `foxglove.CompressedImage` | `TOPIC` (camera) | JPEG or PNG, its size read from the image's own header |
/// | `foxglove.PoseInFrame` | `TOPIC` (attitude) | the pose's orientation, normalised, relative to the earth frame the `frame_id` names (`ENU`, `NED` or `NWU`), otherwise ENU, as a map or world frame is by ROS's REP 103, which Foxglove follows; the position is left out |
/// | `foxglove.Log` | `TOPIC` (app) | an app event named `log.LEVEL` (`log.info`, `log.warning`…) with the `message`, and the `logger`, `file` and `line` the message has |
///
/// Messages are read in protobuf (the schema's `protobuf` encoding, as the SDK's typed channels write them) and in
/// JSON (`json` messages, bytes in base64, times as `{"sec", "nsec"}`). A record's time is the message's
/// `timestamp`, or its log time when the timestamp is absent or zero; records are in time order across channels.
/// Channel ids are the topics with `/` as `.`; each channel's `frame_id` is kept as its name. Damage to the file or
/// a message that does not decode stops the import with the records before it kept and the error in
/// ``Trace/truncation``.
public struct FoxgloveImport: Sendable {
    /// The recording as a trace.
    public var trace: Trace
    /// The topics left out, in the order they were declared.
    public var skipped: [SkippedTopic]

    /// Whether the MCAP file has a channel in one of Foxglove's schemas (`foxglove.*`) with protobuf or JSON
    /// messages.
    public static func isFoxglove(_ reader: MCAPReader) -> Bool {
        MCAPFiles.hasChannel(reader) { channel, schema in
            FoxgloveDecoder.encodings.contains(channel.messageEncoding) && schema.hasPrefix("foxglove.")
        }
    }

    /// Imports the Foxglove recording at `path`.
    public static func load(path: String) throws(TraceError) -> FoxgloveImport {
        load(try MCAPFiles.open(path))
    }

    /// Imports a Foxglove recording from its bytes; `file` names it in errors.
    public static func decode(_ bytes: [UInt8], file: String = "<memory>") -> FoxgloveImport {
        load(MCAPReader(bytes: bytes, name: file))
    }

    /// Imports the Foxglove recording an open reader reads.
    static func load(_ reader: MCAPReader) -> FoxgloveImport {
        let (trace, skipped) = RecordingImporter.load(reader, decoder: FoxgloveDecoder())
        return FoxgloveImport(trace: trace, skipped: skipped)
    }
}

/// Foxglove's schemas the HAL has kinds for, read from protobuf or JSON into ``FoxgloveFields`` by one table of
/// each schema's fields, then turned into readings.
private struct FoxgloveDecoder: RecordingDecoder {
    var format: String { "foxglove" }

    static let encodings: Set<String> = ["protobuf", "json"]

    func skipReason(_ channel: MCAPChannel, type: String) -> String? {
        guard FoxgloveFields.schemas[type] != nil else { return "no HAL kind for this type" }
        guard Self.encodings.contains(channel.messageEncoding) else {
            return "its message encoding is '\(channel.messageEncoding)', not protobuf or json"
        }
        return nil
    }

    func decode(_ message: MCAPMessage, _ channel: MCAPChannel, type: String) throws(RecordingImportFailure) -> [ImportedReading] {
        guard let table = FoxgloveFields.schemas[type] else { return [] }
        let fields = channel.messageEncoding == "json"
            ? try FoxgloveFields(json: message.data, table: table)
            : try FoxgloveFields(protobuf: message.data, table: table)
        var stamp: Int64 = 0
        if let timestamp = fields.nested["timestamp"] {
            let (seconds, nanoseconds) = (timestamp.integers["sec"] ?? 0, timestamp.integers["nsec"] ?? 0)
            let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            let (sum, carry) = scaled.addingReportingOverflow(nanoseconds)
            guard !overflow, !carry else {
                throw .badMessage(field: "timestamp", reason: "\(seconds) s and \(nanoseconds) ns is past the nanoseconds a time can hold")
            }
            stamp = sum
        }
        let time = Timestamp(nanoseconds: stamp != 0 ? stamp : Int64(clamping: message.logTime))
        let frameID = fields.texts["frame_id"] ?? ""
        switch type {
        case "foxglove.LocationFix":
            let fix = try LocationFix.imported(
                at: time, latitude: fields.numbers["latitude"] ?? .nan, longitude: fields.numbers["longitude"] ?? .nan,
                altitude: fields.numbers["altitude"], lost: false, covariance: fields.arrays["position_covariance"] ?? [],
                covarianceType: Int(fields.integers["position_covariance_type"] ?? 0))
            return [ImportedReading(kind: .location, frameID: frameID, reading: .location(fix))]
        case "foxglove.RawImage":
            let frame = try ImageSize.rawFrame(
                fields.data["data"] ?? [], width: Int(fields.integers["width"] ?? 0), height: Int(fields.integers["height"] ?? 0),
                step: Int(fields.integers["step"] ?? 0), encoding: fields.texts["encoding"] ?? "", at: time)
            return [ImportedReading(kind: .camera, frameID: frameID, reading: .frame(frame))]
        case "foxglove.CompressedImage":
            let frame = try ImageSize.compressedFrame(fields.data["data"] ?? [], format: fields.texts["format"] ?? "", at: time, field: "data")
            return [ImportedReading(kind: .camera, frameID: frameID, reading: .frame(frame))]
        case "foxglove.PoseInFrame":
            let orientation = fields.nested["pose"]?.nested["orientation"]?.numbers ?? [:]
            // Protobuf leaves out a component that is 0; a pose without an orientation is the identity.
            let (x, y, z) = (orientation["x"] ?? 0, orientation["y"] ?? 0, orientation["z"] ?? 0)
            let w = orientation.isEmpty ? 1 : orientation["w"] ?? 0
            let norm = (w * w + x * x + y * y + z * z).squareRoot()
            guard norm > 0, norm.isFinite else {
                throw .badMessage(field: "pose.orientation", reason: "(\(x), \(y), \(z), \(w)) is not a rotation")
            }
            let frame = EarthFrame.allCases.first { $0.rawValue.lowercased() == frameID.lowercased() } ?? .enu
            let sample = AttitudeSample(timestamp: time, quaternion: Quaternion(w: w / norm, x: x / norm, y: y / norm, z: z / norm), frame: frame)
            return [ImportedReading(kind: .attitude, frameID: frameID, frame: frame, reading: .attitude(sample))]
        case "foxglove.Log":
            let levels = ["unknown", "debug", "info", "warning", "error", "fatal"]
            let level = Int(fields.integers["level"] ?? 0)
            var attributes: [String: AppEventValue] = ["message": .string(fields.texts["message"] ?? "")]
            if let logger = fields.texts["name"], !logger.isEmpty { attributes["logger"] = .string(logger) }
            if let file = fields.texts["file"], !file.isEmpty { attributes["file"] = .string(file) }
            if let line = fields.integers["line"], line != 0 { attributes["line"] = .int(line) }
            let event = AppEvent(timestamp: time, name: "log." + (levels.indices.contains(level) ? levels[level] : "unknown"), attributes: attributes)
            return [ImportedReading(kind: .app, frameID: "", reading: .appEvent(event))]
        default:
            return []
        }
    }
}

/// One Foxglove message's fields by the names Foxglove's schemas give them, read from protobuf (by the fields'
/// numbers) or JSON (by their names), as far as the import uses them. Fields it does not use are passed over.
struct FoxgloveFields {
    /// `double` fields.
    var numbers: [String: Double] = [:]
    /// Whole-number fields (`fixed32`, and the varints: integers and enums).
    var integers: [String: Int64] = [:]
    var texts: [String: String] = [:]
    var data: [String: [UInt8]] = [:]
    var arrays: [String: [Double]] = [:]
    var nested: [String: FoxgloveFields] = [:]

    /// A field of a schema: its name, protobuf number and type.
    struct Field {
        let name: String
        let number: Int
        let type: FieldType
        init(_ name: String, _ number: Int, _ type: FieldType) {
            self.name = name
            self.number = number
            self.type = type
        }
    }

    indirect enum FieldType {
        case double, fixed32, varint, text, bytes, doubles
        case message([Field])
    }

    /// `google.protobuf.Timestamp`, named as Foxglove's JSON names it.
    static let time: FieldType = .message([Field("sec", 1, .varint), Field("nsec", 2, .varint)])
    static let vector: FieldType = .message([Field("x", 1, .double), Field("y", 2, .double), Field("z", 3, .double)])

    /// The fields the import reads, by schema name (Foxglove's `foxglove/*.proto`).
    static let schemas: [String: [Field]] = [
        "foxglove.LocationFix": [
            Field("timestamp", 6, time), Field("frame_id", 7, .text), Field("latitude", 1, .double), Field("longitude", 2, .double),
            Field("altitude", 3, .double), Field("position_covariance", 4, .doubles), Field("position_covariance_type", 5, .varint),
        ],
        "foxglove.RawImage": [
            Field("timestamp", 1, time), Field("frame_id", 7, .text), Field("width", 2, .fixed32), Field("height", 3, .fixed32),
            Field("encoding", 4, .text), Field("step", 5, .fixed32), Field("data", 6, .bytes),
        ],
        "foxglove.CompressedImage": [
            Field("timestamp", 1, time), Field("frame_id", 4, .text), Field("data", 2, .bytes), Field("format", 3, .text),
        ],
        "foxglove.PoseInFrame": [
            Field("timestamp", 1, time), Field("frame_id", 2, .text),
            Field("pose", 3, .message([
                Field("position", 1, vector),
                Field("orientation", 2, .message([Field("x", 1, .double), Field("y", 2, .double), Field("z", 3, .double), Field("w", 4, .double)])),
            ])),
        ],
        "foxglove.Log": [
            Field("timestamp", 1, time), Field("level", 2, .varint), Field("message", 3, .text), Field("name", 4, .text),
            Field("file", 5, .text), Field("line", 6, .fixed32),
        ],
    ]

    /// The fields of a protobuf message.
    init(protobuf bytes: [UInt8], table: [Field]) throws(RecordingImportFailure) {
        let result = bytes.withUnsafeBytes { buffer -> Result<FoxgloveFields, RecordingImportFailure> in
            var reader = Protobuf.Reader(buffer)
            do throws(RecordingImportFailure) { return .success(try FoxgloveFields(&reader, table: table, path: "")) } catch { return .failure(error) }
        }
        self = try result.get()
    }

    private init(_ reader: inout Protobuf.Reader, table: [Field], path: String) throws(RecordingImportFailure) {
        /// Reads with the reader, an error named as the message's (or the nested message's).
        func read<T>(_ body: (inout Protobuf.Reader) throws(Protobuf.DecodeError) -> T) throws(RecordingImportFailure) -> T {
            do { return try body(&reader) } catch {
                throw .badMessage(field: path.isEmpty ? "message" : String(path.dropLast()), reason: "byte \(error.offset): \(error.reason)")
            }
        }
        while let wire = try read({ (reader: inout Protobuf.Reader) throws(Protobuf.DecodeError) in try reader.next() }) {
            guard let field = table.first(where: { $0.number == wire.number }) else { continue }
            func fail(_ reason: String) -> RecordingImportFailure { .badMessage(field: path + field.name, reason: reason) }
            let expected: Protobuf.WireType
            switch field.type {
            case .double: expected = .fixed64
            case .fixed32: expected = .fixed32
            case .varint: expected = .varint
            case .text, .bytes, .message: expected = .lengthDelimited
            case .doubles: expected = wire.type == .fixed64 ? .fixed64 : .lengthDelimited  // unpacked or packed
            }
            guard wire.type == expected else {
                throw fail("wire type \(wire.type.rawValue) at byte \(wire.range.lowerBound), and the schema says \(expected.rawValue)")
            }
            switch field.type {
            case .double: numbers[field.name] = wire.double
            case .fixed32: integers[field.name] = Int64(UInt32(truncatingIfNeeded: wire.bits))
            case .varint: integers[field.name] = wire.int64
            case .text: texts[field.name] = try read { (reader: inout Protobuf.Reader) throws(Protobuf.DecodeError) in try reader.string(wire) }
            case .bytes: data[field.name] = reader.data(wire)
            case .doubles:
                if wire.type == .fixed64 {
                    arrays[field.name, default: []].append(wire.double)
                } else {
                    let bytes = reader.data(wire)
                    guard bytes.count % 8 == 0 else { throw fail("\(bytes.count) bytes of packed doubles is not a whole number of them") }
                    arrays[field.name, default: []] += stride(from: 0, to: bytes.count, by: 8).map { at in
                        Double(bitPattern: bytes[at..<(at + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) })
                    }
                }
            case .message(let members):
                var inner = reader.nested(wire)
                nested[field.name] = try FoxgloveFields(&inner, table: members, path: path + field.name + ".")
            }
        }
    }

    /// The fields of a JSON message: one object, with bytes in base64.
    init(json bytes: [UInt8], table: [Field]) throws(RecordingImportFailure) {
        let result = bytes.withUnsafeBufferPointer { buffer -> Result<FoxgloveFields, RecordingImportFailure> in
            var scanner = JSONScanner(buffer)
            do throws(RecordingImportFailure) {
                scanner.skipWhitespace()
                let fields = try FoxgloveFields(&scanner, table: table, path: "")
                do throws(JSONSyntaxError) { try scanner.expectEnd() } catch {
                    throw .badMessage(field: "message", reason: "not one JSON object: \(error.message)")
                }
                return .success(fields)
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    private init(_ scanner: inout JSONScanner, table: [Field], path: String) throws(RecordingImportFailure) {
        let name = path.isEmpty ? "message" : String(path.dropLast())
        guard scanner.peek() == UInt8(ascii: "{") else { throw .badMessage(field: name, reason: "not a JSON object") }
        var members: [JSONScanner.Field] = []
        do { try scanner.objectFields(into: &members) } catch { throw .badMessage(field: name, reason: "not JSON: \(error.message)") }
        for member in members {
            guard let field = table.first(where: { scanner.key(member, is: $0.name) }) else { continue }
            var value = JSONScanner(scanner.bytes, range: member.value)
            if value.readNull() { continue }
            func fail(_ reason: String) -> RecordingImportFailure { .badMessage(field: path + field.name, reason: reason) }
            /// Reads with the scanner, a syntax error named as the field's.
            func read<T>(_ body: (inout JSONScanner) throws(JSONSyntaxError) -> T) throws(RecordingImportFailure) -> T {
                do { return try body(&value) } catch { throw fail("not JSON: \(error.message)") }
            }
            switch field.type {
            case .double, .fixed32, .varint:
                guard let next = value.peek(), next == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) else {
                    throw fail("not a number")
                }
                let value = try read { (scanner: inout JSONScanner) throws(JSONSyntaxError) in try scanner.readDouble() }
                if case .double = field.type {
                    numbers[field.name] = value
                } else {
                    // A whole number a 64-bit integer holds: JSON has one kind of number, protobuf's field has one.
                    guard let whole = Int64(exactly: value) else { throw fail("\(value) is not a whole number") }
                    integers[field.name] = whole
                }
            case .text, .bytes:
                guard value.peek() == UInt8(ascii: "\"") else { throw fail("not a string") }
                let text = try read { (scanner: inout JSONScanner) throws(JSONSyntaxError) in try scanner.readString() }
                if case .text = field.type {
                    texts[field.name] = text
                } else {
                    guard let decoded = Data(base64Encoded: text) else { throw fail("not base64") }
                    data[field.name] = Array(decoded)
                }
            case .doubles:
                guard value.peek() == UInt8(ascii: "[") else { throw fail("not an array of numbers") }
                arrays[field.name] = try read { (scanner: inout JSONScanner) throws(JSONSyntaxError) in
                    var values: [Double] = []
                    scanner.position += 1
                    if scanner.peek() == UInt8(ascii: "]") {
                        scanner.position += 1
                        return values
                    }
                    while true {
                        values.append(try scanner.readDouble())
                        if scanner.peek() == UInt8(ascii: ",") {
                            scanner.position += 1
                            continue
                        }
                        try scanner.expect(UInt8(ascii: "]"), "',' or ']'")
                        return values
                    }
                }
            case .message(let inner):
                nested[field.name] = try FoxgloveFields(&value, table: inner, path: path + field.name + ".")
            }
        }
    }
}
