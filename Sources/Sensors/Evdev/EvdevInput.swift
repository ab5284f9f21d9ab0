import LibC
import SystemSupport
import CEvdev
public import HAL
public import InputEvents

/// A Linux input device read through libevdev: `evdev:/dev/input/event3[?grab=1][#ROLE]`.
///
/// The role (``InputEvents/InputRole``) picks what the device delivers: `pointer` (touchscreen,
/// touchpad, mouse), `keys`, `accel` and `gyro` (an `INPUT_PROP_ACCELEROMETER` device) or `stick`
/// (a gamepad stick as a virtual gyroscope for the motion controls). Without a fragment the device's
/// first role is used (``InputEvents/InputDeviceDescription/roles``).
///
/// - Timestamps are the kernel's, on `CLOCK_MONOTONIC` (set with `EVIOCSCLOCKID`; a node that
///   refuses it, such as an emulated one, keeps the times it delivers).
/// - On `SYN_DROPPED` libevdev resynchronises the device state; the partial frame is dropped and
///   the state difference is decoded like ordinary events (a finger lifted during the overrun
///   comes out as its release).
/// - `grab=1` takes the device exclusively (`EVIOCGRAB`), so the desktop does not see it too.
/// - Removal (`ENODEV`, the descriptor hanging up, or the node gone from `/dev`) cancels contacts still down and ends the
///   stream with ``HAL/DeviceError/Code/disconnected``.
public struct EvdevInput: Device {
    /// The device.
    public let info: DeviceInfo
    /// The event node.
    public let path: String
    /// What the device said about itself when opened.
    public let description: InputDeviceDescription
    /// What it delivers.
    public let role: InputRole
    /// Whether reading grabs the device exclusively.
    public let grab: Bool
    /// Unit mappings for mice and sticks.
    public let settings: InputDecoderSettings

    static let accessHelp = "add the user to the 'input' group (sudo usermod -aG input $USER, then log in again) or install a udev rule granting access (docs/boards.md)"

    /// Opens the device an `evdev:` URI names, reading its description to check the role.
    /// Query: `grab` (`1`/`0`), `stick` (`left`/`right`), `fullrate` (stick rate at full deflection, °/s),
    /// `span` (mouse counts across the surface).
    public init(uri: DeviceURI) throws(DeviceError) {
        path = uri.body
        grab = ["1", "true", "yes"].contains(uri.queryValue("grab") ?? "0")
        var settings = InputDecoderSettings()
        if let text = uri.queryValue("fullrate") {
            guard let degrees = Double(text), degrees > 0 else {
                throw DeviceError(.invalidURI, uri: uri.description, "fullrate=\(text) is not a positive rate in degrees per second")
            }
            settings.stickFullRate = degrees * .pi / 180
        }
        if let text = uri.queryValue("span") {
            guard let counts = Double(text), counts > 0 else {
                throw DeviceError(.invalidURI, uri: uri.description, "span=\(text) is not a positive number of counts")
            }
            settings.mouseCountsAcross = counts
        }
        settings.rightStick = uri.queryValue("stick") == "right"
        self.settings = settings
        description = try Self.withDevice(path: path, uri: uri.description) { device in Self.describe(device) }
        let roles = description.roles
        if let fragment = uri.fragment {
            guard let role = InputRole(rawValue: fragment), roles.contains(role) else {
                throw DeviceError(
                    .unsupported, uri: uri.description,
                    "'\(description.name)' has no role '\(fragment)'; it offers: \(roles.map(\.rawValue).joined(separator: ", "))")
            }
            self.role = role
        } else {
            guard let first = roles.first else {
                throw DeviceError(.unsupported, uri: uri.description, "'\(description.name)' is no pointer, keys, stick or motion sensor")
            }
            role = first
        }
        do {
            _ = try InputDecoder(device: description, role: role, settings: settings)
        } catch {
            throw DeviceError(.unsupported, uri: uri.description, error.description)
        }
        info = DeviceInfo(
            uri: uri.description, name: description.name, kind: role.deviceKind, backend: "evdev",
            capabilities: roles.map(\.rawValue))
    }

