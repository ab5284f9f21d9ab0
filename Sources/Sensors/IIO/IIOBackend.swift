import LibC
import CIIO
public import HAL

/// Opens `iio:` sensors and lists the local ones: every channel type in the backend's table
/// (`IIOKind`), as an ``IIOMotionSensor`` (three axes) or an ``IIOScalarSensor`` (one channel).
public struct IIOBackend: DeviceBackend {
    /// `iio`.
    public var scheme: String { "iio" }
    /// What `hal devices` says about the backend, with every fragment it reads.
    public var summary: String {
        "IIO (libiio): iio:local/iio:device0#TYPE, iio:ip:HOST[:PORT]/DEVICE?mode=polled|buffered&rate=HZ#TYPE; TYPE: \(IIOKind.fragmentList)"
    }

    /// Creates the backend.
    public init() {}

    /// Opens a sensor of the type the fragment names (or the device's only type).
    public func open(_ uri: DeviceURI) throws -> any Device {
        try Self.sensor(IIOSetup(uri: uri))
    }

    private static func sensor(_ setup: IIOSetup) throws(DeviceError) -> any Device {
        setup.kind.axes == 3 ? try IIOMotionSensor(setup: setup) : IIOScalarSensor(setup: setup)
    }

    /// One entry per local device and channel type it has. A device whose buffer this user cannot
    /// read (`/dev/iio:deviceN`) says what grants access; polled mode still works for it.
    public func discover() throws -> [DeviceInfo] {
        guard access("/sys/bus/iio/devices", F_OK) == 0 else { return [] }
        let context = try IIOContext(libiioURI: "local:", deviceURI: "iio:local")
        var found: [DeviceInfo] = []
        for device in context.devices {
            let id = String(cString: iio_device_get_id(device))
            let node = "/dev/\(id)"
            var reason: String?
            if access(node, R_OK) != 0 && errno == EACCES {
                reason = "cannot read \(node) for buffered mode (mode=polled works); \(IIOSetup.accessHelp)"
            }
            for kind in IIOKind.kinds(of: device) {
                guard var info = try? IIOSetup(uri: DeviceURI("iio:local/\(id)#\(kind.name)")).info else { continue }
                info.unavailableReason = reason
                found.append(info)
            }
        }
        return found
    }
}
