import TraceFormat
import HAL
import MCAP

/// Turns a trace's MCAP messages back into records (``MCAPTraceFile``).
///
/// Motion samples, the hot path, are read straight from the message's bytes. Every other record is checked by the
/// JSON Lines trace's own rules: its fields are written as the record's line and read back by ``TraceDecoder``, so
/// that what one container refuses the other does too, with the same words.
struct MCAPTraceDecoder {
    let header: TraceHeader
    let file: String
    private var json: TraceDecoder
    private let jsonEncoder: TraceEncoder
    private var schemas: [UInt16: String] = [:]
    /// What each MCAP channel id is, by id.
    private var targets: [Target?] = []
    private var lastTimestamps: [Int64]
    private var line = JSONOutput()

    /// An MCAP channel's trace channel and message format.
    private struct Target {
        var index: Int
        var layout: MCAPMessageFormat
    }

    init(header: TraceHeader, file: String) {
        self.header = header
        self.file = file
        json = TraceDecoder(header: header, file: file)
        jsonEncoder = TraceEncoder(header: header)
        lastTimestamps = Array(repeating: .min, count: header.channels.count)
    }

    /// Learns a schema's name, for the channels that name it.
    mutating func declare(_ schema: MCAPSchema) {
        schemas[schema.id] = schema.name
    }

    /// Learns what an MCAP channel holds: its trace channel (by its `index` metadata) and, from the channel's kind
    /// and schema, its messages' layout.
    mutating func declare(_ channel: MCAPChannel, schemaName: String) throws(TraceError) {
        if channel.metadata["derived-from"] != nil {
            // Derived from a trace channel (a speaker's sound), not one of the trace's: its messages are left out.
            if targets.count <= Int(channel.id) { targets += Array(repeating: nil, count: Int(channel.id) + 1 - targets.count) }
            targets[Int(channel.id)] = Target(index: -1, layout: .derived)
            return
        }
        guard let index = channel.metadata["index"].flatMap(Int.init), header.channels.indices.contains(index),
              header.channels[index].id == channel.topic else {
            throw TraceError(.badHeader, file: file, line: 0, field: "index", "MCAP channel \(channel.id) (\(channel.topic)) is not a channel of the header: its 'index' must name the header's channel '\(channel.topic)'")
        }
        let kind = header.channels[index].kind
        let formats = MCAPRecordLayouts.layout(for: kind).formats
        guard let layout = formats[schemaName] else {
            throw TraceError(.badHeader, file: file, line: 0, field: "channel \(channel.id) (\(channel.topic))",
                "its schema is '\(schemaName)', and a trace's \(kind.rawValue) channels are in \(formats.keys.sorted().joined(separator: " or "))")
        }
        let encoding = layout == .json ? "json" : "protobuf"
        guard channel.messageEncoding == encoding else {
            throw TraceError(.badHeader, file: file, line: 0, field: "channel \(channel.id) (\(channel.topic))", "its messages are '\(channel.messageEncoding)', not '\(encoding)'")
        }
        if targets.count <= Int(channel.id) { targets += Array(repeating: nil, count: Int(channel.id) + 1 - targets.count) }
        targets[Int(channel.id)] = Target(index: index, layout: layout)
    }

    /// ``declare(_:schemaName:)`` with the schema's name as declared.
    mutating func declare(_ channel: MCAPChannel) throws(TraceError) {
        try declare(channel, schemaName: schemas[channel.schemaID] ?? "")
    }

    /// Learns the schemas and channels a scan finds.
    mutating func declare(_ record: MCAPReader.Record) throws(TraceError) {
        switch record {
        case .schema(let schema): declare(schema)
        case .channel(let channel): try declare(channel)
        default: break
        }
    }

    /// The record a message holds, and for a frame the file a JSON Lines trace kept it in; nil for a message on a
    /// derived channel, which is not part of the trace.
    mutating func decode(_ message: MCAPMessageView) throws(TraceError) -> (record: TraceRecord, framePath: String?)? {
        if let (channel, sample) = motion(message) { return (TraceRecord(channel: channel, motion: sample), nil) }
        return try decodeOther(message)
    }

    /// ``decode(_:)`` for a message ``motion(_:)`` did not take.
    mutating func decodeOther(_ message: MCAPMessageView) throws(TraceError) -> (record: TraceRecord, framePath: String?)? {
        let id = Int(message.channelID)
        guard id < targets.count, let target = targets[id] else {
            throw TraceError(.unknownChannel, file: file, line: 0, "\(message.place): a message on MCAP channel \(message.channelID), which is not one of the trace's")
        }
        if target.layout == .derived { return nil }
        return try decodeChecked(message, target)
    }

