public import HAL

/// The range and resolution of an absolute axis (`struct input_absinfo`).
public struct AbsoluteAxis: Sendable, Hashable {
    /// The smallest value.
    public var minimum: Int32
    /// The largest value.
    public var maximum: Int32
    /// Noise the kernel filters out.
    public var fuzz: Int32
    /// The dead zone around the centre (joysticks).
    public var flat: Int32
    /// Units per millimetre for positions; units per g for accelerometer axes and per degree/s
    /// for gyroscope axes (`INPUT_PROP_ACCELEROMETER`); 0 when the driver gives none.
    public var resolution: Int32

    /// Creates an axis.
    public init(minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }

    /// `value` mapped onto 0…1 across the axis's range, clamped.
    @inlinable
    public func normalized(_ value: Int32) -> Double {
        guard maximum > minimum else { return 0 }
        let fraction = Double(Int64(value) - Int64(minimum)) / Double(Int64(maximum) - Int64(minimum))
        return min(max(fraction, 0), 1)
    }
}

/// What an input device says about itself: its identity, properties, event codes and axes.
/// libevdev reads this from a live device; an evemu recording writes it in its header.
public struct InputDeviceDescription: Sendable, Hashable {
    /// The kernel's name for the device.
    public var name: String
    /// Bus type, vendor, product and version (`struct input_id`).
    public var bus: UInt16, vendor: UInt16, product: UInt16, version: UInt16
    /// The `INPUT_PROP_*` properties set.
    public var properties: Set<UInt16>
    /// The event codes the device can send, by event type.
    public var codes: [UInt16: Set<UInt16>]
    /// The absolute axes, by `ABS_*` code.
    public var axes: [UInt16: AbsoluteAxis]

    /// Creates a description.
    public init(
        name: String, bus: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0,
        properties: Set<UInt16> = [], codes: [UInt16: Set<UInt16>] = [:], axes: [UInt16: AbsoluteAxis] = [:]
    ) {
        self.name = name
        self.bus = bus
        self.vendor = vendor
        self.product = product
        self.version = version
        self.properties = properties
        self.codes = codes
        self.axes = axes
    }

    /// Whether the device sends `code` of event type `type` (an absolute axis with a description counts).
    public func has(_ type: UInt16, _ code: UInt16) -> Bool {
        codes[type]?.contains(code) ?? false || (type == InputCode.Event.absolute && axes[code] != nil)
    }

    /// What the device can be used as, most specific first; the first is the default when a URI names none.
    public var roles: [InputRole] {
        typealias Abs = InputCode.Absolute
        let abs = InputCode.Event.absolute, key = InputCode.Event.key, rel = InputCode.Event.relative
        if properties.contains(InputCode.Property.accelerometer) {
            var roles: [InputRole] = []
            if has(abs, Abs.x) && has(abs, Abs.y) && has(abs, Abs.z) { roles.append(.accelerometer) }
            if has(abs, Abs.rx) && has(abs, Abs.ry) && has(abs, Abs.rz) { roles.append(.gyroscope) }
            return roles
        }
        var roles: [InputRole] = []
        let touch = has(key, InputCode.Key.touch)
        if (has(abs, Abs.multitouchX) && has(abs, Abs.multitouchY)) || (touch && has(abs, Abs.x) && has(abs, Abs.y))
            || (has(rel, InputCode.Relative.x) && has(rel, InputCode.Relative.y) && has(key, InputCode.Key.leftButton))
        {
            roles.append(.pointer)
        }
        let gamepadButtons = (codes[key] ?? []).contains { $0 >= InputCode.Key.joystick && $0 < InputCode.Key.firstTool }
        if !touch && gamepadButtons && has(abs, Abs.x) && has(abs, Abs.y) { roles.append(.stick) }
        let pointerButtons = roles.contains(.pointer) ? PointerDecoder.consumedKeys : []
        if (codes[key] ?? []).contains(where: { !pointerButtons.contains($0) }) { roles.append(.keys) }
        return roles
    }
}

/// What an input device is used as. The raw value names the role in a URI fragment
/// (`evdev:/dev/input/event3#keys`) and in `hal devices`.
public enum InputRole: String, Sendable, Hashable, CaseIterable {
    /// Touchscreen, touchpad or mouse: ``HAL/PointerEvent``s.
    case pointer
    /// Keys and buttons: ``HAL/KeyEvent``s.
    case keys
    /// The accelerometer of an `INPUT_PROP_ACCELEROMETER` device: ``HAL/MotionSample``s in m/s².
    case accelerometer = "accel"
    /// The gyroscope of an `INPUT_PROP_ACCELEROMETER` device: ``HAL/MotionSample``s in rad/s.
    case gyroscope = "gyro"
    /// A gamepad's stick as a motion control: a virtual gyroscope whose angular rate follows the deflection.
    case stick

    /// The device kind the role delivers.
    public var deviceKind: DeviceKind {
        switch self {
        case .pointer: .pointer
        case .keys: .keys
        case .accelerometer: .accelerometer
        case .gyroscope, .stick: .gyroscope
        }
    }
}
