/// A kind of device, and of trace channel: what it measures and what its readings are.
///
/// A kind is a name; what it means lives in its ``KindDescription``, registered once with ``KindRegistry``. The
/// kinds the package builds in are registered from the start. A user's package registers its own with
/// ``KindRegistry/register(_:)`` before it opens a device or reads a trace of that kind.
public struct DeviceKind: RawRepresentable, Sendable, Hashable, Comparable, Codable, CaseIterable, CustomStringConvertible {
    /// The kind's name, as traces and `hal devices` write it.
    public let rawValue: String

    /// The registered kind called `rawValue`, or `nil` when no kind of that name is registered.
    public init?(rawValue: String) {
        guard KindRegistry.description(of: DeviceKind(rawValue)) != nil else { return nil }
        self.rawValue = rawValue
    }

    /// The kind called `name`, registered or not (register it before use).
    public init(_ name: String) {
        rawValue = name
    }

    /// Every registered kind: the built-in ones in their order, then the rest in the order they were registered.
    public static var allCases: [DeviceKind] { KindRegistry.kinds }

    /// The kind's name.
    public var description: String { rawValue }

    /// Orders by name.
    public static func < (lhs: DeviceKind, rhs: DeviceKind) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Decodes a kind's name.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the kind's name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    // MARK: Built in

    /// Angular rate in rad/s.
    public static let gyroscope = DeviceKind("gyroscope")
    /// Proper acceleration in m/s².
    public static let accelerometer = DeviceKind("accelerometer")
    /// Magnetic field in µT.
    public static let magnetometer = DeviceKind("magnetometer")
    /// Orientation as a quaternion in a stated earth frame: a fused estimate or ground truth.
    public static let attitude = DeviceKind("attitude")
    /// Touchscreen, touchpad, mouse or scripted gestures.
    public static let pointer = DeviceKind("pointer")
    /// Keys and buttons.
    public static let keys = DeviceKind("keys")
    /// GPS receivers, gpsd, and files or walks of fixes.
    public static let location = DeviceKind("location")
    /// Camera frames.
    public static let camera = DeviceKind("camera")
    /// Facial-expression readings.
    public static let expression = DeviceKind("expression")
    /// Speaker output: what was played or spoken.
    public static let speaker = DeviceKind("speaker")
    /// An app's own output events.
    public static let app = DeviceKind("app")

    // MARK: What the description says

    /// The kind's registered description. A kind that was never registered describes itself as an unknown input
    /// with no units, so that code holding one fails with a clear error where it is used, not here.
    public var kindDescription: KindDescription {
        KindRegistry.description(of: self) ?? KindDescription(unregistered: self)
    }

    /// The unit string a trace header must give for this kind, or `nil` where the kind has none.
    ///
    /// Readings are always in these units; a backend converts before delivering.
    public var units: String? { kindDescription.units }

    /// The motion quantity measured by this kind, for the three motion kinds.
    public var motionQuantity: MotionQuantity? { MotionQuantity(rawValue: rawValue) }

    /// The value type a device of this kind delivers.
    public var readingType: any ReadingConvertible.Type { kindDescription.readingType }

    /// Whether the kind records outputs (what was played, what the app did) rather than inputs.
    public var isOutput: Bool { kindDescription.isOutput }
}
