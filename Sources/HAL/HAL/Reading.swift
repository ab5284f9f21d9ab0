/// A timestamped value that a device or an app produced: a sensor input, or an
/// output such as a playback event or an app event. This is what a trace records.
///
/// The built-in kinds have a case each, so that app logic matches them exhaustively and the hot paths (trace
/// decoding, fusion) handle them without boxing. Any other kind, in this package or a user's, is registered with
/// ``KindRegistry`` and arrives as ``custom(_:)``.
public enum Reading: Sendable, Hashable {
    /// A gyroscope, accelerometer or magnetometer sample.
    case motion(MotionSample)
    /// An attitude estimate or ground truth.
    case attitude(AttitudeSample)
    /// A pointer or touch event.
    case pointer(PointerEvent)
    /// A key or button event.
    case key(KeyEvent)
    /// A location fix.
    case location(LocationFix)
    /// A camera frame.
    case frame(Frame)
    /// A facial-expression reading.
    case expression(ExpressionReading)
    /// What a speaker played or spoke.
    case playback(PlaybackEvent)
    /// What an app did.
    case appEvent(AppEvent)
    /// A reading of a registered kind that has no case of its own (``KindValue``, ``KindRegistry``).
    case custom(CustomReading)

    /// The kind of device the reading is of: what describes it (``DeviceKind/kindDescription``).
    public var kind: DeviceKind {
        switch self {
        case .motion(let value): value.quantity.deviceKind
        case .attitude: .attitude
        case .pointer: .pointer
        case .key: .keys
        case .location: .location
        case .frame: .camera
        case .expression: .expression
        case .playback: .speaker
        case .appEvent: .app
        case .custom(let value): value.value.kind
        }
    }

    /// The reading's attributes, as an expectation matches them (``KindAttributes``).
    public var attributes: [String: AppEventValue] { kind.kindDescription.attributes.values(self) }

    /// When the value was produced. Setting it moves the value in time, as a looping replay does.
    public var timestamp: Timestamp {
        get {
            switch self {
            case .motion(let value): value.timestamp
            case .attitude(let value): value.timestamp
            case .pointer(let value): value.timestamp
            case .key(let value): value.timestamp
            case .location(let value): value.timestamp
            case .frame(let value): value.timestamp
            case .expression(let value): value.timestamp
            case .playback(let value): value.timestamp
            case .appEvent(let value): value.timestamp
            case .custom(let value): value.timestamp
            }
        }
        set {
            switch self {
            case .motion(var value): value.timestamp = newValue; self = .motion(value)
            case .attitude(var value): value.timestamp = newValue; self = .attitude(value)
            case .pointer(var value): value.timestamp = newValue; self = .pointer(value)
            case .key(var value): value.timestamp = newValue; self = .key(value)
            case .location(var value): value.timestamp = newValue; self = .location(value)
            case .frame(var value): value.timestamp = newValue; self = .frame(value)
            case .expression(var value): value.timestamp = newValue; self = .expression(value)
            case .playback(var value): value.timestamp = newValue; self = .playback(value)
            case .appEvent(var value): value.timestamp = newValue; self = .appEvent(value)
            case .custom(var custom): custom.value.timestamp = newValue; self = .custom(custom)
            }
        }
    }
}

/// A value type that one case of ``Reading`` carries.
public protocol ReadingConvertible: Sendable, Hashable {
    /// When the value was produced.
    var timestamp: Timestamp { get }
    /// The value wrapped as a ``Reading``.
    var reading: Reading { get }
    /// Unwraps a ``Reading`` of this type, or returns `nil` for another type.
    init?(_ reading: Reading)
}

extension MotionSample: ReadingConvertible {
    /// The sample as a ``Reading``.
    public var reading: Reading { .motion(self) }
    /// Unwraps a motion reading.
    public init?(_ reading: Reading) {
        guard case .motion(let value) = reading else { return nil }
        self = value
    }
}

extension AttitudeSample: ReadingConvertible {
    /// The sample as a ``Reading``.
    public var reading: Reading { .attitude(self) }
    /// Unwraps an attitude reading.
    public init?(_ reading: Reading) {
        guard case .attitude(let value) = reading else { return nil }
        self = value
    }
}

extension PointerEvent: ReadingConvertible {
    /// The event as a ``Reading``.
    public var reading: Reading { .pointer(self) }
    /// Unwraps a pointer reading.
    public init?(_ reading: Reading) {
        guard case .pointer(let value) = reading else { return nil }
        self = value
    }
}

extension KeyEvent: ReadingConvertible {
    /// The event as a ``Reading``.
    public var reading: Reading { .key(self) }
    /// Unwraps a key reading.
    public init?(_ reading: Reading) {
        guard case .key(let value) = reading else { return nil }
        self = value
    }
}

extension LocationFix: ReadingConvertible {
    /// The fix as a ``Reading``.
    public var reading: Reading { .location(self) }
    /// Unwraps a location reading.
    public init?(_ reading: Reading) {
        guard case .location(let value) = reading else { return nil }
        self = value
    }
}

extension Frame: ReadingConvertible {
    /// The frame as a ``Reading``.
    public var reading: Reading { .frame(self) }
    /// Unwraps a frame reading.
    public init?(_ reading: Reading) {
        guard case .frame(let value) = reading else { return nil }
        self = value
    }
}

extension ExpressionReading: ReadingConvertible {
    /// The reading as a ``Reading``.
    public var reading: Reading { .expression(self) }
    /// Unwraps an expression reading.
    public init?(_ reading: Reading) {
        guard case .expression(let value) = reading else { return nil }
        self = value
    }
}

extension PlaybackEvent: ReadingConvertible {
    /// The event as a ``Reading``.
    public var reading: Reading { .playback(self) }
    /// Unwraps a playback reading.
    public init?(_ reading: Reading) {
        guard case .playback(let value) = reading else { return nil }
        self = value
    }
}

extension AppEvent: ReadingConvertible {
    /// The event as a ``Reading``.
    public var reading: Reading { .appEvent(self) }
    /// Unwraps an app-event reading.
    public init?(_ reading: Reading) {
        guard case .appEvent(let value) = reading else { return nil }
        self = value
    }
}
