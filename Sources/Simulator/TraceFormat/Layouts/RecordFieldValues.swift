import HAL

extension JSONOutput {
    /// Writes a registered kind's fields after `t` and `ch`, in the codec's order. Names must be new to the record
    /// and numbers finite.
    mutating func fields(_ fields: [(name: String, value: FieldValue)]) throws(TraceError) {
        var seen: Set<String> = ["t", "ch"]
        for (name, value) in fields {
            guard seen.insert(name).inserted else {
                throw TraceError(.invalidValue, line: 0, field: name, "the kind's fields name '\(name)' twice, or reuse 't' or 'ch'")
            }
            byte(UInt8(ascii: ","))
            string(name)
            byte(UInt8(ascii: ":"))
            try fieldValue(value, field: name)
        }
    }

    private mutating func fieldValue(_ value: FieldValue, field: String) throws(TraceError) {
        switch value {
        case .number(let number):
            guard number.isFinite else {
                throw TraceError(.invalidValue, line: 0, field: field, "\(number) cannot be written: JSON numbers are finite")
            }
            double(number)
        case .integer(let number): int(number)
        case .string(let text): string(text)
        case .bool(let flag): bool(flag)
        case .array(let items):
            byte(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { byte(UInt8(ascii: ",")) }
                try fieldValue(item, field: "\(field)[\(index)]")
            }
            byte(UInt8(ascii: "]"))
        }
    }
}

extension RecordFields {
    /// Every member nothing has read yet, as field values, marking them read. `null` members are left out.
    mutating func remainingValues() throws(TraceError) -> [String: FieldValue] {
        var values: [String: FieldValue] = [:]
        let keys = JSONScanner(bytes)
        for index in fields.indices where !isRead(index) {
            let name = keys.keyString(fields[index])
            guard var scanner = value(named: name) else { continue }
            do {
                values[name] = try Self.fieldValue(&scanner, depth: 0)
                try scanner.expectEnd()
            } catch {
                throw self.error(.invalidValue, name, error.message)
            }
        }
        return values
    }

    private static func fieldValue(_ scanner: inout JSONScanner, depth: Int) throws(JSONSyntaxError) -> FieldValue {
        guard depth < 16 else { throw scanner.error("arrays nest more than 16 deep") }
        switch scanner.peek() {
        case UInt8(ascii: "\""): return .string(try scanner.readString())
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try scanner.readBool())
        case UInt8(ascii: "["):
            scanner.position += 1
            var items: [FieldValue] = []
            if scanner.peek() == UInt8(ascii: "]") {
                scanner.position += 1
                return .array(items)
            }
            while true {
                items.append(try fieldValue(&scanner, depth: depth + 1))
                if scanner.peek() == UInt8(ascii: ",") {
                    scanner.position += 1
                    continue
                }
                try scanner.expect(UInt8(ascii: "]"), "',' or ']' in an array")
                return .array(items)
            }
        case UInt8(ascii: "{"): throw scanner.error("a registered kind's fields hold numbers, strings, booleans and arrays, not objects")
        default:
            let start = scanner.position
            let token = try scanner.numberToken()
            scanner.position = start
            return token.isInteger ? .integer(try scanner.readInt64()) : .number(try scanner.readDouble())
        }
    }
}