    /// The hot path: a motion sample as the writer lays it out, finite, in time order, with its trace channel; nil
    /// for anything else, which ``decode(_:)`` reads field by field and says what is wrong with.
    @inline(__always)
    mutating func motion(_ message: MCAPMessageView) -> (Int, MotionSample)? {
        let id = Int(message.channelID)
        guard id < targets.count, let target = targets[id], case .motion(let quantity) = target.layout,
              let vector = Self.motion(message.data), vector.x.isFinite && vector.y.isFinite && vector.z.isFinite,
              message.logTime <= UInt64(Int64.max) else { return nil }
        let time = Int64(message.logTime)
        return lastTimestamps.withUnsafeMutableBufferPointer { last in
            guard time >= last[target.index] else { return nil }
            last[target.index] = time
            return (target.index, MotionSample(timestamp: Timestamp(nanoseconds: time), quantity: quantity, value: vector))
        }
    }

    /// The three doubles of a hal.MotionSample laid out as the writer lays it out (fields 1, 2 and 3 in order), or
    /// nil for any other layout.
    @inline(__always)
    private static func motion(_ data: UnsafeRawBufferPointer) -> Vector3? {
        guard data.count == 27, data[0] == 0x09, data[9] == 0x11, data[18] == 0x19 else { return nil }
        return Vector3(
            x: Double(bitPattern: UInt64(littleEndian: data.loadUnaligned(fromByteOffset: 1, as: UInt64.self))),
            y: Double(bitPattern: UInt64(littleEndian: data.loadUnaligned(fromByteOffset: 10, as: UInt64.self))),
            z: Double(bitPattern: UInt64(littleEndian: data.loadUnaligned(fromByteOffset: 19, as: UInt64.self))))
    }

    /// Every other message, and a motion sample that is laid out otherwise or breaks a rule, checked field by field.
    private mutating func decodeChecked(_ message: MCAPMessageView, _ target: Target) throws(TraceError) -> (record: TraceRecord, framePath: String?) {
        func fail(_ kind: TraceError.Kind, _ field: String?, _ reason: String) -> TraceError {
            TraceError(kind, file: file, line: 0, field: field, "\(message.place): the message on channel '\(header.channels[target.index].id)': \(reason)")
        }
        guard let time = Int64(exactly: message.logTime) else {
            throw fail(.invalidValue, "t", "log time \(message.logTime) is past what a trace's times hold (2^63 - 1 ns)")
        }
        if case .motion(let quantity) = target.layout {
            var values = [0.0, 0.0, 0.0]
            do {
                var reader = Protobuf.Reader(message.data)
                while let field = try reader.next() {
                    guard (1...3).contains(field.number) else { continue }
                    try field.expect(.fixed64)
                    values[field.number - 1] = field.double
                }
            } catch {
                throw fail(.invalidValue, "v", "byte \(error.offset) of the message: \(error.reason)")
            }
            for (index, value) in values.enumerated() where !value.isFinite {
                throw fail(.invalidValue, "v[\(index)]", "\(value) is not a finite number")
            }
            guard time >= lastTimestamps[target.index] else {
                throw fail(.timestampBackwards, "t", "\(time) is earlier than \(lastTimestamps[target.index]) before it")
            }
            lastTimestamps[target.index] = time
            let vector = Vector3(x: values[0], y: values[1], z: values[2])
            return (TraceRecord(channel: target.index, motion: MotionSample(timestamp: Timestamp(nanoseconds: time), quantity: quantity, value: vector)), nil)
        }
        do {
            var frameData: [UInt8]?
            var framePath: String?
            if target.layout == .json {
                line.bytes.removeAll(keepingCapacity: true)
                line.bytes.append(contentsOf: message.data)
            } else {
                line.bytes.removeAll(keepingCapacity: true)
                line.raw("{\"t\":")
                line.int(time)
                line.raw(",\"ch\":")
                line.string(header.channels[target.index].id)
                var reader = Protobuf.Reader(message.data)
                switch target.layout {
                case .pose: try pose(&reader)
                case .pointer: try pointer(&reader)
                case .key: try key(&reader)
                case .location: try location(&reader)
                case .rawImage, .compressedImage: (frameData, framePath) = try frame(&reader, compressed: target.layout == .compressedImage)
                case .expression: try expression(&reader)
                case .playback: try playback(&reader)
                case .log: try log(&reader)
                case .motion, .json, .derived: break
                }
                line.byte(UInt8(ascii: "}"))
            }
            var record = try line.bytes.withUnsafeBufferPointer { bytes throws(TraceError) in try json.decodeRecord(bytes, lineNumber: 0) }
            guard record.channel == target.index, record.timestamp.nanoseconds == time else {
                throw TraceError(.invalidValue, line: 0, field: "ch", "the record says channel '\(header.channels[record.channel].id)' at \(record.timestamp.nanoseconds) ns, and the message is on '\(header.channels[target.index].id)' at \(time) ns")
            }
            if let frameData, case .frame(var frame) = record.reading {
                frame.storage = .bytes(frameData)
                record.reading = .frame(frame)
            }
            return (record, framePath)
        } catch let error as Protobuf.DecodeError {
            throw fail(.invalidValue, nil, "byte \(error.offset) of the message: \(error.reason)")
        } catch let error as TraceError {
            throw fail(error.kind, error.field, error.message)
        } catch {
            throw fail(.invalidValue, nil, "\(error)")
        }
    }

