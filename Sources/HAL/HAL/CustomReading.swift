/// The reading type of a kind that ``Reading`` has no case of its own for: a kind a user's package registers,
/// or one of the package's own added through the same registry (``ScalarSample``).
///
/// Conforming gives the type its ``ReadingConvertible`` wrapping for free, so a device of it is a
/// ``ReadingSource`` like any other, and a trace channel of its kind replays as one.
public protocol KindValue: ReadingConvertible {
    /// The kind the value is a reading of.
    var kind: DeviceKind { get }
    /// When the value was produced. Setting it moves the value in time, as a looping replay does.
    var timestamp: Timestamp { get set }
}

extension KindValue {
    /// The value wrapped as a ``Reading``.
    public var reading: Reading { .custom(CustomReading(self)) }

    /// Unwraps a custom reading holding a value of this type.
    public init?(_ reading: Reading) {
        guard case .custom(let custom) = reading, let value = custom.value as? Self else { return nil }
        self = value
    }
}

/// A reading of a registered kind that ``Reading`` has no case of its own for.
public struct CustomReading: Sendable, Hashable {
    /// The value.
    public var value: any KindValue

    /// Wraps a value.
    public init(_ value: any KindValue) {
        self.value = value
    }

    /// The value's kind.
    public var kind: DeviceKind { value.kind }

    /// Values of the same type that are equal.
    public static func == (lhs: CustomReading, rhs: CustomReading) -> Bool {
        AnyHashable(lhs.value) == AnyHashable(rhs.value)
    }

    /// Hashes the value.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(AnyHashable(value))
    }
}

extension CustomReading: ReadingConvertible {
    /// When the value was produced.
    public var timestamp: Timestamp { value.timestamp }
    /// The reading.
    public var reading: Reading { .custom(self) }
    /// Unwraps any custom reading.
    public init?(_ reading: Reading) {
        guard case .custom(let custom) = reading else { return nil }
        self = custom
    }
}
