import HAL

/// Turns trace lines into a header and records, rejecting anything the format does
/// not allow with a ``TraceError`` that names the line and the field.
///
/// It keeps the last timestamp of each channel, so feed it the lines in file order.
public struct TraceDecoder {
    /// The header the records are decoded against.
    public let header: TraceHeader
    /// The file name used in errors.
    public let file: String?
    private let channelIDs: [[UInt8]]
    private let layouts: [any RecordLayout]
    /// Each channel's ``RecordLayout/motionQuantity``, read once rather than through the layout on every line.
    private let motionQuantities: [MotionQuantity?]
    private var lastTimestamps: [Int64]
    private var scratch: [JSONScanner.Field] = []

    /// Creates a decoder for records that follow `header`.
    public init(header: TraceHeader, file: String? = nil) {
        self.header = header
        self.file = file
        self.channelIDs = header.channels.map { Array($0.id.utf8) }
        self.layouts = header.channels.map { RecordLayouts.layout(for: $0.kind) }
        self.motionQuantities = layouts.map(\.motionQuantity)
        self.lastTimestamps = Array(repeating: .min, count: header.channels.count)
    }

    // MARK: Header

    /// Decodes the header line.
    public static func decodeHeader(_ line: UnsafeBufferPointer<UInt8>, file: String? = nil) throws(TraceError) -> TraceHeader {
        var scanner = JSONScanner(line)
        var scratch: [JSONScanner.Field] = []
        var fields = try RecordFields(scanner: &scanner, scratch: &scratch, file: file, line: 1)
        do { try scanner.expectEnd() } catch { throw TraceError(.malformedJSON, file: file, line: 1, error.description) }
        let format = try fields.optional("format", Read.string)
        guard format == TraceHeader.formatName else {
            throw TraceError(
                .badHeader, file: file, line: 1, field: "format",
                "the first line must be a header with \"format\":\"\(TraceHeader.formatName)\"")
        }
        let version = try fields.required("version", "format version", Read.int)
        guard (1...Int64(TraceHeader.currentVersion)).contains(version) else {
            throw TraceError(
                .badHeader, file: file, line: 1, field: "version",
                "version \(version) is not supported (this reader knows 1 to \(TraceHeader.currentVersion))")
        }
        guard var channelsScanner = fields.value("channels") else {
            throw TraceError(.missingField, file: file, line: 1, field: "channels", "the header must list its channels")
        }
        var channels: [TraceChannel] = []
        do {
            try channelsScanner.expect(UInt8(ascii: "["), "an array of channels")
            if channelsScanner.peek() == UInt8(ascii: "]") {
                channelsScanner.position += 1
            } else {
                while true {
                    channels.append(try decodeChannel(&channelsScanner, index: channels.count, file: file, existing: channels))
                    if channelsScanner.peek() == UInt8(ascii: ",") {
                        channelsScanner.position += 1
                        continue
                    }
                    try channelsScanner.expect(UInt8(ascii: "]"), "',' or ']' in the channel list")
                    break
                }
            }
        } catch let error as JSONSyntaxError {
            throw TraceError(.invalidValue, file: file, line: 1, field: "channels", error.message)
        } catch let error as TraceError {
            throw error
        } catch {
            throw TraceError(.invalidValue, file: file, line: 1, field: "channels", "\(error)")
        }
        var metadata: [String: String] = [:]
        if var metaScanner = fields.value("meta") {
            var metaScratch: [JSONScanner.Field] = []
            let meta = try RecordFields(scanner: &metaScanner, scratch: &metaScratch, file: file, line: 1, path: "meta.")
            for field in meta.fields {
                let key = metaScanner.keyString(field)
                var valueScanner = JSONScanner(line, range: field.value)
                do { metadata[key] = try valueScanner.readString() } catch {
                    throw TraceError(.invalidValue, file: file, line: 1, field: "meta.\(key)", "metadata values are strings")
                }
            }
        }
        try fields.rejectUnread("headers")
        var header = TraceHeader(channels: channels, metadata: metadata)
        header.version = Int(version)
        return header
    }