    // MARK: Protobuf to the record's line

    /// Writes `"key":value`; a number JSON cannot hold is refused here, naming the field.
    private mutating func number(_ key: StaticString, _ value: Double) throws(TraceError) {
        line.key(key)
        try finite(value, "\(key)")
        line.double(value)
    }

    private func finite(_ value: Double, _ field: String) throws(TraceError) {
        guard value.isFinite else { throw TraceError(.invalidValue, line: 0, field: field, "\(value) is not a finite number") }
    }

    private mutating func pose(_ reader: inout Protobuf.Reader) throws {
        var q = [0.0, 0.0, 0.0, 0.0]  // x, y, z, w
        var accuracy: Double?
        while let field = try reader.next() {
            switch field.number {
            case 3:
                try field.expect(.lengthDelimited)
                var pose = reader.nested(field)
                while let member = try pose.next() {
                    guard member.number == 2 else { continue }
                    try member.expect(.lengthDelimited)
                    var orientation = reader.nested(member)
                    while let component = try orientation.next() {
                        guard (1...4).contains(component.number) else { continue }
                        try component.expect(.fixed64)
                        q[component.number - 1] = component.double
                    }
                }
            case TraceSchemas.Extra.headingAccuracy:
                try field.expect(.fixed64)
                accuracy = field.double
            default: break
            }
        }
        line.key("q")
        line.byte(UInt8(ascii: "["))
        for (index, value) in [q[3], q[0], q[1], q[2]].enumerated() {
            if index > 0 { line.byte(UInt8(ascii: ",")) }
            try finite(value, "q[\(index)]")
            line.double(value)
        }
        line.byte(UInt8(ascii: "]"))
        if let accuracy { try number("hacc", accuracy) }
    }

    private mutating func pointer(_ reader: inout Protobuf.Reader) throws {
        var phase = "", pointer: Int64 = 0, x = 0.0, y = 0.0
        while let field = try reader.next() {
            switch field.number {
            case 1: try field.expect(.lengthDelimited); phase = try reader.string(field)
            case 2: try field.expect(.varint); pointer = field.int64
            case 3: try field.expect(.fixed64); x = field.double
            case 4: try field.expect(.fixed64); y = field.double
            default: break
            }
        }
        line.key("phase")
        line.string(phase)
        line.key("pointer")
        line.int(pointer)
        try number("x", x)
        try number("y", y)
    }

    private mutating func key(_ reader: inout Protobuf.Reader) throws {
        var code: Int64 = 0, state = ""
        while let field = try reader.next() {
            switch field.number {
            case 1: try field.expect(.varint); code = field.int64
            case 2: try field.expect(.lengthDelimited); state = try reader.string(field)
            default: break
            }
        }
        line.key("code")
        line.int(code)
        line.key("state")
        line.string(state)
    }

