import HAL

/// How a trace's channels are stored in MCAP: the schema and message encoding of each kind, and the names of the
/// metadata that carry the trace's header. `docs/trace-format.md` has the whole mapping.
enum TraceSchemas {
    /// The MCAP Header's profile for a trace.
    static let profile = "hal"
    /// The Metadata record that marks an MCAP file as a trace and holds its header: `header`, the JSON Lines header
    /// line.
    static let traceMetadata = "hal-trace"
    /// The file name a frame in memory is checked under by the JSON Lines rules, which take frames as files.
    static let placeholderFrameFile = "frame"

    /// A message layout: the schema's name and encodings.
    struct Schema: Hashable {
        var name: String
        var encoding: String
        var messageEncoding: String

        static func protobuf(_ name: String) -> Schema { Schema(name: name, encoding: "protobuf", messageEncoding: "protobuf") }

        static let motion = protobuf("hal.MotionSample")
        static let pose = protobuf("foxglove.PoseInFrame")
        static let pointer = protobuf("hal.PointerEvent")
        static let key = protobuf("hal.KeyEvent")
        static let location = protobuf("foxglove.LocationFix")
        static let rawImage = protobuf("foxglove.RawImage")
        static let compressedImage = protobuf("foxglove.CompressedImage")
        static let expression = protobuf("hal.ExpressionReading")
        static let playback = protobuf("hal.PlaybackEvent")
        static let log = protobuf("foxglove.Log")
        /// What a speaker channel sounded like, beside it (``MCAPTraceWriter/writeSound(_:of:)``).
        static let rawAudio = protobuf("foxglove.RawAudio")

        /// A registered kind's records: JSON objects, the record's line as the JSON Lines trace has it.
        static func json(_ kind: DeviceKind) -> Schema { Schema(name: kind.rawValue, encoding: "jsonschema", messageEncoding: "json") }

        /// The schema record's data: protoc's descriptor set of the message's file and its imports, or a JSON
        /// Schema that says what every record has.
        var data: [UInt8] {
            guard encoding == "protobuf" else { return Array(TraceSchemas.jsonSchema.utf8) }
            // hal.* messages are in proto/hal/Trace.proto; foxglove.X in proto/foxglove/X.proto.
            let file = name.hasPrefix("hal.") ? "hal/Trace.proto" : "foxglove/" + name.dropFirst("foxglove.".count) + ".proto"
            return TraceSchemas.descriptorSets[file] ?? []
        }
    }

    /// The JSON Schema of a registered kind's messages.
    static let jsonSchema = #"{"type":"object","properties":{"t":{"type":"integer"},"ch":{"type":"string"}},"required":["t","ch"]}"#

    /// The descriptor sets' bytes, by file.
    static let descriptorSets: [String: [UInt8]] = descriptorSetsHex.mapValues { text in
        let hex = Array(text.utf8).filter { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: " ") }
        func nibble(_ c: UInt8) -> UInt8 { c <= UInt8(ascii: "9") ? c - UInt8(ascii: "0") : c - UInt8(ascii: "a") + 10 }
        return stride(from: 0, to: hex.count, by: 2).map { nibble(hex[$0]) << 4 | nibble(hex[$0 + 1]) }
    }

    /// Fields the trace keeps in Foxglove's messages beyond Foxglove's schema. Protobuf readers skip fields their
    /// schema does not name (and Python's keeps them as unknown fields), so the messages stay Foxglove's.
    enum Extra {
        /// PoseInFrame: the attitude's heading accuracy in radians (double), when it has one.
        static let headingAccuracy = 1000
        /// RawImage and CompressedImage: the frame's sequence number (varint).
        static let sequence = 1000
        /// RawImage and CompressedImage: the file the JSON Lines trace keeps the frame in (string), when it had one.
        static let file = 1001
        /// RawImage and CompressedImage: the V4L2 name of the frame's pixel format (string), such as `YUYV`.
        static let pixelFormat = 1002
        /// CompressedImage: the image's width, height and (when not 0) bytes per row (varints).
        static let width = 1003, height = 1004, stride = 1005
    }

    /// The `encoding` Foxglove's RawImage names a pixel format by; the format itself is kept in ``Extra/pixelFormat``.
    static func rawImageEncoding(_ format: PixelFormat) -> String {
        switch format {
        case .yuyv: "yuyv"
        case .grey: "mono8"
        case .nv12: "nv12"
        case .rgb24: "rgb8"
        case .bgr24: "bgr8"
        case .mjpeg: "jpeg"
        case .png: "png"
        }
    }

    /// Keys of a LocationFix's `metadata` that carry what Foxglove's fields do not: `mode` (`none`, `2d`, `3d`),
    /// `utc`, `hacc`, `vacc`, `speed`, `course` and `sats`, as the JSON Lines trace writes them.
    static let locationKeys = ["mode", "utc", "hacc", "vacc", "speed", "course", "sats"]
}
