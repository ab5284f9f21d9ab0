public import HAL
public import InputEvents

/// The input devices a program is given for a trace's pointer, key and motion channels, each described as a real
/// one is, and the kernel events that carry the channel's readings to it.
///
/// - **Touchscreen** (pointer channels): multitouch type B with ten slots (`ABS_MT_SLOT`, `ABS_MT_TRACKING_ID`,
///   `ABS_MT_POSITION_X/Y`) and the single-touch `BTN_TOUCH`, `ABS_X/Y` a touchscreen also reports,
///   `INPUT_PROP_DIRECT`, 4096 × 4096 units at 16 units per millimetre (a 256 mm screen).
/// - **Keys** (key channels): `EV_KEY` with the codes the channel uses, and auto-repeat values of 2.
/// - **Motion sensors** (accelerometer and gyroscope channels): `INPUT_PROP_ACCELEROMETER`, `ABS_X/Y/Z` at 8192
///   units per g (±16 g) and `ABS_RX/RY/RZ` at 1024 units per degree per second (±2000 °/s), the kernel's input ABI
///   as game-controller motion sensors report it.
///
/// Each reading becomes one frame ending in `SYN_REPORT`; as the kernel does, an axis whose value did not change is
/// not sent again.
public enum InputDeviceEncoding {
    /// Which device a channel's kind makes.
    public enum Role: String, Sendable, Hashable {
        /// A touchscreen.
        case touchscreen
        /// A keys device.
        case keys
        /// A motion-sensor device.
        case motion

        /// The role for `kind`, or `nil` when evdev cannot carry that kind.
        public init?(kind: DeviceKind) {
            switch kind {
            case .pointer: self = .touchscreen
            case .keys: self = .keys
            case .accelerometer, .gyroscope: self = .motion
            default: return nil
            }
        }
    }

    /// Touchscreen units across each axis.
    static let touchUnits: Int32 = 4096
    /// Accelerometer units per g.
    static let accelerationResolution: Int32 = 8192
    /// Gyroscope units per degree per second.
    static let rotationResolution: Int32 = 1024

    /// The device for `role`; `keys` lists the key codes a keys device sends.
    public static func description(_ role: Role, name: String, keys: Set<UInt16> = []) -> InputDeviceDescription {
        typealias Abs = InputCode.Absolute
        let identity = (bus: UInt16(0x03), vendor: UInt16(0x1209), version: UInt16(1))
        switch role {
        case .touchscreen:
            let axis = AbsoluteAxis(minimum: 0, maximum: touchUnits - 1, resolution: 16)
            return InputDeviceDescription(
                name: name, bus: identity.bus, vendor: identity.vendor, product: 0x4801, version: identity.version,
                properties: [InputCode.Property.direct],
                codes: [InputCode.Event.key: [InputCode.Key.touch], InputCode.Event.absolute: [Abs.x, Abs.y, Abs.multitouchSlot, Abs.multitouchX, Abs.multitouchY, Abs.multitouchTrackingID]],
                axes: [
                    Abs.x: axis, Abs.y: axis, Abs.multitouchSlot: AbsoluteAxis(minimum: 0, maximum: 9),
                    Abs.multitouchX: axis, Abs.multitouchY: axis, Abs.multitouchTrackingID: AbsoluteAxis(minimum: 0, maximum: 65535),
                ])
        case .keys:
            return InputDeviceDescription(
                name: name, bus: identity.bus, vendor: identity.vendor, product: 0x4802, version: identity.version,
                codes: [InputCode.Event.key: keys])
        case .motion:
            let acceleration = AbsoluteAxis(minimum: -16 * accelerationResolution, maximum: 16 * accelerationResolution, resolution: accelerationResolution)
            let rotation = AbsoluteAxis(minimum: -2000 * rotationResolution, maximum: 2000 * rotationResolution, resolution: rotationResolution)
            return InputDeviceDescription(
                name: name, bus: identity.bus, vendor: identity.vendor, product: 0x4803, version: identity.version,
                properties: [InputCode.Property.accelerometer],
                codes: [InputCode.Event.absolute: [Abs.x, Abs.y, Abs.z, Abs.rx, Abs.ry, Abs.rz]],
                axes: [Abs.x: acceleration, Abs.y: acceleration, Abs.z: acceleration, Abs.rx: rotation, Abs.ry: rotation, Abs.rz: rotation])
        }
    }

