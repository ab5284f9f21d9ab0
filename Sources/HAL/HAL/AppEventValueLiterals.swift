// Event attributes written as literals: `["question": 2, "seconds": 35.1, "prompt": "Which face?", "on": true]`.

extension AppEventValue: ExpressibleByStringLiteral {
    /// A ``string(_:)`` value.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension AppEventValue: ExpressibleByIntegerLiteral {
    /// An ``int(_:)`` value.
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension AppEventValue: ExpressibleByFloatLiteral {
    /// A ``double(_:)`` value.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension AppEventValue: ExpressibleByBooleanLiteral {
    /// A ``bool(_:)`` value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
