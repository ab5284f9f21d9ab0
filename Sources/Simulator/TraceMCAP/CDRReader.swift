/// Reads ROS 2's CDR serialisation (XCDR1, the `cdr` message encoding): a four-byte encapsulation header naming
/// the byte order, then fields aligned to their size from the end of the header.
struct CDRReader {
    /// Why a message could not be read: the field, and what is wrong.
    struct Failure: Error {
        let field: String
        let reason: String
    }

    private let bytes: [UInt8]
    private var position = 4
    private let littleEndian: Bool

    /// A reader of `bytes`, which must start with a CDR encapsulation header (plain CDR, either byte order).
    init(_ bytes: [UInt8]) throws(Failure) {
        guard bytes.count >= 4 else { throw Failure(field: "encapsulation", reason: "\(bytes.count) bytes is too short for a CDR message") }
        guard bytes[0] == 0, bytes[1] <= 1 else {
            throw Failure(field: "encapsulation", reason: "encapsulation kind \(bytes[0]) \(bytes[1]) is not plain CDR")
        }
        self.bytes = bytes
        littleEndian = bytes[1] == 1
    }

    private mutating func align(_ size: Int) {
        let offset = position - 4
        position += (size - offset % size) % size
    }

    private mutating func take(_ count: Int, _ field: String) throws(Failure) -> Range<Int> {
        guard count >= 0, bytes.count - position >= count else {
            throw Failure(field: field, reason: "needs \(count) bytes at byte \(position), and the message has \(max(0, bytes.count - position)) left")
        }
        defer { position += count }
        return position..<(position + count)
    }

    private mutating func integer<Value: FixedWidthInteger>(_ field: String, _: Value.Type) throws(Failure) -> Value {
        align(MemoryLayout<Value>.size)
        let range = try take(MemoryLayout<Value>.size, field)
        var value: Value = 0
        if littleEndian {
            for index in range.reversed() { value = value << 8 | Value(truncatingIfNeeded: bytes[index]) }
        } else {
            for index in range { value = value << 8 | Value(truncatingIfNeeded: bytes[index]) }
        }
        return value
    }

    mutating func uint8(_ field: String) throws(Failure) -> UInt8 { try integer(field, UInt8.self) }
    mutating func int8(_ field: String) throws(Failure) -> Int8 { Int8(bitPattern: try uint8(field)) }
    mutating func uint16(_ field: String) throws(Failure) -> UInt16 { try integer(field, UInt16.self) }
    mutating func uint32(_ field: String) throws(Failure) -> UInt32 { try integer(field, UInt32.self) }
    mutating func int32(_ field: String) throws(Failure) -> Int32 { Int32(bitPattern: try uint32(field)) }
    mutating func float64(_ field: String) throws(Failure) -> Double { Double(bitPattern: try integer(field, UInt64.self)) }

    /// A string: a u32 length that counts its closing NUL, then the bytes.
    mutating func string(_ field: String) throws(Failure) -> String {
        let length = Int(try uint32(field))
        let range = try take(length, field)
        guard length > 0 else { return "" }
        guard bytes[range.upperBound - 1] == 0, let text = String(validating: bytes[range.dropLast()], as: UTF8.self) else {
            throw Failure(field: field, reason: "not a NUL-terminated UTF-8 string")
        }
        return text
    }

    /// A sequence of bytes: a u32 count, then the bytes.
    mutating func bytes(_ field: String) throws(Failure) -> [UInt8] {
        let count = Int(try uint32(field))
        return Array(bytes[try take(count, field)])
    }

    mutating func float64s(_ count: Int, _ field: String) throws(Failure) -> [Double] {
        var values: [Double] = []
        for index in 0..<count { values.append(try float64("\(field)[\(index)]")) }
        return values
    }
}
