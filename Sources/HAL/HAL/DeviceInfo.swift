/// What is known about a device: how to name it, what it is, and what it can measure.
public struct DeviceInfo: Sendable, Hashable, Codable {
    /// The URI that opens the device, such as `iio:local/iio:device0` or `trace:walk.jsonl#gps`.
    public var uri: String
    /// A human-readable name, such as the driver's or the product's.
    public var name: String
    /// What the device provides.
    public var kind: DeviceKind
    /// The backend that serves it, such as `trace`, `sim`, `iio` or `evdev`.
    public var backend: String
    /// The nominal sample or frame rate in hertz, where known.
    public var rate: Double?
    /// The largest magnitude the device reports, in its kind's units, where known.
    public var range: Double?
    /// The smallest step between values, in its kind's units, where known.
    public var resolution: Double?
    /// What else the device offers, such as its other roles or channels, for `hal devices`.
    public var capabilities: [String]
    /// Why this user cannot open the device now, and what grants access (a group, a udev rule);
    /// `nil` when it can be opened.
    public var unavailableReason: String?

    /// Creates device information.
    public init(
        uri: String, name: String, kind: DeviceKind, backend: String,
        rate: Double? = nil, range: Double? = nil, resolution: Double? = nil,
        capabilities: [String] = [], unavailableReason: String? = nil
    ) {
        self.uri = uri
        self.name = name
        self.kind = kind
        self.backend = backend
        self.rate = rate
        self.range = range
        self.resolution = resolution
        self.capabilities = capabilities
        self.unavailableReason = unavailableReason
    }
}
