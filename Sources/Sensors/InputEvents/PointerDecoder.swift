import HAL

/// Touchscreens, touchpads and mice as pointer contacts.
///
/// - Multitouch (type B): each slot's tracking id starts (`press`) and ends (`release`) a contact;
///   its `ABS_MT_POSITION_X/Y` move it. The contact's id is the slot.
/// - Single touch: `BTN_TOUCH` with `ABS_X/Y`, contact 0.
/// - Mouse: `BTN_LEFT` presses and releases contact 0; `REL_X/Y` move it across the surface
///   (``InputDecoderSettings/mouseCountsAcross``), starting from the centre.
///
/// Positions are normalised with each axis's range. Events come out at `SYN_REPORT`, in slot order.
struct PointerDecoder: Sendable {
    /// The buttons that are part of pointing, not separate keys.
    static let consumedKeys: Set<UInt16> = Set(InputCode.Key.firstTool...InputCode.Key.lastTool)
        .union([InputCode.Key.leftButton])

    private struct Contact: Sendable {
        var down = false
        var x = 0.5, y = 0.5
        // What changed in the current frame.
        var pressed = false, released = false, moved = false
        // As of the last SYN_REPORT.
        var committedDown = false
        var committedX = 0.5, committedY = 0.5

        mutating func commit() {
            pressed = false
            released = false
            moved = false
            (committedDown, committedX, committedY) = (down, x, y)
        }

        mutating func rollBack() {
            pressed = false
            released = false
            moved = false
            (down, x, y) = (committedDown, committedX, committedY)
        }
    }

    private let multitouch: Bool
    private let mouse: Bool
    private let xAxis: AbsoluteAxis?, yAxis: AbsoluteAxis?
    private let mouseCountsAcross: Double
    private var contacts: [Contact]
    private var slot = 0

    init(device: InputDeviceDescription, settings: InputDecoderSettings) {
        typealias Abs = InputCode.Absolute
        multitouch = device.axes[Abs.multitouchX] != nil && device.axes[Abs.multitouchY] != nil
        xAxis = device.axes[multitouch ? Abs.multitouchX : Abs.x]
        yAxis = device.axes[multitouch ? Abs.multitouchY : Abs.y]
        mouse = !multitouch && (xAxis == nil || yAxis == nil)
        mouseCountsAcross = settings.mouseCountsAcross
        let slots = multitouch ? Int(max(0, device.axes[Abs.multitouchSlot]?.maximum ?? 0)) + 1 : 1
        contacts = Array(repeating: Contact(), count: min(slots, 64))
    }

    mutating func decode(_ event: InputEvent, into readings: inout [Reading]) {
        typealias Abs = InputCode.Absolute
        switch event.type {
        case InputCode.Event.absolute:
            switch event.code {
            case Abs.multitouchSlot where multitouch:
                slot = Int(event.value)
            case Abs.multitouchTrackingID where multitouch:
                update(slot) { contact in
                    if event.value >= 0 && !contact.down { contact.down = true; contact.pressed = true }
                    if event.value < 0 && contact.down { contact.down = false; contact.released = true }
                }
            case Abs.multitouchX where multitouch, Abs.x where !multitouch:
                if let xAxis { update(slot) { $0.x = xAxis.normalized(event.value); $0.moved = true } }
            case Abs.multitouchY where multitouch, Abs.y where !multitouch:
                if let yAxis { update(slot) { $0.y = yAxis.normalized(event.value); $0.moved = true } }
            default: break
            }
        case InputCode.Event.key where (!multitouch && !mouse && event.code == InputCode.Key.touch)
            || (mouse && event.code == InputCode.Key.leftButton):
            update(0) { contact in
                if event.value != 0 && !contact.down { contact.down = true; contact.pressed = true }
                if event.value == 0 && contact.down { contact.down = false; contact.released = true }
            }
        case InputCode.Event.relative where mouse:
            let step = Double(event.value) / mouseCountsAcross
            update(0) { contact in
                if event.code == InputCode.Relative.x { contact.x = min(max(contact.x + step, 0), 1); contact.moved = true }
                if event.code == InputCode.Relative.y { contact.y = min(max(contact.y + step, 0), 1); contact.moved = true }
            }
        case InputCode.Event.synchronization where event.code == InputCode.Sync.report:
            emit(at: event.timestamp, into: &readings)
        default:
            break
        }
    }

    private mutating func update(_ index: Int, _ change: (inout Contact) -> Void) {
        guard contacts.indices.contains(index) else { return }
        change(&contacts[index])
    }

    private mutating func emit(at time: Timestamp, into readings: inout [Reading]) {
        for index in contacts.indices {
            let contact = contacts[index]
            if contact.pressed {
                readings.append(.pointer(PointerEvent(timestamp: time, pointer: index, phase: .press, x: contact.x, y: contact.y)))
            } else if contact.moved && contact.down && (contact.x != contact.committedX || contact.y != contact.committedY) {
                readings.append(.pointer(PointerEvent(timestamp: time, pointer: index, phase: .move, x: contact.x, y: contact.y)))
            }
            if contact.released {
                readings.append(.pointer(PointerEvent(timestamp: time, pointer: index, phase: .release, x: contact.x, y: contact.y)))
            }
            contacts[index].commit()
        }
    }

    mutating func discardPartialFrame() {
        for index in contacts.indices { contacts[index].rollBack() }
    }

    mutating func cancelContacts(at time: Timestamp, into readings: inout [Reading]) {
        for index in contacts.indices {
            contacts[index].rollBack()
            guard contacts[index].down else { continue }
            readings.append(.pointer(PointerEvent(timestamp: time, pointer: index, phase: .cancel, x: contacts[index].x, y: contacts[index].y)))
            contacts[index].down = false
            contacts[index].commit()
        }
    }
}
