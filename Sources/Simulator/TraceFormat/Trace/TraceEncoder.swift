package import HAL

/// Turns a header and records into trace lines: the canonical JSON Lines form.
///
/// Each line is compact JSON with fields in a fixed order and numbers in their
/// shortest exact form, so reading a file this wrote and writing it again gives
/// the same bytes. Values that JSON cannot hold (NaN, infinities) and records that
/// do not match their channel are refused with a ``TraceError``.
public struct TraceEncoder: Sendable {
    /// The header whose channels the records refer to.
    public let header: TraceHeader
    /// Each channel's record layout.
    private let layouts: [any RecordLayout]

    /// Creates an encoder for a header.
    public init(header: TraceHeader) {
        self.header = header
        self.layouts = header.channels.map { RecordLayouts.layout(for: $0.kind) }
    }

    /// The header line, with its newline.
    public func encodeHeader() throws(TraceError) -> [UInt8] {
        var out = JSONOutput()
        out.byte(UInt8(ascii: "{"))
        out.key("format", first: true)
        out.string(TraceHeader.formatName)
        out.key("version")
        out.int(header.version)
        out.key("channels")
        out.byte(UInt8(ascii: "["))
        for (index, channel) in header.channels.enumerated() {
            if index > 0 { out.byte(UInt8(ascii: ",")) }
            let field = "channels[\(index)]"
            guard TraceChannel.isValidID(channel.id) else {
                throw TraceError(.invalidValue, line: 1, field: field + ".id", "'\(channel.id)' is not a valid channel id")
            }
            guard header.channels.firstIndex(where: { $0.id == channel.id }) == index else {
                throw TraceError(.invalidValue, line: 1, field: field + ".id", "channel id '\(channel.id)' is used twice")
            }
            guard channel.units == channel.kind.units else {
                throw TraceError(.wrongUnits, line: 1, field: field + ".units", Self.unitsMessage(channel))
            }
            out.byte(UInt8(ascii: "{"))
            out.key("id", first: true)
            out.string(channel.id)
            out.key("kind")
            out.string(channel.kind.rawValue)
            out.key("source")
            out.string(channel.source)
            if let units = channel.units {
                out.key("units")
                out.string(units)
            }
            try out.optionalFinite("rate", channel.rate, field: field + ".rate")
            if let name = channel.name {
                out.key("name")
                out.string(name)
            }
            if let backend = channel.backend {
                out.key("backend")
                out.string(backend)
            }
            try out.optionalFinite("range", channel.range, field: field + ".range")
            try out.optionalFinite("resolution", channel.resolution, field: field + ".resolution")
            guard (channel.kind == .attitude) == (channel.frame != nil) else {
                throw TraceError(.invalidValue, line: 1, field: field + ".frame", Self.frameMessage(channel.kind))
            }
            if let frame = channel.frame {
                out.key("frame")
                out.string(frame.rawValue)
            }
            out.byte(UInt8(ascii: "}"))
        }
        out.byte(UInt8(ascii: "]"))
        if !header.metadata.isEmpty {
            out.key("meta")
            try out.sortedObject(header.metadata) { (out, _, text) throws(TraceError) in out.string(text) }
        }
        out.raw("}\n")
        return out.bytes
    }

    static func frameMessage(_ kind: DeviceKind) -> String {
        kind == .attitude
            ? "attitude channels name their earth frame (\(EarthFrame.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")))"
            : "only attitude channels have a frame"
    }

    static func unitsMessage(_ channel: TraceChannel) -> String {
        if let expected = channel.kind.units {
            return "\(channel.kind.rawValue) channels are in '\(expected)', not '\(channel.units ?? "")'"
        }
        return "\(channel.kind.rawValue) channels have no units"
    }

    /// Appends one record line, with its newline, to `buffer`.
    ///
    /// Checks that the channel exists and is of the reading's kind, and that every
    /// number is finite. Per-channel time order is the writer's to check.
    public func encode(_ record: TraceRecord, into buffer: inout [UInt8]) throws(TraceError) {
        guard header.channels.indices.contains(record.channel) else {
            throw TraceError(.unknownChannel, line: 0, field: "ch", "no channel with index \(record.channel)")
        }
        let channel = header.channels[record.channel]
        var out = JSONOutput()
        swap(&out.bytes, &buffer)
        defer { swap(&out.bytes, &buffer) }
        out.byte(UInt8(ascii: "{"))
        out.key("t", first: true)
        out.int(record.timestamp.nanoseconds)
        out.key("ch")
        out.string(channel.id)
        guard try layouts[record.channel].encode(record.reading, on: channel, into: &out) else {
            throw TraceError(
                .invalidValue, line: 0, field: "ch",
                "a \(record.reading.kind.rawValue) reading cannot go on \(channel.kind.rawValue) channel '\(channel.id)'")
        }
        out.raw("}\n")
    }

    /// Writes an expression reading's fields (none for a reading with no face), as its record has them.
    package func encodeExpression(_ reading: ExpressionReading, _ out: inout JSONOutput) throws(TraceError) {
        try ExpressionLayout.encode(reading, into: &out)
    }

    /// An app event's attributes as the `data` object of its line, or "" when it has none.
    package func attributes(_ attributes: [String: AppEventValue]) throws(TraceError) -> String {
        guard !attributes.isEmpty else { return "" }
        var out = JSONOutput()
        try AppEventLayout.encode(attributes, into: &out)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// Throws unless `value` is finite: a trace's numbers are JSON's.
    @inline(__always)
    package static func checkFinite(_ value: Double, field: @autoclosure () -> String) throws(TraceError) {
        guard value.isFinite else {
            throw TraceError(.invalidValue, line: 0, field: field(), "\(value) cannot be written: JSON numbers are finite")
        }
    }
}
