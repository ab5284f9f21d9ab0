import TraceFormat
/// Protocol Buffers' binary wire format, for the trace's channels in MCAP: what the trace's schemas (`proto/`) need
/// of it, and no more.
///
/// The package writes and reads the wire format itself rather than through generated swift-protobuf messages: the
/// hot path (motion samples) reads a message's three doubles straight from the chunk's bytes, with no message
/// object, and the schemas are few and small. What the format is, is checked against real implementations:
/// Python's protobuf (through `mcap-protobuf-support`) decodes every message this writes, and the descriptors are
/// protoc's (`scripts/gen-trace-schemas`).
enum Protobuf {
    /// How a field's value is laid out on the wire.
    enum WireType: UInt8 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    /// Appends fields to a byte buffer.
    struct Writer {
        var bytes: [UInt8] = []

        @inline(__always)
        mutating func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }

        @inline(__always)
        mutating func tag(_ field: Int, _ type: WireType) {
            varint(UInt64(field) << 3 | UInt64(type.rawValue))
        }

        /// A `double` field, written even when it is zero, so that -0.0 and every other value keep their bits.
        @inline(__always)
        mutating func double(_ field: Int, _ value: Double) {
            tag(field, .fixed64)
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }

        /// An `int64` field (two's complement as a varint).
        mutating func int64(_ field: Int, _ value: Int64) {
            tag(field, .varint)
            varint(UInt64(bitPattern: value))
        }

        /// A `fixed32` field.
        mutating func fixed32(_ field: Int, _ value: UInt32) {
            tag(field, .fixed32)
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }

        /// A `string` field.
        mutating func string(_ field: Int, _ value: String) {
            bytes(field, Array(value.utf8))
        }

        /// A `bytes` field.
        mutating func bytes(_ field: Int, _ value: [UInt8]) {
            tag(field, .lengthDelimited)
            varint(UInt64(value.count))
            bytes.append(contentsOf: value)
        }

        /// A `packed repeated double` field.
        mutating func packedDoubles(_ field: Int, _ values: [Double]) {
            tag(field, .lengthDelimited)
            varint(UInt64(values.count * 8))
            for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        }

        /// A message field, whose content `body` writes.
        mutating func message(_ field: Int, _ body: (inout Writer) -> Void) {
            var inner = Writer()
            body(&inner)
            bytes(field, inner.bytes)
        }

        /// A `google.protobuf.Timestamp` field from nanoseconds since the epoch.
        mutating func timestamp(_ field: Int, nanoseconds: Int64) {
            let (seconds, nanos) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
            // Timestamp's nanos are never negative: a time before the epoch borrows a second.
            let borrow = nanos < 0
            message(field) { out in
                out.int64(1, borrow ? seconds - 1 : seconds)
                out.tag(2, .varint)
                out.varint(UInt64(bitPattern: Int64(borrow ? nanos + 1_000_000_000 : nanos)))
            }
        }
    }

    /// A field as read: its number and its value.
    struct Field {
        var number: Int
        var type: WireType
        /// The varint's or fixed value's bits, or for a length-delimited field its content's range in the message.
        var bits: UInt64
        var range: Range<Int>

        var double: Double { Double(bitPattern: bits) }
        var int64: Int64 { Int64(bitPattern: bits) }
    }

    /// What is wrong with a message, and at which byte of it.
    struct DecodeError: Error {
        var offset: Int
        var reason: String
    }

    /// Reads a message's fields in wire order.
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        private(set) var position: Int
        let end: Int

        init(_ bytes: UnsafeRawBufferPointer, range: Range<Int>? = nil) {
            self.bytes = bytes
            position = range?.lowerBound ?? 0
            end = range?.upperBound ?? bytes.count
        }

        private mutating func varint() throws(DecodeError) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            let start = position
            while true {
                guard position < end else { throw DecodeError(offset: start, reason: "a varint runs past the message's end") }
                let byte = bytes[position]
                position += 1
                guard shift < 64 else { throw DecodeError(offset: start, reason: "a varint longer than 10 bytes") }
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }

        /// The next field, or nil at the message's end. Groups (wire types 3 and 4) are refused.
        mutating func next() throws(DecodeError) -> Field? {
            guard position < end else { return nil }
            let start = position
            let key = try varint()
            guard let type = WireType(rawValue: UInt8(key & 7)), key >> 3 > 0, key >> 3 <= 536_870_911 else {
                throw DecodeError(offset: start, reason: "field key \(key) has wire type \(key & 7) or field number \(key >> 3), which protobuf does not allow here")
            }
            let number = Int(key >> 3)
            switch type {
            case .varint:
                return Field(number: number, type: type, bits: try varint(), range: position..<position)
            case .fixed64, .fixed32:
                let size = type == .fixed64 ? 8 : 4
                guard end - position >= size else { throw DecodeError(offset: start, reason: "field \(number) needs \(size) bytes and the message ends first") }
                var bits: UInt64 = 0
                for index in (0..<size).reversed() { bits = bits << 8 | UInt64(bytes[position + index]) }
                position += size
                return Field(number: number, type: type, bits: bits, range: (position - size)..<position)
            case .lengthDelimited:
                let length = try varint()
                guard length <= UInt64(end - position) else {
                    throw DecodeError(offset: start, reason: "field \(number) says \(length) bytes and \(end - position) are left")
                }
                position += Int(length)
                return Field(number: number, type: type, bits: length, range: (position - Int(length))..<position)
            }
        }

        /// The text of a length-delimited field, which protobuf requires to be UTF-8.
        func string(_ field: Field) throws(DecodeError) -> String {
            guard let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[field.range]), as: UTF8.self) else {
                throw DecodeError(offset: field.range.lowerBound, reason: "field \(field.number) is not UTF-8 text")
            }
            return text
        }

        /// The bytes of a length-delimited field.
        func data(_ field: Field) -> [UInt8] {
            Array(UnsafeRawBufferPointer(rebasing: bytes[field.range]))
        }

        /// A reader of a nested message.
        func nested(_ field: Field) -> Reader {
            Reader(bytes, range: field.range)
        }
    }
}
