/// One field of a record of a registered kind, as a trace container stores it: JSON in a `.jsonl` trace.
public enum FieldValue: Sendable, Hashable {
    /// A finite number.
    case number(Double)
    /// A whole number.
    case integer(Int64)
    /// Text.
    case string(String)
    /// A flag.
    case bool(Bool)
    /// A list of values.
    case array([FieldValue])
}

/// Why a record's fields do not make a reading: the field, and what is wrong with it. The trace reader adds the
/// file and the line.
public struct FieldError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field's name.
    public var field: String
    /// What is wrong, in a sentence.
    public var message: String
    /// Whether the field is missing, rather than present with a bad value.
    public var isMissing: Bool

    /// Creates an error.
    public init(field: String, _ message: String, isMissing: Bool = false) {
        self.field = field
        self.message = message
        self.isMissing = isMissing
    }

    /// `field: message`.
    public var description: String { "\(field): \(message)" }
}

/// The fields of one record of a registered kind, read by name. Each read marks its field, so that a container can
/// refuse a field nothing read.
public struct RecordValues: Sendable {
    /// The fields, by name.
    public let values: [String: FieldValue]
    private var read: Set<String> = []

    /// Fields to read.
    public init(_ values: [String: FieldValue]) {
        self.values = values
    }

    /// The fields nothing has read, sorted.
    public var unread: [String] { values.keys.filter { !read.contains($0) }.sorted() }

    /// The field `name`, or `nil` when it is absent; marks it read.
    public mutating func optional(_ name: String) -> FieldValue? {
        read.insert(name)
        return values[name]
    }

    /// The field `name`; marks it read.
    public mutating func value(_ name: String) throws(FieldError) -> FieldValue {
        guard let value = optional(name) else { throw FieldError(field: name, "required field is missing", isMissing: true) }
        return value
    }

    /// A number field (a whole number is taken too).
    public mutating func number(_ name: String) throws(FieldError) -> Double {
        try Self.number(value(name), name)
    }

    /// A number field that may be absent.
    public mutating func optionalNumber(_ name: String) throws(FieldError) -> Double? {
        guard let value = optional(name) else { return nil }
        return try Self.number(value, name)
    }

    /// A whole-number field.
    public mutating func integer(_ name: String) throws(FieldError) -> Int64 {
        guard case .integer(let value) = try value(name) else { throw FieldError(field: name, "expected a whole number") }
        return value
    }

    /// A text field.
    public mutating func string(_ name: String) throws(FieldError) -> String {
        guard case .string(let value) = try value(name) else { throw FieldError(field: name, "expected a string") }
        return value
    }

    /// A flag field.
    public mutating func bool(_ name: String) throws(FieldError) -> Bool {
        guard case .bool(let value) = try value(name) else { throw FieldError(field: name, "expected true or false") }
        return value
    }

    /// A list of numbers, of exactly `count` when given.
    public mutating func numbers(_ name: String, count: Int? = nil) throws(FieldError) -> [Double] {
        guard case .array(let items) = try value(name) else { throw FieldError(field: name, "expected an array of numbers") }
        if let count, items.count != count { throw FieldError(field: name, "expected \(count) numbers, found \(items.count)") }
        var numbers: [Double] = []
        for item in items { numbers.append(try Self.number(item, name)) }
        return numbers
    }

    private static func number(_ value: FieldValue, _ name: String) throws(FieldError) -> Double {
        switch value {
        case .number(let number): return number
        case .integer(let number): return Double(number)
        default: throw FieldError(field: name, "expected a number")
        }
    }
}
