public import HAL

/// One channel of a trace: a stream of records of one kind from one source.
public struct TraceChannel: Sendable, Hashable {
    /// The channel's id, used by every record of it: letters, digits, `.`, `_` and `-`.
    public var id: String
    /// What the channel carries.
    public var kind: DeviceKind
    /// The URI of the device or script the records came from.
    public var source: String
    /// The units, which must be ``HAL/DeviceKind/units`` of the kind.
    public var units: String?
    /// The nominal rate in hertz, where the source has one.
    public var rate: Double?
    /// The device's human-readable name.
    public var name: String?
    /// The backend that produced the records, such as `iio` or `sim`.
    public var backend: String?
    /// The device's range, in the kind's units.
    public var range: Double?
    /// The device's resolution, in the kind's units.
    public var resolution: Double?
    /// The earth frame of an attitude channel's quaternions; `nil` for other kinds.
    public var frame: EarthFrame?

    /// Creates a channel. `units` defaults to the kind's SI units.
    public init(
        id: String, kind: DeviceKind, source: String, units: String? = nil, rate: Double? = nil,
        name: String? = nil, backend: String? = nil, range: Double? = nil, resolution: Double? = nil,
        frame: EarthFrame? = nil
    ) {
        self.id = id
        self.kind = kind
        self.source = source
        self.units = units ?? kind.units
        self.rate = rate
        self.name = name
        self.backend = backend
        self.range = range
        self.resolution = resolution
        self.frame = frame
    }

    /// A channel describing a device, with the device's metadata.
    public init(id: String, device: DeviceInfo) {
        self.init(
            id: id, kind: device.kind, source: device.uri, rate: device.rate, name: device.name,
            backend: device.backend, range: device.range, resolution: device.resolution)
    }

    /// The channel as device information, as a replay device reports it.
    public func deviceInfo(uri: String) -> DeviceInfo {
        DeviceInfo(
            uri: uri, name: name ?? id, kind: kind, backend: "trace",
            rate: rate, range: range, resolution: resolution)
    }

    /// Whether `id` is a valid channel id.
    public static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) }
    }
}