    private mutating func location(_ reader: inout Protobuf.Reader) throws {
        var latitude = 0.0, longitude = 0.0
        var altitude: Double?
        var extras: [String: String] = [:]
        while let field = try reader.next() {
            switch field.number {
            case 1: try field.expect(.fixed64); latitude = field.double
            case 2: try field.expect(.fixed64); longitude = field.double
            case 3: try field.expect(.fixed64); altitude = field.double
            case 9:
                try field.expect(.lengthDelimited)
                var pair = reader.nested(field)
                var key = "", value = ""
                while let member = try pair.next() {
                    switch member.number {
                    case 1: try member.expect(.lengthDelimited); key = try reader.string(member)
                    case 2: try member.expect(.lengthDelimited); value = try reader.string(member)
                    default: break
                    }
                }
                guard extras.updateValue(value, forKey: key) == nil else {
                    throw TraceError(.invalidValue, line: 0, field: "metadata", "the key '\(key)' is given twice")
                }
            default: break
            }
        }
        // A key the trace does not have goes into the line, and the JSON Lines decoder refuses it by name.
        for key in extras.keys.sorted() where !TraceSchemas.locationKeys.contains(key) {
            line.byte(UInt8(ascii: ","))
            line.string(key)
            line.byte(UInt8(ascii: ":"))
            line.string(extras[key]!)
        }
        let mode = extras["mode"] ?? ""
        line.key("mode")
        line.string(mode)
        if let utc = extras["utc"] {
            line.key("utc")
            line.string(utc)
        }
        if mode != FixMode.none.rawValue {
            try number("lat", latitude)
            try number("lon", longitude)
        }
        if let altitude { try number("alt", altitude) }
        for key in ["hacc", "vacc", "speed", "course"] {
            guard let text = extras[key] else { continue }
            guard let value = Double(text), value.isFinite else {
                throw TraceError(.invalidValue, line: 0, field: key, "the metadata's '\(key)' is '\(text)', not a finite number")
            }
            line.byte(UInt8(ascii: ","))
            line.string(key)
            line.byte(UInt8(ascii: ":"))
            line.double(value)
        }
        if let text = extras["sats"] {
            guard let satellites = Int(text) else { throw TraceError(.invalidValue, line: 0, field: "sats", "metadata 'sats' is '\(text)', not a whole number") }
            line.key("sats")
            line.int(satellites)
        }
    }

    private mutating func frame(_ reader: inout Protobuf.Reader, compressed: Bool) throws -> ([UInt8], String?) {
        var width: UInt64 = 0, height: UInt64 = 0, stride: UInt64 = 0, sequence: UInt64 = 0
        var data: [UInt8] = []
        var encoding = "", format: String?, file: String?
        while let field = try reader.next() {
            switch (compressed, field.number) {
            case (false, 2): try field.expect(.fixed32); width = field.bits
            case (false, 3): try field.expect(.fixed32); height = field.bits
            case (false, 4), (true, 3): try field.expect(.lengthDelimited); encoding = try reader.string(field)
            case (false, 5): try field.expect(.fixed32); stride = field.bits
            case (false, 6), (true, 2): try field.expect(.lengthDelimited); data = reader.data(field)
            case (true, TraceSchemas.Extra.width): try field.expect(.varint); width = field.bits
            case (true, TraceSchemas.Extra.height): try field.expect(.varint); height = field.bits
            case (true, TraceSchemas.Extra.stride): try field.expect(.varint); stride = field.bits
            case (_, TraceSchemas.Extra.sequence): try field.expect(.varint); sequence = field.bits
            case (_, TraceSchemas.Extra.file): try field.expect(.lengthDelimited); file = try reader.string(field)
            case (_, TraceSchemas.Extra.pixelFormat): try field.expect(.lengthDelimited); format = try reader.string(field)
            default: break
            }
        }
        let pixelFormat = format ?? PixelFormat.allCases.first {
            $0.isCompressed == compressed && TraceSchemas.rawImageEncoding($0) == encoding
        }?.rawValue ?? encoding
        line.key("seq")
        line.int(sequence)
        line.key("width")
        line.int(width)
        line.key("height")
        line.int(height)
        line.key("format")
        line.string(pixelFormat)
        if stride != 0 {
            line.key("stride")
            line.int(stride)
        }
        // The decoder checks a frame's file name; the pixels are in memory, and the name is kept for a conversion.
        line.key("file")
        line.string(file ?? TraceSchemas.placeholderFrameFile)
        return (data, file)
    }

