import HAL

/// How the JSON Lines trace stores one kind's records: the fields a line has after `t` and `ch`, written and read.
///
/// Each built-in kind has its layout in a file of its own here, written for speed; any other kind is stored
/// through the named fields its ``HAL/KindDescription`` gives (``FieldsLayout``). The encoder and decoder look a
/// channel's layout up once (``RecordLayouts/layout(for:)``) and never ask which kind a reading is.
protocol RecordLayout: Sendable {
    /// Writes the reading's fields, each after a comma. Returns `false`, having written nothing, when the reading is
    /// not one this layout stores, so that the encoder can say what went on which channel.
    func encode(_ reading: Reading, on channel: TraceChannel, into out: inout JSONOutput) throws(TraceError) -> Bool
    /// Reads a record's fields (all but `t` and `ch`) into a reading at `timestamp`. Fields it leaves unread are the
    /// decoder's to refuse.
    func decode(_ fields: inout RecordFields, at timestamp: Timestamp, on channel: TraceChannel) throws(TraceError) -> Reading
    /// The quantity of a motion layout, whose records the decoder reads in one pass; `nil` for every other layout.
    var motionQuantity: MotionQuantity? { get }
}

extension RecordLayout {
    var motionQuantity: MotionQuantity? { nil }
}

/// The layouts of the trace's channels, by kind.
enum RecordLayouts {
    /// The built-in kinds' layouts.
    private static let builtIn: [DeviceKind: any RecordLayout] = {
        let layouts: [(DeviceKind, any RecordLayout)] = [
            (.gyroscope, MotionLayout(quantity: .angularVelocity)),
            (.accelerometer, MotionLayout(quantity: .acceleration)),
            (.magnetometer, MotionLayout(quantity: .magneticField)),
            (.attitude, AttitudeLayout()),
            (.pointer, PointerLayout()),
            (.keys, KeyLayout()),
            (.location, LocationLayout()),
            (.camera, FrameLayout()),
            (.expression, ExpressionLayout()),
            (.speaker, PlaybackLayout()),
            (.app, AppEventLayout()),
        ]
        return Dictionary(uniqueKeysWithValues: layouts)
    }()

    /// The layout of a kind's records: its own, or the fields its description gives, or none when the kind is not
    /// registered or has no fields.
    static func layout(for kind: DeviceKind) -> any RecordLayout {
        if let layout = builtIn[kind] { return layout }
        if let codec = KindRegistry.description(of: kind)?.fields { return FieldsLayout(codec: codec) }
        return UnstoredLayout(kind: kind)
    }
}

/// A kind whose records cannot be written or read: unregistered, or registered without fields.
struct UnstoredLayout: RecordLayout {
    let kind: DeviceKind

    func encode(_ reading: Reading, on channel: TraceChannel, into out: inout JSONOutput) throws(TraceError) -> Bool {
        guard reading.kind == kind else { return false }
        throw TraceError(.invalidValue, line: 0, field: "ch", "\(kind.rawValue) readings have no registered trace fields")
    }

    func decode(_ fields: inout RecordFields, at timestamp: Timestamp, on channel: TraceChannel) throws(TraceError) -> Reading {
        throw fields.error(
            .invalidValue, "ch", "channel '\(channel.id)' is of kind '\(kind.rawValue)', which has no registered trace fields")
    }
}

// MARK: Shared readers and writers

extension RecordFields {
    /// An optional number that must not be negative.
    mutating func nonNegative(_ name: StaticString) throws(TraceError) -> Double? {
        guard let value = try optional(name, Read.double) else { return nil }
        guard value >= 0 else { throw error(.invalidValue, "\(name)", "\(value) is negative") }
        return value
    }
}

extension JSONOutput {
    /// Writes a finite number; any other is refused as `field`.
    mutating func finite(_ value: Double, field: @autoclosure () -> String) throws(TraceError) {
        try TraceEncoder.checkFinite(value, field: field())
        double(value)
    }

    /// Writes `[a,b,…]`; a non-finite element is refused as `field[index]`.
    mutating func finite(_ values: Double..., field: String) throws(TraceError) {
        byte(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { byte(UInt8(ascii: ",")) }
            try finite(value, field: "\(field)[\(index)]")
        }
        byte(UInt8(ascii: "]"))
    }

    /// Writes `,"key":value` when there is a value.
    mutating func optionalFinite(_ key: StaticString, _ value: Double?, field: @autoclosure () -> String) throws(TraceError) {
        guard let value else { return }
        self.key(key)
        try finite(value, field: field())
    }
}
