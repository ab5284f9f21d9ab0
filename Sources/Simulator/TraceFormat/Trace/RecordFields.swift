/// The members of one JSON object on a trace line, looked up by name, with errors
/// that name the line and the field, and a check that no member went unread.
struct RecordFields {
    let bytes: UnsafeBufferPointer<UInt8>
    let fields: [JSONScanner.Field]
    let file: String?
    let line: Int
    /// Prefix for field paths in errors, such as `channels[2].`.
    let path: String
    private var used: UInt64 = 0

    /// Reads the object that `scanner` is at and lists its members, rejecting duplicates.
    init(
        scanner: inout JSONScanner, scratch: inout [JSONScanner.Field],
        file: String?, line: Int, path: String = ""
    ) throws(TraceError) {
        do {
            try scanner.objectFields(into: &scratch)
        } catch {
            throw TraceError(.malformedJSON, file: file, line: line, field: path.isEmpty ? nil : String(path.dropLast()), error.description)
        }
        self.bytes = scanner.bytes
        self.fields = scratch
        self.file = file
        self.line = line
        self.path = path
        guard fields.count <= 64 else {
            throw TraceError(.invalidValue, file: file, line: line, "an object with more than 64 fields")
        }
        for later in fields.indices.dropFirst() {
            let key = UnsafeBufferPointer(rebasing: bytes[fields[later].key])
            for earlier in 0..<later where scanner.sameBytes(fields[earlier].key, key) {
                throw TraceError(.invalidValue, file: file, line: line, field: path + scannerKey(later), "appears twice")
            }
        }
    }

    private func scannerKey(_ index: Int) -> String {
        JSONScanner(bytes).keyString(fields[index])
    }

    func error(_ kind: TraceError.Kind, _ field: String, _ message: String) -> TraceError {
        TraceError(kind, file: file, line: line, field: path + field, message)
    }

    /// Whether the object has a member named `name`, even if it is `null`.
    func has(_ name: String) -> Bool {
        let scanner = JSONScanner(bytes)
        return fields.contains { scanner.key($0, is: name) }
    }

    /// A scanner at the value of `name`, marking it read; `nil` when absent or `null`.
    @inline(__always)
    mutating func value(_ name: StaticString) -> JSONScanner? {
        let lookup = JSONScanner(bytes)
        return value(at: fields.indices.first { lookup.key(fields[$0], is: name) })
    }

    /// A scanner at the value of `name`, marking it read; `nil` when absent or `null`.
    mutating func value(named name: String) -> JSONScanner? {
        let lookup = JSONScanner(bytes)
        return value(at: fields.indices.first { lookup.key(fields[$0], is: name) })
    }

    private mutating func value(at index: Int?) -> JSONScanner? {
        guard let index else { return nil }
        used |= 1 << UInt64(index)
        var scanner = JSONScanner(bytes, range: fields[index].value)
        if scanner.readNull() { return nil }
        return JSONScanner(bytes, range: fields[index].value)
    }

    /// Decodes a member that may be absent or `null`.
    @inline(__always)
    mutating func optional<T>(
        _ name: StaticString, _ read: (inout JSONScanner) throws(JSONSyntaxError) -> T
    ) throws(TraceError) -> T? {
        try decode(value(name), { "\(name)" }, read)
    }

    /// Decodes a member, named at run time, that may be absent or `null`.
    mutating func optional<T>(
        named name: String, _ read: (inout JSONScanner) throws(JSONSyntaxError) -> T
    ) throws(TraceError) -> T? {
        try decode(value(named: name), { name }, read)
    }

    /// Runs `read` on a member's value; `name` is only formatted for an error.
    @inline(__always)
    private func decode<T>(
        _ scanner: JSONScanner?, _ name: () -> String, _ read: (inout JSONScanner) throws(JSONSyntaxError) -> T
    ) throws(TraceError) -> T? {
        guard var scanner else { return nil }
        do {
            let result = try read(&scanner)
            try scanner.expectEnd()
            return result
        } catch {
            throw self.error(.invalidValue, name(), error.message)
        }
    }

    /// Decodes a member that must be present.
    mutating func required<T>(
        _ name: StaticString, _ what: String, _ read: (inout JSONScanner) throws(JSONSyntaxError) -> T
    ) throws(TraceError) -> T {
        guard let result = try optional(name, read) else {
            throw error(.missingField, "\(name)", "required \(what) is missing")
        }
        return result
    }

    /// Decodes a member holding one of an enumeration's raw values.
    mutating func enumeration<T: RawRepresentable & CaseIterable>(
        _ name: StaticString, _ type: T.Type, required isRequired: Bool = true
    ) throws(TraceError) -> T? where T.RawValue == String {
        let allowed = T.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        guard let text = try optional(name, Read.string) else {
            if isRequired { throw error(.missingField, "\(name)", "required field is missing (one of \(allowed))") }
            return nil
        }
        guard let value = T(rawValue: text) else {
            throw error(.invalidValue, "\(name)", "'\(text)' is not one of \(allowed)")
        }
        return value
    }

    /// Whether the member at `index` has been read.
    func isRead(_ index: Int) -> Bool { used & (1 << UInt64(index)) != 0 }

    /// Throws for the first member that nothing read.
    func rejectUnread(_ what: String) throws(TraceError) {
        for index in fields.indices where used & (1 << UInt64(index)) == 0 {
            throw error(.unknownField, scannerKey(index), "\(what) have no such field")
        }
    }
}

/// Readers of one JSON value, as ``RecordFields`` takes them.
enum Read {
    static func double(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> Double { try scanner.readDouble() }
    static func string(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> String { try scanner.readString() }
    static func int(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> Int64 { try scanner.readInt64() }
}