    /// Opens the node, hands libevdev's view of it to `body`, and closes it.
    static func withDevice<Result>(
        path: String, uri: String, _ body: (OpaquePointer) throws(DeviceError) -> Result
    ) throws(DeviceError) -> Result {
        if let failure = CEvdev_load(nil) { throw DeviceError(.unsupported, uri: uri, String(cString: failure)) }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw DeviceError(errno: errno, uri: uri, doing: "cannot open \(path)", access: Self.accessHelp) }
        defer { close(descriptor) }
        var device: OpaquePointer?
        let status = libevdev_new_from_fd(descriptor, &device)
        guard status == 0, let device else {
            throw DeviceError(errno: -status, uri: uri, doing: "\(path) is not an input device libevdev can read", access: Self.accessHelp)
        }
        defer { libevdev_free(device) }
        return try body(device)
    }

    /// The device's identity, properties, codes and axes, as libevdev sees them.
    static func describe(_ device: OpaquePointer) -> InputDeviceDescription {
        var description = InputDeviceDescription(
            name: libevdev_get_name(device).map { String(cString: $0) } ?? "",
            bus: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(device)),
            vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(device)),
            product: UInt16(truncatingIfNeeded: libevdev_get_id_product(device)),
            version: UInt16(truncatingIfNeeded: libevdev_get_id_version(device)))
        for property in 0...InputCode.Property.max where libevdev_has_property(device, UInt32(property)) == 1 {
            description.properties.insert(property)
        }
        for type in 1...InputCode.Event.max where libevdev_has_event_type(device, UInt32(type)) == 1 {
            let maxCode = libevdev_event_type_get_max(UInt32(type))
            guard maxCode > 0 else { continue }
            var codes: Set<UInt16> = []
            for code in 0...UInt32(maxCode) where libevdev_has_event_code(device, UInt32(type), code) == 1 {
                codes.insert(UInt16(code))
                if type == InputCode.Event.absolute, let axis = libevdev_get_abs_info(device, code) {
                    description.axes[UInt16(code)] = AbsoluteAxis(
                        minimum: axis.pointee.minimum, maximum: axis.pointee.maximum, fuzz: axis.pointee.fuzz,
                        flat: axis.pointee.flat, resolution: axis.pointee.resolution)
                }
            }
            description.codes[UInt16(type)] = codes
        }
        return description
    }

    /// Reads the device until the consumer stops or the device goes away, delivering the readings
    /// `extract` takes, one element each.
    func readings<Typed: Sendable>(
        buffering: ReadingBuffering, _ extract: @escaping @Sendable (Reading) -> Typed?
    ) -> AsyncThrowingStream<Typed, any Error> {
        read(buffering: buffering) { readings, yield in
            for reading in readings { if let typed = extract(reading) { yield(typed) } }
        }
    }

    /// The same readings a block at a time: those of each read of the device (every event queued when it is
    /// polled), one element per block.
    func blocks<Typed: Sendable>(
        buffering: ReadingBuffering, _ extract: @escaping @Sendable (Reading) -> Typed?
    ) -> AsyncThrowingStream<[Typed], any Error> {
        read(buffering: buffering) { readings, yield in
            let block = readings.compactMap(extract)
            if !block.isEmpty { yield(block) }
        }
    }

    /// The read loop on a device thread; `deliver` turns each read's readings into the stream's elements.
    private func read<Element: Sendable>(
        buffering: ReadingBuffering, deliver: @escaping @Sendable (_ readings: [Reading], _ yield: (Element) -> Void) -> Void
    ) -> AsyncThrowingStream<Element, any Error> {
        let (path, uri, role, grab, settings, description) = (path, info.uri, role, grab, settings, description)
        return DeviceThread.stream(name: "evdev \(path)", buffering: buffering) { stop, yield in
            try Self.withDevice(path: path, uri: uri) { (device) throws(DeviceError) in
                // Every kernel since 3.4 takes EVIOCSCLOCKID; a node that refuses it (an emulated one,
                // such as umockdev's) delivers the timestamps it was given, which are kept as they are.
                _ = libevdev_set_clock_id(device, CLOCK_MONOTONIC)
                if grab {
                    let status = libevdev_grab(device, LIBEVDEV_GRAB)
                    guard status == 0 else {
                        throw DeviceError(errno: -status, uri: uri, doing: "cannot grab \(path) (another program holds it?)", access: Self.accessHelp)
                    }
                }
                defer { if grab { _ = libevdev_grab(device, LIBEVDEV_UNGRAB) } }
                // The role was checked when the device was opened.
                guard var decoder = try? InputDecoder(device: description, role: role, settings: settings) else { return }
                let reader = EvdevEventReader(device: device, path: path, uri: uri)
                var readings: [Reading] = []
                do throws(DeviceError) {
                    while !stop.isSet {
                        try reader.waitForInput(milliseconds: 100)
                        try reader.drain(into: &decoder, readings: &readings)
                        if !readings.isEmpty { deliver(readings, yield) }
                        readings.removeAll(keepingCapacity: true)
                    }
                } catch let error where error.code == .disconnected {
                    decoder.cancelContacts(at: MonotonicClock().now, into: &readings)
                    if !readings.isEmpty { deliver(readings, yield) }
                    throw error
                }
            }
        }
    }
}

