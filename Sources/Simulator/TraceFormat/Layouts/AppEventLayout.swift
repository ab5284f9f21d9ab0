import HAL

/// An app record: the `event` name and its attributes as the `data` object (left out when there are none), whose
/// values are strings, whole numbers, numbers and booleans, written in key order.
struct AppEventLayout: RecordLayout {
    func encode(_ reading: Reading, on channel: TraceChannel, into out: inout JSONOutput) throws(TraceError) -> Bool {
        guard case .appEvent(let event) = reading else { return false }
        guard !event.name.isEmpty else {
            throw TraceError(.invalidValue, line: 0, field: "event", "an app event needs a name")
        }
        out.key("event")
        out.string(event.name)
        guard !event.attributes.isEmpty else { return true }
        out.key("data")
        try Self.encode(event.attributes, into: &out)
        return true
    }

    /// Writes attributes as a JSON object in key order.
    static func encode(_ attributes: [String: AppEventValue], into out: inout JSONOutput) throws(TraceError) {
        try out.sortedObject(attributes) { (out, key, value) throws(TraceError) in
            switch value {
            case .string(let text): out.string(text)
            case .int(let number): out.int(number)
            case .double(let number): try out.finite(number, field: "data.\(key)")
            case .bool(let flag): out.bool(flag)
            }
        }
    }

    func decode(_ fields: inout RecordFields, at timestamp: Timestamp, on channel: TraceChannel) throws(TraceError) -> Reading {
        let name = try fields.required("event", "event name", Read.string)
        guard !name.isEmpty else { throw fields.error(.invalidValue, "event", "an event name is not empty") }
        var attributes: [String: AppEventValue] = [:]
        if var dataScanner = fields.value("data") {
            var scratch: [JSONScanner.Field] = []
            let data = try RecordFields(scanner: &dataScanner, scratch: &scratch, file: fields.file, line: fields.line, path: "data.")
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
        return .appEvent(AppEvent(timestamp: timestamp, name: name, attributes: attributes))
    }
}
