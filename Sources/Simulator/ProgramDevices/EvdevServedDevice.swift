import SystemSupport
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
    private let node = Locked<(path: String, live: String?)>(("", nil))
    /// Whether the run writes the events on the trace's clock (from the records, through the live FIFO).
    private let onTraceClock = Locked(false)

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
        "\(role.rawValue) \(node.withLock { $0.path }) (evdev) <- \(channels.map { "\($0.channel.id) (\($0.channel.kind))" }.joined(separator: ", "))"
    }

    public func prepare(_ testbed: inout TestbedPlan) throws {
        let live = testbed.isLive(channels)
        onTraceClock.withLock { $0 = testbed.onTraceClock }
        // A live keys device may send any key, so it says it has them all; a recorded one, the keys it sends.
        var keys = live && !testbed.onTraceClock ? Set(1...InputCode.Key.max) : []
        for event in events where event.type == InputCode.Event.key { keys.insert(event.code) }
        let device = UmockdevInputDevice(InputDeviceEncoding.description(role, name: name, keys: keys), eventNumber: testbed.nextEventNumber)
        testbed.nextEventNumber += 1
        let stem = "event\(device.eventNumber)"
        testbed.umockdevArguments += [
            "-d", try testbed.write(stem + ".umockdev", device.sysfsTree),
            "-i", "\(device.node)=" + (try testbed.write(stem + ".ioctl", device.ioctls)),
            "-x", "\(device.node)=" + (try testbed.write(stem + ".answers", device.answers)),
        ]
        testbed.files[device.udevDatabasePath] = device.udevDatabase
        if live {
            let fifo = try testbed.makeFIFO(stem + ".live")
            testbed.umockdevArguments += ["-l", "\(device.node)=\(fifo)"]
            node.withLock { $0 = (device.node, fifo) }
        } else {
            let file = try testbed.write(stem + ".events", UmockdevInputDevice.events(events, origin: testbed.origin, rate: testbed.rate))
            testbed.umockdevArguments += ["-e", "\(device.node)=\(file)"]
            node.withLock { $0 = (device.node, nil) }
        }
        for channel in channels { testbed.environment["HAL_DEVICE_" + TestbedPlan.variableName(channel.channel.id)] = device.node }
    }

    public func feed(_ run: FeedContext) async throws {
        guard let fifo = node.withLock({ $0.live }) else {
            // umockdev delivers the events; the device's inputs end with its last one.
            if let last = events.last { try await run.wait(until: last.timestamp) }
            return
        }
        // Live: each reading's frame as the kernel's `struct input_event`s, written as it arrives.
        let live = try LiveNode(path: fifo, node: run.testbedRoot + node.withLock { $0.path })
        feeding.withLock { $0.node = live }
        var encoder = InputDeviceEncoding.Encoder()
        // On the trace's clock, a frame has reached the reader's side once the node's terminal holds it.
        let settled = run.clock == nil ? nil : live.node?.isWaiting
        // On the trace's clock an event is stamped on the program's CLOCK_MONOTONIC (which libinput and libevdev ask
        // the kernel for, and compare with their own timers); a live one keeps the machine's time.
        let zero = run.clock == nil ? 0 : run.origin.nanoseconds - TraceClock.monotonicBase
        for await record in run.records(of: channels, settled: settled) {
            let frame = encoder.encode(record.reading)
            var bytes: [UInt8] = []
            for var event in frame {
                event.timestamp = Timestamp(nanoseconds: event.timestamp.nanoseconds - zero)
                bytes += Self.kernelEvent(event)
            }
            live.write(bytes)
            feeding.withLock { $0.frameEnds.append(live.bytesWritten) }
        }
    }

    /// The FIFO's node and where each frame written into it ends, in bytes from the first; once the run is over, the
    /// bytes the program read.
    private let feeding = Locked<(node: LiveNode?, frameEnds: [Int], read: Int?)>((nil, [], nil))

    public func finish() {
        guard let node = feeding.withLock({ $0.node }) else { return }
        // A frame counts as read once none of its bytes is left in the node.
        let read = node.bytesRead()
        feeding.withLock { $0.read = read }
    }

    /// The size of `struct input_event` on a 64-bit Linux.
    static let kernelEventSize = 24

    /// `struct input_event` on a 64-bit Linux: the time as seconds and microseconds, type, code and value.
    static func kernelEvent(_ event: InputEvent) -> [UInt8] {
        let microseconds = event.timestamp.nanoseconds / 1000
        var bytes = withUnsafeBytes(of: (microseconds / 1_000_000).littleEndian, Array.init)
        bytes += withUnsafeBytes(of: (microseconds % 1_000_000).littleEndian, Array.init)
        bytes += withUnsafeBytes(of: event.type.littleEndian, Array.init)
        bytes += withUnsafeBytes(of: event.code.littleEndian, Array.init)
        bytes += withUnsafeBytes(of: event.value.littleEndian, Array.init)
        return bytes
    }

    public var delivered: String {
        let (path, live) = node.withLock { $0 }
        if live != nil {
            let (ends, read) = feeding.withLock { ($0.frameEnds, $0.read) }
            let events = (ends.last ?? 0) / Self.kernelEventSize
            let taken = read.map { read in ", \(read / Self.kernelEventSize) events (\(ends.prefix { $0 <= read }.count) frames) read by the program" } ?? ""
            return "\(role.rawValue) \(path): \(events) events in \(ends.count) frames" + (onTraceClock.withLock { $0 } ? " on the trace's clock" : ", live") + taken
        }
        return "\(role.rawValue) \(path): \(events.count) events in \(events.filter(\.isFrameEnd).count) frames"
    }
}
