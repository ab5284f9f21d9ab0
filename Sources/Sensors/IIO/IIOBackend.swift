import CIIO
public import HAL
#if canImport(Glibc)
import Glibc
#endif

/// Opens `iio:` motion sensors and lists the local ones.
public struct IIOBackend: DeviceBackend {
    /// `iio`.
    public var scheme: String { "iio" }
    /// What `hal devices` says about the backend.
    public var summary: String { "IIO (libiio): iio:local/iio:device0#anglvel, iio:ip:HOST[:PORT]/DEVICE?mode=polled|buffered&rate=HZ#accel" }

    /// Creates the backend.
    public init() {}

    /// Opens a sensor.
    public func open(_ uri: DeviceURI) throws -> any Device {
        try IIOMotionSensor(uri: uri)
    }

    /// One entry per local device and motion channel type. A device whose buffer this user cannot
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
                reason = "cannot read \(node) for buffered mode (mode=polled works); \(IIOMotionSensor.accessHelp)"
            }
            for quantity in IIOChannelConfiguration.quantities(of: device) {
                let type = IIOChannelConfiguration.channelType(quantity)
                guard var info = try? IIOMotionSensor(uri: DeviceURI("iio:local/\(id)#\(type)")).info else { continue }
                info.unavailableReason = reason
                found.append(info)
            }
        }
        return found
    }
}
