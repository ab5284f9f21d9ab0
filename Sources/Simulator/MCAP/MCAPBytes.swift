/// Appends MCAP's little-endian fields to a byte array.
struct MCAPEncoder {
    var bytes: [UInt8] = []

    @inline(__always) mutating func u8(_ value: UInt8) { bytes.append(value) }

    @inline(__always) mutating func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }

    @inline(__always) mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }

    @inline(__always) mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }

    /// A string: its UTF-8 length as a u32, then the bytes.
    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        u32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// A map of strings: its byte length as a u32, then key and value strings, in key order (so that the same map
    /// gives the same bytes).
    mutating func stringMap(_ map: [String: String]) {
        let entries = map.sorted { $0.key < $1.key }
        u32(UInt32(entries.reduce(0) { $0 + 8 + $1.key.utf8.count + $1.value.utf8.count }))
        for (key, value) in entries {
            string(key)
            string(value)
        }
    }

    /// A map of u16 ids to u64 values: its byte length as a u32, then the pairs in id order.
    mutating func idMap(_ map: [UInt16: UInt64]) {
        u32(UInt32(map.count * 10))
        for (id, value) in map.sorted(by: { $0.key < $1.key }) {
            u16(id)
            u64(value)
        }
    }

    /// A record: the opcode, the content's length as a u64, then the content `body` appends.
    mutating func record(_ opcode: MCAPOpcode, _ body: (inout MCAPEncoder) -> Void) {
        u8(opcode.rawValue)
        let lengthAt = bytes.count
        u64(0)
        let start = bytes.count
        body(&self)
        let length = UInt64(bytes.count - start).littleEndian
        withUnsafeBytes(of: length) { raw in
            for index in 0..<8 { bytes[lengthAt + index] = raw[index] }
        }
    }
}

/// Reads MCAP's little-endian fields from the content of one record, checking every length against the record's
/// end. A field that runs past it is an error naming the field and its byte offset in the file.
struct MCAPDecoder {
    let bytes: [UInt8]
    /// The next byte to read, an index into `bytes`.
    var position: Int
    /// The end of the record's content.
    let end: Int
    /// The file offset of `bytes[0]`, for errors.
    let base: UInt64
    let file: String
    let record: String

    init(_ bytes: [UInt8], from start: Int, to end: Int, base: UInt64, file: String, record: String) {
        self.bytes = bytes
        position = start
        self.end = end
        self.base = base
        self.file = file
        self.record = record
    }

    var remaining: Int { end - position }

    func error(_ reason: String, at position: Int? = nil) -> MCAPError {
        MCAPError(file: file, offset: base + UInt64(position ?? self.position), record: record, reason)
    }

    mutating func take(_ count: Int, _ field: String) throws(MCAPError) -> Range<Int> {
        guard count >= 0, count <= remaining else {
            throw error("the \(field) field needs \(count) bytes but the record has \(remaining) left")
        }
        defer { position += count }
        return position..<(position + count)
    }

    private mutating func integer<Value: FixedWidthInteger>(_ field: String, as: Value.Type) throws(MCAPError) -> Value {
        let range = try take(MemoryLayout<Value>.size, field)
        var value: Value = 0
        for index in range.reversed() { value = value << 8 | Value(bytes[index]) }
        return value
    }

    mutating func u8(_ field: String) throws(MCAPError) -> UInt8 { try integer(field, as: UInt8.self) }
    mutating func u16(_ field: String) throws(MCAPError) -> UInt16 { try integer(field, as: UInt16.self) }
    mutating func u32(_ field: String) throws(MCAPError) -> UInt32 { try integer(field, as: UInt32.self) }
    mutating func u64(_ field: String) throws(MCAPError) -> UInt64 { try integer(field, as: UInt64.self) }

    /// A u32-length-prefixed UTF-8 string.
    mutating func string(_ field: String) throws(MCAPError) -> String {
        let at = position
        let length = try u32(field)
        let range = try take(Int(length), field)
        guard let text = String(validating: bytes[range], as: UTF8.self) else { throw error("the \(field) field is not UTF-8", at: at) }
        return text
    }

    /// A u32-length-prefixed map of strings.
    mutating func stringMap(_ field: String) throws(MCAPError) -> [String: String] {
        var inner = try nested(field)
        var map: [String: String] = [:]
        while inner.remaining > 0 { map[try inner.string("\(field) key")] = try inner.string("\(field) value") }
        return map
    }

    /// A u32-length-prefixed map of u16 keys to u64 values.
    mutating func idMap(_ field: String) throws(MCAPError) -> [UInt16: UInt64] {
        var inner = try nested(field)
        var map: [UInt16: UInt64] = [:]
        while inner.remaining > 0 { map[try inner.u16("\(field) key")] = try inner.u64("\(field) value") }
        return map
    }

    /// The u32-length-prefixed bytes of `field`, as a decoder of their own.
    private mutating func nested(_ field: String) throws(MCAPError) -> MCAPDecoder {
        let range = try take(Int(try u32(field)), field)
        return MCAPDecoder(bytes, from: range.lowerBound, to: range.upperBound, base: base, file: file, record: record)
    }

    /// Bytes with a length prefix of `prefix` bytes (4 or 8).
    mutating func prefixedBytes(_ field: String, prefix: Int) throws(MCAPError) -> Range<Int> {
        let length = prefix == 4 ? UInt64(try u32(field)) : try u64(field)
        guard length <= UInt64(remaining) else {
            throw error("the \(field) field needs \(length) bytes but the record has \(remaining) left")
        }
        return try take(Int(length), field)
    }
}
