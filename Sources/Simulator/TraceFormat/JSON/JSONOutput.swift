/// Appends compact JSON to a byte buffer: the writing half of the trace format.
package struct JSONOutput {
    package var bytes: [UInt8]

    package init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inline(__always)
    package mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    package mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// Writes `"key":` with a comma before it unless it is the object's first member.
    @inline(__always)
    package mutating func key(_ name: StaticString, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    package mutating func int(_ value: some BinaryInteger) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Writes the shortest decimal that reads back as exactly `value`. The caller checks it is finite.
    package mutating func double(_ value: Double) {
        bytes.append(contentsOf: value.description.utf8)
    }

    package mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    /// Writes an object with its members sorted by key, each value written by `value(out, key, value)`.
    package mutating func sortedObject<Value>(
        _ members: [String: Value], _ value: (inout JSONOutput, String, Value) throws(TraceError) -> Void
    ) throws(TraceError) {
        byte(UInt8(ascii: "{"))
        for (index, key) in members.keys.sorted().enumerated() {
            if index > 0 { byte(UInt8(ascii: ",")) }
            string(key)
            byte(UInt8(ascii: ":"))
            try value(&self, key, members[key]!)
        }
        byte(UInt8(ascii: "}"))
    }

    package mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0..<0x20:
                raw("\\u00")
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
