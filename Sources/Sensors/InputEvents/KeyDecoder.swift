import HAL

/// Keys and buttons: each `EV_KEY` event of a frame becomes a ``HAL/KeyEvent`` at `SYN_REPORT`
/// (value 0 release, 1 press, 2 auto-repeat). Buttons that belong to pointing are left to the pointer.
struct KeyDecoder: Sendable {
    private let ignored: Set<UInt16>
    private var pending: [(code: UInt16, value: Int32)] = []

    init(device: InputDeviceDescription) {
        ignored = device.roles.contains(.pointer) ? PointerDecoder.consumedKeys : []
    }

    mutating func decode(_ event: InputEvent, into readings: inout [Reading]) {
        if event.type == InputCode.Event.key && !ignored.contains(event.code) {
            pending.append((event.code, event.value))
        } else if event.isFrameEnd {
            for key in pending {
                let state: KeyState = key.value == 0 ? .release : key.value == 2 ? .repeat : .press
                readings.append(.key(KeyEvent(timestamp: event.timestamp, code: Int(key.code), state: state)))
            }
            pending.removeAll(keepingCapacity: true)
        }
    }

    mutating func discardPartialFrame() { pending.removeAll(keepingCapacity: true) }
}