    private static func decodeChannel(
        _ scanner: inout JSONScanner, index: Int, file: String?, existing: [TraceChannel]
    ) throws(TraceError) -> TraceChannel {
        var scratch: [JSONScanner.Field] = []
        var fields = try RecordFields(scanner: &scanner, scratch: &scratch, file: file, line: 1, path: "channels[\(index)].")
        let id = try fields.required("id", "channel id", Read.string)
        guard TraceChannel.isValidID(id) else {
            throw fields.error(.invalidValue, "id", "'\(id)' is not a valid channel id (letters, digits, '.', '_', '-')")
        }
        guard !existing.contains(where: { $0.id == id }) else {
            throw fields.error(.invalidValue, "id", "channel id '\(id)' is used twice")
        }
        let kindName = try fields.required("kind", "device kind", Read.string)
        guard let kind = DeviceKind(rawValue: kindName) else {
            let known = DeviceKind.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            throw fields.error(
                .invalidValue, "kind",
                "'\(kindName)' is not one of \(known); a program that adds a kind registers it (KindRegistry.register) before reading its traces")
        }
        let source = try fields.required("source", "source URI", Read.string)
        let units = try fields.optional("units", Read.string)
        var channel = TraceChannel(id: id, kind: kind, source: source, units: units)
        channel.units = units
        guard units == kind.units else {
            if units == nil {
                throw fields.error(.missingField, "units", "\(kind.rawValue) channels must state their units ('\(kind.units!)')")
            }
            throw fields.error(.wrongUnits, "units", TraceEncoder.unitsMessage(channel))
        }
        channel.rate = try fields.optional("rate", Read.double)
        if let rate = channel.rate, !(rate > 0) {
            throw fields.error(.invalidValue, "rate", "a rate is a positive number of hertz")
        }
        channel.name = try fields.optional("name", Read.string)
        channel.backend = try fields.optional("backend", Read.string)
        channel.range = try fields.optional("range", Read.double)
        channel.resolution = try fields.optional("resolution", Read.double)
        channel.frame = try fields.enumeration("frame", EarthFrame.self, required: false)
        guard (kind == .attitude) == (channel.frame != nil) else {
            throw fields.error(channel.frame == nil ? .missingField : .unknownField, "frame", TraceEncoder.frameMessage(kind))
        }
        try fields.rejectUnread("channels")
        return channel
    }

    // MARK: Records

    /// Decodes one record line. `lineNumber` is the 1-based line in the file, for errors.
    public mutating func decodeRecord(_ line: UnsafeBufferPointer<UInt8>, lineNumber: Int) throws(TraceError) -> TraceRecord {
        if let (nanoseconds, channel, quantity, vector) = canonicalMotion(line), nanoseconds >= lastTimestamps[channel] {
            lastTimestamps[channel] = nanoseconds
            let sample = MotionSample(
                timestamp: Timestamp(nanoseconds: nanoseconds),
                quantity: quantity, value: vector)
            return TraceRecord(channel: channel, motion: sample)
        }
        var scanner = JSONScanner(line)
        var fields = try RecordFields(scanner: &scanner, scratch: &scratch, file: file, line: lineNumber)
        do { try scanner.expectEnd() } catch {
            throw TraceError(.malformedJSON, file: file, line: lineNumber, error.description)
        }
        let nanoseconds = try fields.required("t", "timestamp", Read.int)
        let channel = try channelIndex(&fields)
        let timestamp = Timestamp(nanoseconds: nanoseconds)
        guard nanoseconds >= lastTimestamps[channel] else {
            throw fields.error(
                .timestampBackwards, "t",
                "\(nanoseconds) is earlier than \(lastTimestamps[channel]) before it in channel '\(header.channels[channel].id)'")
        }
        let kind = header.channels[channel].kind
        let reading = try layouts[channel].decode(&fields, at: timestamp, on: header.channels[channel])
        try fields.rejectUnread("\(kind.rawValue) records")
        lastTimestamps[channel] = nanoseconds
        return TraceRecord(channel: channel, reading: reading)
    }

