/// A family of devices that share a URI scheme: trace replay, simulation, IIO, evdev, ...
public protocol DeviceBackend: Sendable {
    /// The URI scheme this backend opens, such as `trace`.
    var scheme: String { get }
    /// One line on what the backend opens and its URI form, for `hal devices`.
    var summary: String { get }
    /// Opens the device a URI names.
    func open(_ uri: DeviceURI) throws -> any Device
    /// Lists the devices the backend can see now.
    func discover() throws -> [DeviceInfo]
}

/// What a discovery pass found: devices, and the backends that could not look.
public struct DeviceDiscovery: Sendable {
    /// Every device found, backend by backend.
    public var devices: [DeviceInfo]
    /// Why a backend could not list its devices, such as a missing permission.
    public var problems: [any Error]
}

/// Turns a device URI into a device, through the backend registered for its scheme.
///
/// The composition root (the `hal` tool, a test, an app's `main`) registers the
/// backends it links; app logic receives the opened devices and never sees a backend.
public struct DeviceFactory: Sendable {
    /// The registered backends, in registration order.
    public private(set) var backends: [any DeviceBackend]

    /// Creates a factory with the given backends.
    public init(backends: [any DeviceBackend] = []) {
        self.backends = []
        for backend in backends { register(backend) }
    }

    /// Adds a backend, replacing any earlier one for the same scheme.
    public mutating func register(_ backend: any DeviceBackend) {
        backends.removeAll { $0.scheme == backend.scheme }
        backends.append(backend)
    }

    /// Opens the device a URI names.
    public func open(_ uri: String) throws -> any Device {
        let parsed = try DeviceURI(uri)
        guard let backend = backends.first(where: { $0.scheme == parsed.scheme }) else {
            let known = backends.map { "\($0.scheme):" }.joined(separator: ", ")
            throw DeviceError(.invalidURI, uri: uri, "no backend for '\(parsed.scheme):' (known: \(known))")
        }
        return try backend.open(parsed)
    }

    /// Opens the device a URI names as a given protocol, such as `(any MotionSensor).self`.
    public func open<Requested>(_ uri: String, as requested: Requested.Type) throws -> Requested {
        let device = try open(uri)
        guard let typed = device as? Requested else {
            throw DeviceError(.wrongKind, uri: uri, "is a \(device.info.kind.rawValue) device, not \(Requested.self)")
        }
        return typed
    }

    /// Lists what every backend can see now.
    public func discover() -> DeviceDiscovery {
        var discovery = DeviceDiscovery(devices: [], problems: [])
        for backend in backends {
            do { discovery.devices += try backend.discover() } catch { discovery.problems.append(error) }
        }
        return discovery
    }
}
