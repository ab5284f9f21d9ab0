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

    /// Creates an encoder for a header.
    public init(header: TraceHeader) {
        self.header = header
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
            try optionalNumber(&out, "rate", channel.rate, field: field + ".rate")
            if let name = channel.name {
                out.key("name")
                out.string(name)
            }
            if let backend = channel.backend {
                out.key("backend")
                out.string(backend)
            }
            try optionalNumber(&out, "range", channel.range, field: field + ".range")
            try optionalNumber(&out, "resolution", channel.resolution, field: field + ".resolution")
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
        switch (channel.kind, record.reading) {
        case (.gyroscope, .motion(let sample)) where sample.quantity == .angularVelocity,
             (.accelerometer, .motion(let sample)) where sample.quantity == .acceleration,
             (.magnetometer, .motion(let sample)) where sample.quantity == .magneticField:
            out.key("v")
            try numbers(&out, sample.value.x, sample.value.y, sample.value.z, field: "v")
        case (.attitude, .attitude(let sample)):
            guard sample.frame == channel.frame else {
                throw TraceError(
                    .invalidValue, line: 0, field: "q",
                    "an \(sample.frame.rawValue) attitude cannot go on channel '\(channel.id)', which is \(channel.frame?.rawValue ?? "?")")
            }
            out.key("q")
            let q = sample.quaternion
            try numbers(&out, q.w, q.x, q.y, q.z, field: "q")
            try optionalNumber(&out, "hacc", sample.headingAccuracy, field: "hacc")
        case (.pointer, .pointer(let event)):
            out.key("phase")
            out.string(event.phase.rawValue)
            out.key("pointer")
            out.int(event.pointer)
            out.key("x")
            try number(&out, event.x, field: "x")
            out.key("y")
            try number(&out, event.y, field: "y")
        case (.keys, .key(let event)):
            out.key("code")
            out.int(event.code)
            out.key("state")
            out.string(event.state.rawValue)
        case (.location, .location(let fix)):
            try encodeLocation(fix, &out)
        case (.camera, .frame(let frame)):
            try encodeFrame(frame, &out)
        case (.expression, .expression(let reading)):
            try encodeExpression(reading, &out)
        case (.speaker, .playback(let event)):
            out.key("phase")
            out.string(event.phase.rawValue)
            switch event.item {
            case .clip(let name):
                out.key("clip")
                out.string(name)
            case .speech(let text, let voice):
                out.key("speech")
                out.string(text)
                out.key("voice")
                out.string(voice)
            }
            if let requested = event.requested {
                out.key("requested")
                out.int(requested.nanoseconds)
            }
            if let gain = event.gain {
                out.key("gain")
                out.double(gain)
            }
        case (.app, .appEvent(let event)):
            try encodeAppEvent(event, &out)
        case (_, .custom(let custom)) where custom.kind == channel.kind:
            guard let codec = channel.kind.kindDescription.fields, let fields = codec.encode(record.reading) else {
                throw TraceError(
                    .invalidValue, line: 0, field: "ch", "\(channel.kind.rawValue) readings have no registered trace fields")
            }
            try out.fields(fields)
        default:
            throw TraceError(
                .invalidValue, line: 0, field: "ch",
                "a \(Self.readingName(record.reading)) cannot go on \(channel.kind.rawValue) channel '\(channel.id)'")
        }
        out.raw("}\n")
    }

    private func encodeLocation(_ fix: LocationFix, _ out: inout JSONOutput) throws(TraceError) {
        out.key("mode")
        out.string(fix.mode.rawValue)
        if let utc = fix.utcNanoseconds {
            out.key("utc")
            out.string(UTCTime.format(utc))
        }
        switch (fix.mode, fix.coordinate) {
        case (.none, nil): break
        case (.none, .some):
            throw TraceError(.invalidValue, line: 0, field: "lat", "a fix with mode 'none' has no coordinates")
        case (_, nil):
            throw TraceError(.missingField, line: 0, field: "lat", "a \(fix.mode.rawValue) fix needs coordinates")
        case (_, .some(let coordinate)):
            out.key("lat")
            try number(&out, coordinate.latitude, field: "lat")
            out.key("lon")
            try number(&out, coordinate.longitude, field: "lon")
        }
        try optionalNumber(&out, "alt", fix.altitude, field: "alt")
        try optionalNumber(&out, "hacc", fix.horizontalAccuracy, field: "hacc")
        try optionalNumber(&out, "vacc", fix.verticalAccuracy, field: "vacc")
        try optionalNumber(&out, "speed", fix.speed, field: "speed")
        try optionalNumber(&out, "course", fix.course, field: "course")
        if let satellites = fix.satellites {
            out.key("sats")
            out.int(satellites)
        }
    }

    private func encodeFrame(_ frame: Frame, _ out: inout JSONOutput) throws(TraceError) {
        guard case .file(let path) = frame.storage else {
            throw TraceError(
                .invalidValue, line: 0, field: "file",
                "a frame goes into a trace as a file beside it; write its pixels with TraceWriter")
        }
        guard TracePath.staysInsideTraceFolder(path) else {
            throw TraceError(.pathOutsideTrace, line: 0, field: "file", "'\(path)' leaves the trace's folder")
        }
        out.key("seq")
        out.int(frame.sequence)
        out.key("width")
        out.int(frame.width)
        out.key("height")
        out.int(frame.height)
        out.key("format")
        out.string(frame.pixelFormat.rawValue)
        if frame.bytesPerRow != 0 {
            out.key("stride")
            out.int(frame.bytesPerRow)
        }
        out.key("file")
        out.string(path)
    }

    /// Writes an expression reading's fields (none for a reading with no face).
    package func encodeExpression(_ reading: ExpressionReading, _ out: inout JSONOutput) throws(TraceError) {
        guard let face = reading.face, let scores = reading.scores else { return }
        out.key("face")
        out.byte(UInt8(ascii: "["))
        out.int(face.x)
        out.byte(UInt8(ascii: ","))
        out.int(face.y)
        out.byte(UInt8(ascii: ","))
        out.int(face.width)
        out.byte(UInt8(ascii: ","))
        out.int(face.height)
        out.byte(UInt8(ascii: "]"))
        out.key("scores")
        out.byte(UInt8(ascii: "{"))
        for (index, expression) in Expression.allCases.enumerated() {
            if index > 0 { out.byte(UInt8(ascii: ",")) }
            out.string(expression.rawValue)
            out.byte(UInt8(ascii: ":"))
            try number(&out, scores[expression], field: "scores.\(expression.rawValue)")
        }
        out.byte(UInt8(ascii: "}"))
        if let id = reading.faceID {
            out.key("id")
            out.int(id)
        }
        if reading.faceCount != 1 || reading.rank != 0 {
            out.key("rank")
            out.int(reading.rank)
            out.key("faces")
            out.int(reading.faceCount)
        }
    }

    private func encodeAppEvent(_ event: AppEvent, _ out: inout JSONOutput) throws(TraceError) {
        guard !event.name.isEmpty else {
            throw TraceError(.invalidValue, line: 0, field: "event", "an app event needs a name")
        }
        out.key("event")
        out.string(event.name)
        guard !event.attributes.isEmpty else { return }
        out.key("data")
        try attributes(event.attributes, &out)
    }

    private func attributes(_ attributes: [String: AppEventValue], _ out: inout JSONOutput) throws(TraceError) {
        try out.sortedObject(attributes) { (out, key, value) throws(TraceError) in
            switch value {
            case .string(let text): out.string(text)
            case .int(let number): out.int(number)
            case .double(let number): try self.number(&out, number, field: "data.\(key)")
            case .bool(let flag): out.bool(flag)
            }
        }
    }

    /// An app event's attributes as the `data` object of its line, or "" when it has none.
    package func attributes(_ attributes: [String: AppEventValue]) throws(TraceError) -> String {
        guard !attributes.isEmpty else { return "" }
        var out = JSONOutput()
        try self.attributes(attributes, &out)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    private func number(_ out: inout JSONOutput, _ value: Double, field: @autoclosure () -> String) throws(TraceError) {
        try Self.checkFinite(value, field: field())
        out.double(value)
    }

    /// Throws unless `value` is finite: a trace's numbers are JSON's.
    @inline(__always)
    package static func checkFinite(_ value: Double, field: @autoclosure () -> String) throws(TraceError) {
        guard value.isFinite else {
            throw TraceError(.invalidValue, line: 0, field: field(), "\(value) cannot be written: JSON numbers are finite")
        }
    }

    /// Writes `[a,b,…]`; a non-finite element is refused as `field[index]`.
    private func numbers(_ out: inout JSONOutput, _ values: Double..., field: String) throws(TraceError) {
        out.byte(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { out.byte(UInt8(ascii: ",")) }
            try number(&out, value, field: "\(field)[\(index)]")
        }
        out.byte(UInt8(ascii: "]"))
    }

    private func optionalNumber(
        _ out: inout JSONOutput, _ key: StaticString, _ value: Double?, field: @autoclosure () -> String
    ) throws(TraceError) {
        guard let value else { return }
        out.key(key)
        try number(&out, value, field: field())
    }

    static func readingName(_ reading: Reading) -> String {
        switch reading {
        case .motion(let sample): "\(sample.quantity.rawValue) sample"
        case .attitude: "attitude sample"
        case .pointer: "pointer event"
        case .key: "key event"
        case .location: "location fix"
        case .frame: "frame"
        case .expression: "expression reading"
        case .playback: "playback event"
        case .appEvent: "app event"
        case .custom(let custom): "\(custom.kind.rawValue) reading"
        }
    }
}