    private mutating func expression(_ reader: inout Protobuf.Reader) throws {
        var face: [Int64]?
        var scores = [Double](repeating: 0, count: Expression.allCases.count)
        var faceID: Int64?
        var rank: Int64 = 0, faces: Int64 = 0
        var sawScores = false
        while let field = try reader.next() {
            switch field.number {
            case 1:
                try field.expect(.lengthDelimited)
                var box = reader.nested(field)
                var values: [Int64] = [0, 0, 0, 0]
                while let member = try box.next() {
                    guard (1...4).contains(member.number) else { continue }
                    try member.expect(.varint)
                    values[member.number - 1] = member.int64
                }
                face = values
            case 2:
                try field.expect(.lengthDelimited)
                sawScores = true
                var nested = reader.nested(field)
                while let member = try nested.next() {
                    guard (1...scores.count).contains(member.number) else { continue }
                    try member.expect(.fixed64)
                    scores[member.number - 1] = member.double
                }
            case 3: try field.expect(.varint); faceID = field.int64
            case 4: try field.expect(.varint); rank = field.int64
            case 5: try field.expect(.varint); faces = field.int64
            default: break
            }
        }
        guard let face else {
            // No face: anything else the message has goes into the line, which the JSON Lines decoder refuses.
            if sawScores { line.raw(",\"scores\":{}") }
            if let faceID {
                line.key("id")
                line.int(faceID)
            }
            if rank != 0 || faces != 0 {
                line.key("rank")
                line.int(rank)
            }
            return
        }
        // The JSON Lines encoder writes the reading's fields; the decoder then checks them.
        for (index, expression) in Expression.allCases.enumerated() { try finite(scores[index], "scores.\(expression.rawValue)") }
        let reading = ExpressionReading(
            timestamp: .zero, face: FaceBox(x: Int(face[0]), y: Int(face[1]), width: Int(face[2]), height: Int(face[3])),
            scores: ExpressionScores(scores)!, faceID: faceID.map { Int($0) }, rank: Int(rank), faceCount: Int(faces))
        try jsonEncoder.encodeExpression(reading, &line)
    }

    private mutating func playback(_ reader: inout Protobuf.Reader) throws {
        var phase = ""
        var clip: String?, speech: String?, voice: String?, requested: Int64?, gain: Double?
        while let field = try reader.next() {
            guard (1...6).contains(field.number) else { continue }
            if field.number == 5 {
                try field.expect(.varint)
                requested = field.int64
                continue
            }
            if field.number == 6 {
                try field.expect(.fixed64)
                gain = field.double
                continue
            }
            try field.expect(.lengthDelimited)
            switch field.number {
            case 1: phase = try reader.string(field)
            case 2: clip = try reader.string(field)
            case 3: speech = try reader.string(field)
            default: voice = try reader.string(field)
            }
        }
        line.key("phase")
        line.string(phase)
        for (key, value) in [("clip", clip), ("speech", speech), ("voice", voice)] {
            guard let value else { continue }
            line.byte(UInt8(ascii: ","))
            line.string(key)
            line.byte(UInt8(ascii: ":"))
            line.string(value)
        }
        if let requested {
            line.key("requested")
            line.int(requested)
        }
        if let gain {
            line.key("gain")
            line.double(gain)
        }
    }

    private mutating func log(_ reader: inout Protobuf.Reader) throws {
        var text = "", name = ""
        while let field = try reader.next() {
            switch field.number {
            case 3: try field.expect(.lengthDelimited); text = try reader.string(field)
            case 4: try field.expect(.lengthDelimited); name = try reader.string(field)
            default: break
            }
        }
        line.key("event")
        line.string(name)
        guard text != name else { return }
        guard text.utf8.starts(with: Array(name.utf8) + [UInt8(ascii: " ")]) else {
            throw TraceError(.invalidValue, line: 0, field: "message", "an app event's log message is its name ('\(name)'), then a space and its data as a JSON object")
        }
        let data = Array(text.utf8.dropFirst(name.utf8.count + 1))
        // One JSON object and nothing after it: the data cannot add members to the record.
        let whole = data.withUnsafeBufferPointer { bytes -> Bool in
            var scanner = JSONScanner(bytes)
            guard scanner.peek() == UInt8(ascii: "{"), (try? scanner.skipValue()) != nil else { return false }
            return (try? scanner.expectEnd()) != nil
        }
        guard whole else { throw TraceError(.invalidValue, line: 0, field: "data", "an app event's data is one JSON object") }
        line.key("data")
        line.bytes.append(contentsOf: data)
    }
}

extension Protobuf.Field {
    /// Throws unless the field has wire type `type`, as its schema says.
    func expect(_ type: Protobuf.WireType) throws(Protobuf.DecodeError) {
        guard self.type == type else {
            throw Protobuf.DecodeError(offset: range.lowerBound, reason: "field \(number) has wire type \(self.type.rawValue), and its schema says \(type.rawValue)")
        }
    }
}