    /// Turns readings, in order, into the events one device sends.
    public struct Encoder: Sendable {
        private var last: [UInt32: Int32] = [:]
        private var slot: Int32 = -1
        private var down: Set<Int> = []
        private var nextTrackingID: Int32 = 0

        /// A device that has sent nothing yet.
        public init() {}

        /// The frame that carries `reading`, ending in `SYN_REPORT`; empty when the reading changes nothing (or is
        /// not one the device carries).
        public mutating func encode(_ reading: Reading) -> [InputEvent] {
            typealias Abs = InputCode.Absolute
            var frame: [InputEvent] = []
            let time = reading.timestamp
            func send(_ type: UInt16, _ code: UInt16, _ value: Int32, always: Bool = false) {
                let key = UInt32(type) << 16 | UInt32(code)
                if !always, last[key] == value { return }
                last[key] = value
                frame.append(InputEvent(timestamp: time, type: type, code: code, value: value))
            }
            switch reading {
            case .pointer(let event):
                let contact = max(0, min(9, event.pointer))
                func units(_ fraction: Double) -> Int32 { Int32((max(0, min(1, fraction)) * Double(touchUnits - 1)).rounded()) }
                let x = units(event.x), y = units(event.y)
                if slot != Int32(contact) {
                    slot = Int32(contact)
                    frame.append(InputEvent(timestamp: time, type: InputCode.Event.absolute, code: Abs.multitouchSlot, value: slot))
                }
                switch event.phase {
                case .press:
                    send(InputCode.Event.absolute, Abs.multitouchTrackingID, nextTrackingID, always: true)
                    nextTrackingID = (nextTrackingID + 1) & 0xffff
                    send(InputCode.Event.absolute, Abs.multitouchX, x, always: true)
                    send(InputCode.Event.absolute, Abs.multitouchY, y, always: true)
                    if down.isEmpty { send(InputCode.Event.key, InputCode.Key.touch, 1) }
                    down.insert(contact)
                    if down.min() == contact {
                        send(InputCode.Event.absolute, Abs.x, x)
                        send(InputCode.Event.absolute, Abs.y, y)
                    }
                case .move:
                    guard down.contains(contact) else { return [] }
                    send(InputCode.Event.absolute, Abs.multitouchX, x, always: true)
                    send(InputCode.Event.absolute, Abs.multitouchY, y, always: true)
                    if down.min() == contact {
                        send(InputCode.Event.absolute, Abs.x, x)
                        send(InputCode.Event.absolute, Abs.y, y)
                    }
                case .release, .cancel:
                    guard down.remove(contact) != nil else { return [] }
                    send(InputCode.Event.absolute, Abs.multitouchTrackingID, -1, always: true)
                    if down.isEmpty { send(InputCode.Event.key, InputCode.Key.touch, 0) }
                }
            case .key(let event):
                let value: Int32 = event.state == .press ? 1 : event.state == .release ? 0 : 2
                send(InputCode.Event.key, UInt16(clamping: event.code), value, always: true)
            case .motion(let sample):
                let acceleration = sample.quantity == .acceleration
                guard acceleration || sample.quantity == .angularVelocity else { return [] }
                let scale = acceleration
                    ? Double(accelerationResolution) / 9.80665
                    : Double(rotationResolution) * 180 / Double.pi
                let codes = acceleration ? (Abs.x, Abs.y, Abs.z) : (Abs.rx, Abs.ry, Abs.rz)
                let limit = Double(acceleration ? 16 * accelerationResolution : 2000 * rotationResolution)
                func units(_ value: Double) -> Int32 { Int32(max(-limit, min(limit, (value * scale).rounded()))) }
                send(InputCode.Event.absolute, codes.0, units(sample.value.x))
                send(InputCode.Event.absolute, codes.1, units(sample.value.y))
                send(InputCode.Event.absolute, codes.2, units(sample.value.z))
            default:
                return []
            }
            guard !frame.isEmpty else { return [] }
            frame.append(InputEvent(timestamp: time, type: InputCode.Event.synchronization, code: InputCode.Sync.report, value: 0))
            return frame
        }
    }
}
