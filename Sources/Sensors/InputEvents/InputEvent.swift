public import HAL

/// One Linux input event (`struct input_event`): what evdev delivers and what an evemu
/// recording holds, with the kernel's timestamp.
public struct InputEvent: Sendable, Hashable {
    /// When the kernel stamped the event.
    public var timestamp: Timestamp
    /// The event type (`EV_*`).
    public var type: UInt16
    /// The code within the type (`SYN_*`, `KEY_*`/`BTN_*`, `REL_*`, `ABS_*`, …).
    public var code: UInt16
    /// The value: a key state, a relative step or an absolute position.
    public var value: Int32

    /// Creates an event.
    @inlinable
    public init(timestamp: Timestamp, type: UInt16, code: UInt16, value: Int32) {
        self.timestamp = timestamp
        self.type = type
        self.code = code
        self.value = value
    }

    /// Whether this is the `SYN_REPORT` that ends a frame of events.
    @inlinable
    public var isFrameEnd: Bool { type == InputCode.Event.synchronization && code == InputCode.Sync.report }
}

/// The event types and codes from `linux/input-event-codes.h` that the decoders use.
public enum InputCode {
    /// Event types (`EV_*`).
    public enum Event {
        /// `EV_SYN`.
        public static let synchronization: UInt16 = 0x00
        /// `EV_KEY`.
        public static let key: UInt16 = 0x01
        /// `EV_REL`.
        public static let relative: UInt16 = 0x02
        /// `EV_ABS`.
        public static let absolute: UInt16 = 0x03
        /// `EV_MSC`.
        public static let miscellaneous: UInt16 = 0x04
        /// `EV_MAX`.
        public static let max: UInt16 = 0x1f
    }

    /// Synchronization codes (`SYN_*`).
    public enum Sync {
        /// `SYN_REPORT`: the end of a frame.
        public static let report: UInt16 = 0
        /// `SYN_DROPPED`: the kernel's buffer overran and events were lost.
        public static let dropped: UInt16 = 3
    }

    /// Relative axes (`REL_*`).
    public enum Relative {
        /// `REL_X`.
        public static let x: UInt16 = 0x00
        /// `REL_Y`.
        public static let y: UInt16 = 0x01
    }

    /// Absolute axes (`ABS_*`).
    public enum Absolute {
        /// `ABS_X`.
        public static let x: UInt16 = 0x00
        /// `ABS_Y`.
        public static let y: UInt16 = 0x01
        /// `ABS_Z`.
        public static let z: UInt16 = 0x02
        /// `ABS_RX`.
        public static let rx: UInt16 = 0x03
        /// `ABS_RY`.
        public static let ry: UInt16 = 0x04
        /// `ABS_RZ`.
        public static let rz: UInt16 = 0x05
        /// `ABS_MT_SLOT`.
        public static let multitouchSlot: UInt16 = 0x2f
        /// `ABS_MT_POSITION_X`.
        public static let multitouchX: UInt16 = 0x35
        /// `ABS_MT_POSITION_Y`.
        public static let multitouchY: UInt16 = 0x36
        /// `ABS_MT_TRACKING_ID`.
        public static let multitouchTrackingID: UInt16 = 0x39
        /// `ABS_MAX`.
        public static let max: UInt16 = 0x3f
    }

    /// Keys and buttons (`KEY_*`, `BTN_*`).
    public enum Key {
        /// `BTN_LEFT`.
        public static let leftButton: UInt16 = 0x110
        /// `BTN_JOYSTICK`, the first joystick button.
        public static let joystick: UInt16 = 0x120
        /// `BTN_GAMEPAD` (`BTN_SOUTH`), the first gamepad button.
        public static let gamepad: UInt16 = 0x130
        /// `BTN_TOOL_PEN`, the first tool code.
        public static let firstTool: UInt16 = 0x140
        /// `BTN_TOUCH`.
        public static let touch: UInt16 = 0x14a
        /// `BTN_TOOL_QUADTAP`, the last tool code before `BTN_GEAR_DOWN`.
        public static let lastTool: UInt16 = 0x14f
        /// `KEY_MAX`.
        public static let max: UInt16 = 0x2ff
    }

    /// Device properties (`INPUT_PROP_*`).
    public enum Property {
        /// `INPUT_PROP_POINTER`: a touchpad (the pointer moves with the finger, not under it).
        public static let pointer: UInt16 = 0x00
        /// `INPUT_PROP_DIRECT`: a touchscreen or tablet (the contact is where it touches).
        public static let direct: UInt16 = 0x01
        /// `INPUT_PROP_ACCELEROMETER`: the device's absolute axes are motion sensors.
        public static let accelerometer: UInt16 = 0x06
        /// `INPUT_PROP_MAX`.
        public static let max: UInt16 = 0x1f
    }
}