/// The read loop over one open libevdev device: poll, then take every queued event, resynchronising
/// after `SYN_DROPPED`.
struct EvdevEventReader {
    let device: OpaquePointer
    let path: String
    let uri: String

    /// Waits until events are ready or `milliseconds` pass. A hang-up, or a quiet spell after which
    /// the node is gone from `/dev`, means the device is gone.
    func waitForInput(milliseconds: Int32) throws(DeviceError) {
        var poller = pollfd(fd: libevdev_get_fd(device), events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, milliseconds)
        if ready < 0 && errno != EINTR { throw DeviceError(errno: errno, uri: uri, doing: "poll", access: EvdevInput.accessHelp) }
        if ready == 0 && access(path, F_OK) != 0 {
            throw DeviceError(.disconnected, uri: uri, "the device went away (\(path) is gone)")
        }
        if ready > 0 && poller.revents & Int16(POLLIN) == 0 && poller.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
            throw DeviceError(.disconnected, uri: uri, "the device went away (the event node hung up)")
        }
    }

    /// Decodes every event queued now.
    func drain(into decoder: inout InputDecoder, readings: inout [Reading]) throws(DeviceError) {
        var event = input_event()
        while true {
            let status = libevdev_next_event(device, LIBEVDEV_READ_FLAG_NORMAL.rawValue, &event)
            if status == LIBEVDEV_READ_STATUS_SUCCESS.rawValue {
                decoder.decode(Self.inputEvent(event), into: &readings)
            } else if status == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                // The kernel dropped events: forget the partial frame and decode libevdev's delta to the device's state.
                decoder.discardPartialFrame()
                var sync = libevdev_next_event(device, LIBEVDEV_READ_FLAG_SYNC.rawValue, &event)
                while sync == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                    decoder.decode(Self.inputEvent(event), into: &readings)
                    sync = libevdev_next_event(device, LIBEVDEV_READ_FLAG_SYNC.rawValue, &event)
                }
            } else if status == -EAGAIN {
                return
            } else {
                throw DeviceError(errno: -status, uri: uri, doing: "reading events", access: EvdevInput.accessHelp)
            }
        }
    }

    static func inputEvent(_ event: input_event) -> InputEvent {
        InputEvent(
            timestamp: Timestamp(nanoseconds: Int64(event.time.tv_sec) * 1_000_000_000 + Int64(event.time.tv_usec) * 1000),
            type: event.type, code: event.code, value: event.value)
    }
}

/// An evdev touchscreen, touchpad or mouse.
public struct EvdevPointerInput: PointerInput {
    /// The device underneath.
    public let input: EvdevInput
    /// The device.
    public var info: DeviceInfo { input.info }
    /// Pointer events as they happen.
    public func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<PointerEvent, any Error> {
        input.readings(buffering: buffering) { if case .pointer(let event) = $0 { event } else { nil } }
    }
}

/// Evdev keys and buttons.
public struct EvdevKeyInput: KeyInput {
    /// The device underneath.
    public let input: EvdevInput
    /// The device.
    public var info: DeviceInfo { input.info }
    /// Key events as they happen.
    public func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<KeyEvent, any Error> {
        input.readings(buffering: buffering) { if case .key(let event) = $0 { event } else { nil } }
    }
}

/// An evdev accelerometer or gyroscope (`INPUT_PROP_ACCELEROMETER`), or a gamepad stick as a virtual gyroscope.
public struct EvdevMotionSensor: MotionSensor {
    /// The device underneath.
    public let input: EvdevInput
    /// The device.
    public var info: DeviceInfo { input.info }
    /// Motion samples as they happen.
    public func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<MotionSample, any Error> {
        input.readings(buffering: buffering) { if case .motion(let sample) = $0 { sample } else { nil } }
    }

    /// The same samples a block at a time: those of every event queued when the device is read. `buffering`
    /// counts blocks.
    public func blocks(buffering: ReadingBuffering = .unbounded) -> AsyncThrowingStream<[MotionSample], any Error> {
        input.blocks(buffering: buffering) { if case .motion(let sample) = $0 { sample } else { nil } }
    }
}
