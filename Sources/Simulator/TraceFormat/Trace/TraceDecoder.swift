import LibC
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
    private let codecs: [RecordCodec]
    private var lastTimestamps: [Int64]
    private var scratch: [JSONScanner.Field] = []

    /// Creates a decoder for records that follow `header`.
    public init(header: TraceHeader, file: String? = nil) {
        self.header = header
        self.file = file
        self.channelIDs = header.channels.map { Array($0.id.utf8) }
        self.codecs = header.channels.map { RecordCodec($0.kind) }
        self.lastTimestamps = Array(repeating: .min, count: header.channels.count)
    }

    // MARK: Header

    /// Decodes the header line.
    public static func decodeHeader(_ line: UnsafeBufferPointer<UInt8>, file: String? = nil) throws(TraceError) -> TraceHeader {
        var scanner = JSONScanner(line)
        var scratch: [JSONScanner.Field] = []
        var fields = try RecordFields(scanner: &scanner, scratch: &scratch, file: file, line: 1)
        do { try scanner.expectEnd() } catch { throw TraceError(.malformedJSON, file: file, line: 1, error.description) }
        let format = try fields.optional("format") { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.readString() }
        guard format == TraceHeader.formatName else {
            throw TraceError(
                .badHeader, file: file, line: 1, field: "format",
                "the first line must be a header with \"format\":\"\(TraceHeader.formatName)\"")
        }
        let version = try fields.required("version", "format version") { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.readInt64() }
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
        let readString = { (s: inout JSONScanner) throws(JSONSyntaxError) -> String in try s.readString() }
        let readNumber = { (s: inout JSONScanner) throws(JSONSyntaxError) -> Double in try s.readDouble() }
        let id = try fields.required("id", "channel id", readString)
        guard TraceChannel.isValidID(id) else {
            throw fields.error(.invalidValue, "id", "'\(id)' is not a valid channel id (letters, digits, '.', '_', '-')")
        }
        guard !existing.contains(where: { $0.id == id }) else {
            throw fields.error(.invalidValue, "id", "channel id '\(id)' is used twice")
        }
        let kindName = try fields.required("kind", "device kind", readString)
        guard let kind = DeviceKind(rawValue: kindName) else {
            let known = DeviceKind.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            throw fields.error(
                .invalidValue, "kind",
                "'\(kindName)' is not one of \(known); a program that adds a kind registers it (KindRegistry.register) before reading its traces")
        }
        let source = try fields.required("source", "source URI", readString)
        let units = try fields.optional("units", readString)
        var channel = TraceChannel(id: id, kind: kind, source: source, units: units)
        channel.units = units
        guard units == kind.units else {
            if units == nil {
                throw fields.error(.missingField, "units", "\(kind.rawValue) channels must state their units ('\(kind.units!)')")
            }
            throw fields.error(.wrongUnits, "units", TraceEncoder.unitsMessage(channel))
        }
        channel.rate = try fields.optional("rate", readNumber)
        if let rate = channel.rate, !(rate > 0) {
            throw fields.error(.invalidValue, "rate", "a rate is a positive number of hertz")
        }
        channel.name = try fields.optional("name", readString)
        channel.backend = try fields.optional("backend", readString)
        channel.range = try fields.optional("range", readNumber)
        channel.resolution = try fields.optional("resolution", readNumber)
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
            return TraceRecord(channel: channel, reading: .motion(sample))
        }
        var scanner = JSONScanner(line)
        var fields = try RecordFields(scanner: &scanner, scratch: &scratch, file: file, line: lineNumber)
        do { try scanner.expectEnd() } catch {
            throw TraceError(.malformedJSON, file: file, line: lineNumber, error.description)
        }
        let nanoseconds = try fields.required("t", "timestamp") { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.readInt64() }
        let channel = try channelIndex(&fields)
        let timestamp = Timestamp(nanoseconds: nanoseconds)
        guard nanoseconds >= lastTimestamps[channel] else {
            throw fields.error(
                .timestampBackwards, "t",
                "\(nanoseconds) is earlier than \(lastTimestamps[channel]) before it in channel '\(header.channels[channel].id)'")
        }
        let kind = header.channels[channel].kind
        let reading: Reading
        switch codecs[channel] {
        case .motion(let quantity):
            reading = .motion(MotionSample(timestamp: timestamp, quantity: quantity, value: try vector(&fields)))
        case .attitude:
            reading = .attitude(try attitude(&fields, timestamp, frame: header.channels[channel].frame!))
        case .pointer:
            reading = .pointer(try pointerEvent(&fields, timestamp))
        case .keys:
            let code = try fields.required("code", "key code") { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.readInt64() }
            let state = try fields.enumeration("state", KeyState.self)!
            reading = .key(KeyEvent(timestamp: timestamp, code: Int(code), state: state))
        case .location:
            reading = .location(try locationFix(&fields, timestamp))
        case .camera:
            reading = .frame(try frame(&fields, timestamp))
        case .expression:
            reading = .expression(try expressionReading(&fields, timestamp))
        case .speaker:
            reading = .playback(try playbackEvent(&fields, timestamp))
        case .app:
            reading = .appEvent(try appEvent(&fields, timestamp))
        case .fields(let codec):
            var values = RecordValues(try fields.remainingValues())
            do {
                reading = try codec.decode(&values, timestamp)
            } catch {
                throw fields.error(error.isMissing ? .missingField : .invalidValue, error.field, error.message)
            }
            if let unread = values.unread.first {
                throw fields.error(.unknownField, unread, "\(kind.rawValue) records have no such field")
            }
        case .none:
            throw fields.error(.invalidValue, "ch", "channel '\(header.channels[channel].id)' is of kind '\(kind.rawValue)', which has no registered trace fields")
        }
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
                      case .motion(let kind) = codecs[index]
                else { return nil }
                scanner.position = idEnd + 1
                (channel, quantity) = (index, kind)
            case (1, UInt8(ascii: "v"), _):
                guard vector == nil, let value = try? Self.readVector(&scanner) else { return nil }
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

    private func vector(_ fields: inout RecordFields) throws(TraceError) -> Vector3 {
        try fields.required("v", "vector [x, y, z]", Self.readVector)
    }

    /// A motion record's `v`: an array of exactly three numbers.
    @inline(__always)
    private static func readVector(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> Vector3 {
        var vector = Vector3.zero
        try scanner.readNumberArray(count: 3) { index, value in
            switch index {
            case 0: vector.x = value
            case 1: vector.y = value
            default: vector.z = value
            }
        }
        return vector
    }

    private func attitude(_ fields: inout RecordFields, _ timestamp: Timestamp, frame: EarthFrame) throws(TraceError) -> AttitudeSample {
        let q = try fields.required("q", "quaternion [w, x, y, z]") { (s: inout JSONScanner) throws(JSONSyntaxError) -> Quaternion in
            var q = Quaternion.identity
            try s.readNumberArray(count: 4) { index, value in
                switch index {
                case 0: q.w = value
                case 1: q.x = value
                case 2: q.y = value
                default: q.z = value
                }
            }
            return q
        }
        guard abs(q.magnitude - 1) <= 1e-6 else {
            throw fields.error(.invalidValue, "q", "a unit quaternion has norm 1, not \(q.magnitude)")
        }
        let accuracy = try nonNegative(&fields, "hacc")
        return AttitudeSample(timestamp: timestamp, quaternion: q, frame: frame, headingAccuracy: accuracy)
    }

    private func pointerEvent(_ fields: inout RecordFields, _ timestamp: Timestamp) throws(TraceError) -> PointerEvent {
        let phase = try fields.enumeration("phase", PointerPhase.self)!
        let pointer = try fields.optional("pointer") { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.readInt64() } ?? 0
        let x = try fields.required("x", "position x", Self.readDouble)
        let y = try fields.required("y", "position y", Self.readDouble)
        return PointerEvent(timestamp: timestamp, pointer: Int(pointer), phase: phase, x: x, y: y)
    }

    private static func readDouble(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> Double {
        try scanner.readDouble()
    }

    private static func readString(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> String {
        try scanner.readString()
    }

    private static func readInt(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> Int64 {
        try scanner.readInt64()
    }

    private func locationFix(_ fields: inout RecordFields, _ timestamp: Timestamp) throws(TraceError) -> LocationFix {
        let mode = try fields.enumeration("mode", FixMode.self)!
        var utc: Int64?
        if let text = try fields.optional("utc", Self.readString) {
            guard let parsed = UTCTime.parse(text) else {
                throw fields.error(.invalidValue, "utc", "'\(text)' is not an ISO 8601 UTC time such as 2026-11-21T10:15:30.25Z")
            }
            utc = parsed
        }
        var coordinate: GeoCoordinate?
        if mode == .none {
            for name in ["lat", "lon", "alt"] where fields.has(name) {
                throw fields.error(.invalidValue, name, "a fix with mode 'none' has no position")
            }
        } else {
            let latitude = try fields.required("lat", "latitude", Self.readDouble)
            let longitude = try fields.required("lon", "longitude", Self.readDouble)
            guard (-90...90).contains(latitude) else { throw fields.error(.invalidValue, "lat", "\(latitude) is outside -90...90") }
            guard (-180...180).contains(longitude) else { throw fields.error(.invalidValue, "lon", "\(longitude) is outside -180...180") }
            coordinate = GeoCoordinate(latitude: latitude, longitude: longitude)
        }
        var fix = LocationFix(timestamp: timestamp, utcNanoseconds: utc, mode: mode, coordinate: coordinate)
        fix.altitude = try fields.optional("alt", Self.readDouble)
        fix.horizontalAccuracy = try nonNegative(&fields, "hacc")
        fix.verticalAccuracy = try nonNegative(&fields, "vacc")
        fix.speed = try nonNegative(&fields, "speed")
        fix.course = try fields.optional("course", Self.readDouble)
        if let course = fix.course, !(0..<360).contains(course) {
            throw fields.error(.invalidValue, "course", "\(course) is outside 0..<360 degrees")
        }
        if let satellites = try fields.optional("sats", Self.readInt) {
            guard satellites >= 0 else { throw fields.error(.invalidValue, "sats", "a satellite count is not negative") }
            fix.satellites = Int(satellites)
        }
        return fix
    }

    private func nonNegative(_ fields: inout RecordFields, _ name: StaticString) throws(TraceError) -> Double? {
        guard let value = try fields.optional(name, Self.readDouble) else { return nil }
        guard value >= 0 else { throw fields.error(.invalidValue, "\(name)", "\(value) is negative") }
        return value
    }

    /// The largest width or height a frame has: V4L2's and the image decoders' sizes fit well inside it, and a
    /// frame's pixel count stays far from any integer's limit.
    package static let maximumFrameSide: Int64 = 65_535

    private func frame(_ fields: inout RecordFields, _ timestamp: Timestamp) throws(TraceError) -> Frame {
        let sequence = try fields.required("seq", "sequence number", Self.readInt)
        let width = try fields.required("width", "width", Self.readInt)
        let height = try fields.required("height", "height", Self.readInt)
        let format = try fields.enumeration("format", PixelFormat.self)!
        let stride = try fields.optional("stride", Self.readInt) ?? 0
        let path = try fields.required("file", "frame file", Self.readString)
        guard sequence >= 0 else { throw fields.error(.invalidValue, "seq", "a sequence number is not negative") }
        guard (1...Self.maximumFrameSide).contains(width) else {
            throw fields.error(.invalidValue, "width", "\(width) is not a width of 1...\(Self.maximumFrameSide) pixels")
        }
        guard (1...Self.maximumFrameSide).contains(height) else {
            throw fields.error(.invalidValue, "height", "\(height) is not a height of 1...\(Self.maximumFrameSide) pixels")
        }
        guard (0...(4 * Self.maximumFrameSide)).contains(stride) else {
            throw fields.error(.invalidValue, "stride", "\(stride) is not a stride of 0...\(4 * Self.maximumFrameSide) bytes")
        }
        guard TracePath.staysInsideTraceFolder(path) else {
            throw fields.error(.pathOutsideTrace, "file", "'\(path)' leaves the trace's folder; frame files must be inside it")
        }
        return Frame(
            timestamp: timestamp, sequence: UInt64(sequence), width: Int(width), height: Int(height),
            pixelFormat: format, bytesPerRow: Int(stride), storage: .file(path: path))
    }

    private func expressionReading(_ fields: inout RecordFields, _ timestamp: Timestamp) throws(TraceError) -> ExpressionReading {
        let face = try fields.optional("face") { (s: inout JSONScanner) throws(JSONSyntaxError) -> FaceBox in
            try s.expect(UInt8(ascii: "["), "[x, y, width, height]")
            var numbers: [Int] = []
            for index in 0..<4 {
                if index > 0 { try s.expect(UInt8(ascii: ","), "4 whole numbers") }
                numbers.append(Int(try s.readInt64()))
            }
            try s.expect(UInt8(ascii: "]"), "exactly 4 whole numbers")
            return FaceBox(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        }
        guard let face else {
            for field in ["scores", "id", "rank", "faces"] where fields.has(field) {
                throw fields.error(.invalidValue, field, "a reading with no face has no \(field)")
            }
            return .noFace(at: timestamp)
        }
        let faceID = try fields.optional("id", Self.readInt)
        let faceCount = try fields.optional("faces", Self.readInt) ?? 1
        let rank = try fields.optional("rank", Self.readInt) ?? 0
        if let faceID, faceID < 0 || faceID > Int64(Int32.max) {
            throw fields.error(.invalidValue, "id", "\(faceID) is not a face id (0...\(Int32.max))")
        }
        guard (1...1024).contains(faceCount) else { throw fields.error(.invalidValue, "faces", "\(faceCount) is not a face count (1...1024)") }
        guard (0..<faceCount).contains(rank) else {
            throw fields.error(.invalidValue, "rank", "\(rank) is not a place among \(faceCount) faces (0...\(faceCount - 1))")
        }
        guard var scoresScanner = fields.value("scores") else {
            throw fields.error(.missingField, "scores", "a reading with a face needs its 7 scores")
        }
        var scratch: [JSONScanner.Field] = []
        var scoreFields = try RecordFields(scanner: &scoresScanner, scratch: &scratch, file: file, line: fields.line, path: "scores.")
        var values: [Double] = []
        for expression in Expression.allCases {
            guard let score = try scoreFields.optional(named: expression.rawValue, Self.readDouble) else {
                throw scoreFields.error(.missingField, expression.rawValue, "a reading with a face needs all 7 scores")
            }
            guard (0...1).contains(score) else {
                throw scoreFields.error(.invalidValue, expression.rawValue, "\(score) is outside 0...1")
            }
            values.append(score)
        }
        try scoreFields.rejectUnread("scores")
        return ExpressionReading(
            timestamp: timestamp, face: face, scores: ExpressionScores(values)!, faceID: faceID.map { Int($0) }, rank: Int(rank),
            faceCount: Int(faceCount))
    }

    private func playbackEvent(_ fields: inout RecordFields, _ timestamp: Timestamp) throws(TraceError) -> PlaybackEvent {
        let phase = try fields.enumeration("phase", PlaybackPhase.self)!
        let clip = try fields.optional("clip", Self.readString)
        let speech = try fields.optional("speech", Self.readString)
        let item: PlaybackItem
        switch (clip, speech) {
        case (let name?, nil): item = .clip(name: name)
        case (nil, let text?): item = .speech(text: text, voice: try fields.required("voice", "voice", Self.readString))
        case (nil, nil): throw fields.error(.missingField, "clip", "a speaker record names a 'clip' or a 'speech'")
        case (.some, .some): throw fields.error(.invalidValue, "speech", "a speaker record has a 'clip' or a 'speech', not both")
        }
        let requested = try fields.optional("requested") { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.readInt64() }
        let gain = try fields.optional("gain") { (s: inout JSONScanner) throws(JSONSyntaxError) in try s.readDouble() }
        return PlaybackEvent(
            timestamp: timestamp, phase: phase, item: item, requested: requested.map { Timestamp(nanoseconds: $0) }, gain: gain)
    }

    private func appEvent(_ fields: inout RecordFields, _ timestamp: Timestamp) throws(TraceError) -> AppEvent {
        let name = try fields.required("event", "event name", Self.readString)
        guard !name.isEmpty else { throw fields.error(.invalidValue, "event", "an event name is not empty") }
        var attributes: [String: AppEventValue] = [:]
        if var dataScanner = fields.value("data") {
            var scratch: [JSONScanner.Field] = []
            let data = try RecordFields(scanner: &dataScanner, scratch: &scratch, file: file, line: fields.line, path: "data.")
            for field in data.fields {
                let key = dataScanner.keyString(field)
                var value = JSONScanner(fields.bytes, range: field.value)
                do {
                    switch value.peek() {
                    case UInt8(ascii: "\""): attributes[key] = .string(try value.readString())
                    case UInt8(ascii: "t"), UInt8(ascii: "f"): attributes[key] = .bool(try value.readBool())
                    default:
                        let start = value.position
                        let token = try value.numberToken()
                        value.position = start
                        attributes[key] = token.isInteger ? .int(try value.readInt64()) : .double(try value.readDouble())
                    }
                } catch {
                    throw data.error(.invalidValue, key, "an event's data values are strings, numbers or booleans")
                }
            }
        }
        return AppEvent(timestamp: timestamp, name: name, attributes: attributes)
    }
}
