import HAL
import TraceFormat
import InputEvents

/// An evdev input device at `/dev/input/eventN` (``InputDeviceEncoding``): a touchscreen for a pointer channel, a
/// keys device for a key channel, and one motion-sensor device for the accelerometer and gyroscope channels.
///
/// umockdev's preload gives the program the node, its sysfs tree and the ioctl answers libevdev asks for; the events
/// are umockdev's events file, which it delivers with the gaps between their times (divided by the run's rate).
public final class EvdevServedDevice: ServedDevice {
    private let role: InputDeviceEncoding.Role
    private let channels: [ServedChannel]
    private let events: [InputEvent]
    private let name: String
    private let node = Locked<String>("")

    /// A device of `role` carrying `channels`.
    public init(role: InputDeviceEncoding.Role, channels: [ServedChannel]) {
        self.role = role
        self.channels = channels
        var records = channels.flatMap(\.records)
        records.sort { $0.timestamp < $1.timestamp }
        var encoder = InputDeviceEncoding.Encoder()
        events = records.flatMap { encoder.encode($0.reading) }
        switch role {
        case .touchscreen: name = "HAL simulated touchscreen"
        case .keys: name = "HAL simulated keys"
        case .motion: name = "HAL simulated motion sensors"
        }
    }

    /// The device types' entry: `evdev`.
    public static let type = ServedDeviceTypes.DeviceType(
        name: "evdev", summary: "an input device (/dev/input/eventN): touchscreen, keys, or accelerometer and gyroscope",
        carries: { InputDeviceEncoding.Role(kind: $0) != nil },
        isDefault: { $0 == .pointer || $0 == .keys },
        make: { channels in
            var devices: [any ServedDevice] = []
            let motion = channels.filter { InputDeviceEncoding.Role(kind: $0.channel.kind) == .motion }
            for channel in channels where InputDeviceEncoding.Role(kind: channel.channel.kind) != .motion {
                devices.append(EvdevServedDevice(role: InputDeviceEncoding.Role(kind: channel.channel.kind)!, channels: [channel]))
            }
            if !motion.isEmpty { devices.append(EvdevServedDevice(role: .motion, channels: motion)) }
            return devices
        })

    public var summary: String {
        "\(role.rawValue) \(node.withLock { $0 }) (evdev) <- \(channels.map { "\($0.channel.id) (\($0.channel.kind))" }.joined(separator: ", "))"
    }

    public func prepare(_ testbed: inout TestbedPlan) throws {
        var keys = Set<UInt16>()
        for event in events where event.type == InputCode.Event.key { keys.insert(event.code) }
        let device = UmockdevInputDevice(InputDeviceEncoding.description(role, name: name, keys: keys), eventNumber: testbed.nextEventNumber)
        testbed.nextEventNumber += 1
        node.withLock { $0 = device.node }
        let stem = "event\(device.eventNumber)"
        let origin = testbed.origin
        testbed.umockdevArguments += [
            "-d", try testbed.write(stem + ".umockdev", device.sysfsTree),
            "-i", "\(device.node)=" + (try testbed.write(stem + ".ioctl", device.ioctls)),
            "-e", "\(device.node)=" + (try testbed.write(stem + ".events", UmockdevInputDevice.events(events, origin: origin, rate: testbed.rate))),
        ]
        for channel in channels { testbed.environment["HAL_DEVICE_" + TestbedPlan.variableName(channel.channel.id)] = device.node }
    }

    public func feed(_ run: FeedContext) async throws {
        // umockdev delivers the events; the device's inputs end with its last one.
        if let last = events.last { try await run.wait(until: last.timestamp) }
    }

    public var delivered: String {
        let frames = events.filter(\.isFrameEnd).count
        return "\(role.rawValue) \(node.withLock { $0 }): \(events.count) events in \(frames) frames"
    }
}