    /// Decodes a motion record, `{"t":…,"ch":"…","v":[…,…,…]}`, in one pass: the writer's layout, and the same
    /// three fields in any order with any JSON whitespace, as a hand-edited file has them. Anything else (another
    /// field, a field twice, an escaped key or id, a non-motion channel, a bad value) returns `nil`, and the strict
    /// path decodes the line or says what is wrong with it. This is what keeps high-rate sensor traces fast.
    private func canonicalMotion(_ line: UnsafeBufferPointer<UInt8>) -> (Int64, Int, MotionQuantity, Vector3)? {
        var scanner = JSONScanner(line)
        guard scanner.peek() == UInt8(ascii: "{") else { return nil }
        scanner.position += 1
        var nanoseconds: Int64?, channel: Int?, quantity: MotionQuantity?, vector: Vector3?
        while true {
            // A key: plain bytes between quotes.
            guard scanner.peek() == UInt8(ascii: "\"") else { return nil }
            let keyStart = scanner.position + 1
            guard let keyEnd = Self.closingQuote(scanner.bytes, from: keyStart) else { return nil }
            scanner.position = keyEnd + 1
            guard scanner.peek() == UInt8(ascii: ":") else { return nil }
            scanner.position += 1
            switch (keyEnd - keyStart, scanner.bytes[keyStart], keyEnd - keyStart > 1 ? scanner.bytes[keyStart + 1] : 0) {
            case (1, UInt8(ascii: "t"), _):
                guard nanoseconds == nil, let value = try? scanner.readInt64() else { return nil }
                nanoseconds = value
            case (2, UInt8(ascii: "c"), UInt8(ascii: "h")):
                guard channel == nil, scanner.peek() == UInt8(ascii: "\""),
                      let idEnd = Self.closingQuote(scanner.bytes, from: scanner.position + 1),
                      let index = channelIndex(rawID: (scanner.position + 1)..<idEnd, in: scanner),
                      let kind = motionQuantities[index]
                else { return nil }
                scanner.position = idEnd + 1
                (channel, quantity) = (index, kind)
            case (1, UInt8(ascii: "v"), _):
                guard vector == nil, let value = try? MotionLayout.readVector(&scanner) else { return nil }
                vector = value
            default:
                return nil
            }
            switch scanner.peek() {
            case UInt8(ascii: ","): scanner.position += 1
            case UInt8(ascii: "}"):
                scanner.position += 1
                guard (try? scanner.expectEnd()) != nil, let nanoseconds, let channel, let quantity, let vector else { return nil }
                return (nanoseconds, channel, quantity, vector)
            default: return nil
            }
        }
    }

    /// The index of the quote that ends a string starting at `start`, or `nil` if the string has an escape or
    /// does not end on the line.
    @inline(__always)
    private static func closingQuote(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""): return index
            case UInt8(ascii: "\\"): return nil
            default: index += 1
            }
        }
        return nil
    }

    /// The channel whose id is the unescaped bytes at `range` of the scanner's line.
    private func channelIndex(rawID range: Range<Int>, in scanner: JSONScanner) -> Int? {
        channelIDs.firstIndex { id in id.withUnsafeBufferPointer { scanner.sameBytes(range, $0) } }
    }

    private func channelIndex(_ fields: inout RecordFields) throws(TraceError) -> Int {
        guard let scanner = fields.value("ch") else {
            throw fields.error(.missingField, "ch", "required channel id is missing")
        }
        var probe = scanner
        guard probe.peek() == UInt8(ascii: "\"") else {
            throw fields.error(.invalidValue, "ch", "a channel id is a string")
        }
        let range: Range<Int>
        let hasEscapes: Bool
        do { (range, hasEscapes) = try probe.stringBytes() } catch {
            throw fields.error(.invalidValue, "ch", error.message)
        }
        if !hasEscapes {
            if let index = channelIndex(rawID: range, in: probe) { return index }
        } else if let text = try? probe.decodeString(range), let index = header.channelIndex(of: text) {
            return index
        }
        let name = (try? probe.decodeString(range)) ?? "?"
        let known = header.channels.map(\.id).joined(separator: ", ")
        throw fields.error(.unknownChannel, "ch", "no channel '\(name)' in the header (channels: \(known))")
    }

    /// The largest width or height a frame has: V4L2's and the image decoders' sizes fit well inside it, and a
    /// frame's pixel count stays far from any integer's limit.
    package static let maximumFrameSide: Int64 = 65_535
}
