import TraceFormat
import HAL

/// How an MCAP trace stores one kind's records: the schemas its channels may be in, how each schema's messages are
/// read back, and each record's message.
///
/// Each built-in kind has its layout in a file of its own here; any other kind is stored as its JSON Lines record
/// (``JSONRecordMCAPLayout``). The encoder and decoder look a channel's layout up once
/// (``MCAPRecordLayouts/layout(for:)``) and never ask which kind a reading is.
protocol MCAPRecordLayout: Sendable {
    /// The schemas a channel of the kind may be in, by name, with the message format each one's messages are read
    /// in.
    var formats: [String: MCAPMessageFormat] { get }
    /// Checks a record by the JSON Lines trace's rules (``MCAPRecordContext/check(_:)``), so that what one container
    /// refuses the other does too, with the same words.
    func check(_ record: TraceRecord, _ context: inout MCAPRecordContext) throws(TraceError)
    /// Writes the message of a record that ``check(_:_:)`` accepted, and returns its schema.
    func encode(_ reading: Reading, _ context: MCAPRecordContext, into out: inout Protobuf.Writer) throws(TraceError) -> TraceSchemas.Schema
}

extension MCAPRecordLayout {
    func check(_ record: TraceRecord, _ context: inout MCAPRecordContext) throws(TraceError) {
        try context.check(record)
    }
}

/// How the decoder reads an MCAP channel's messages: the message's schema, or none for a channel derived from a
/// trace channel.
enum MCAPMessageFormat: Equatable {
    case motion(MotionQuantity)
    case pose, pointer, key, location, rawImage, compressedImage, expression, playback, log, json
    /// A channel derived from a trace channel, such as a speaker's sound: not part of the trace.
    case derived
}

/// What a layout knows of the record it writes beyond the reading.
struct MCAPRecordContext {
    /// The record's time, in nanoseconds.
    var time: Int64 = 0
    /// The trace's header.
    let header: TraceHeader
    /// The index of the record's channel in the header.
    var channelIndex = 0
    /// The file a frame in memory is to be kept in by a JSON Lines trace made from this one.
    var framePath: String?
    /// The trace's file, beside which a JSON Lines trace keeps its frame files.
    let traceFile: String?
    /// The JSON Lines rules.
    let jsonEncoder: TraceEncoder
    /// The record's JSON Lines line, with its newline, after ``check(_:)``.
    var line: [UInt8] = []

    /// The record's trace channel.
    var channel: TraceChannel { header.channels[channelIndex] }

    /// Checks a record by the JSON Lines trace's rules, leaving its line in ``line``.
    mutating func check(_ record: TraceRecord) throws(TraceError) {
        line.removeAll(keepingCapacity: true)
        try jsonEncoder.encode(record, into: &line)
    }
}

/// The layouts of an MCAP trace's channels, by kind.
enum MCAPRecordLayouts {
    /// The built-in kinds' layouts.
    private static let builtIn: [DeviceKind: any MCAPRecordLayout] = {
        let layouts: [(DeviceKind, any MCAPRecordLayout)] = [
            (.gyroscope, MotionMCAPLayout(quantity: .angularVelocity)),
            (.accelerometer, MotionMCAPLayout(quantity: .acceleration)),
            (.magnetometer, MotionMCAPLayout(quantity: .magneticField)),
            (.attitude, PoseMCAPLayout()),
            (.pointer, PointerMCAPLayout()),
            (.keys, KeyMCAPLayout()),
            (.location, LocationMCAPLayout()),
            (.camera, ImageMCAPLayout()),
            (.expression, ExpressionMCAPLayout()),
            (.speaker, PlaybackMCAPLayout()),
            (.app, LogMCAPLayout()),
        ]
        return Dictionary(uniqueKeysWithValues: layouts)
    }()

    /// The layout of a kind's records: its own, or its JSON Lines record for a kind the trace format stores by its
    /// fields.
    static func layout(for kind: DeviceKind) -> any MCAPRecordLayout {
        builtIn[kind] ?? JSONRecordMCAPLayout(kind: kind)
    }
}

/// A kind with no schema of its own: each record's message is its JSON Lines line, without the newline, in a JSON
/// schema named for the kind.
struct JSONRecordMCAPLayout: MCAPRecordLayout {
    let kind: DeviceKind

    var formats: [String: MCAPMessageFormat] { [TraceSchemas.Schema.json(kind).name: .json] }

    func encode(_ reading: Reading, _ context: MCAPRecordContext, into out: inout Protobuf.Writer) throws(TraceError) -> TraceSchemas.Schema {
        out.bytes.append(contentsOf: context.line.dropLast())
        return .json(kind)
    }
}
