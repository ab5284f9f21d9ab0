public import HAL

/// Turns a device's input events into HAL readings for one ``InputRole``: frames of events
/// (ended by `SYN_REPORT`) become pointer events, key events or motion samples stamped with the
/// kernel's time of the frame.
///
/// The live evdev backend and the evemu importer share this decoder, so a recording imported
/// into a trace and the same recording replayed through the device give the same readings.
///
/// A `SYN_DROPPED` in the event stream discards the partial frame and everything up to the next
/// `SYN_REPORT`, as the kernel documents. The live backend instead lets libevdev resynchronise
/// (it calls ``discardPartialFrame()`` and feeds the state delta libevdev produces).
public struct InputDecoder: Sendable {
    /// What the decoder delivers.
    public let role: InputRole
    // One of these is set, by role. Optionals rather than an enum with payloads: mutating through
    // `decoder?.decode(…)` is in place, where rebinding an enum payload copies its arrays every event.
    private var pointer: PointerDecoder?
    private var keys: KeyDecoder?
    private var motion: MotionAxesDecoder?
    private var stick: StickDecoder?
    private var droppingUntilReport = false

    /// Creates a decoder for a device and a role it supports.
    ///
    /// Throws ``InputDecoderError`` when the device cannot be used that way, such as an
    /// accelerometer axis without a resolution to scale it by.
    public init(device: InputDeviceDescription, role: InputRole, settings: InputDecoderSettings = InputDecoderSettings())
        throws(InputDecoderError)
    {
        guard device.roles.contains(role) else {
            let roles = device.roles.map(\.rawValue).joined(separator: ", ")
            throw InputDecoderError("'\(device.name)' is not usable as \(role.rawValue) (it offers: \(roles.isEmpty ? "nothing the HAL reads" : roles))")
        }
        self.role = role
        switch role {
        case .pointer: pointer = PointerDecoder(device: device, settings: settings)
        case .keys: keys = KeyDecoder(device: device)
        case .accelerometer: motion = try MotionAxesDecoder(device: device, quantity: .acceleration)
        case .gyroscope: motion = try MotionAxesDecoder(device: device, quantity: .angularVelocity)
        case .stick: stick = StickDecoder(device: device, settings: settings)
        }
    }

    /// Takes one event; appends the readings a completed frame yields.
    public mutating func decode(_ event: InputEvent, into readings: inout [Reading]) {
        if event.type == InputCode.Event.synchronization {
            if event.code == InputCode.Sync.dropped {
                discardPartialFrame()
                droppingUntilReport = true
                return
            }
            if event.code == InputCode.Sync.report && droppingUntilReport {
                droppingUntilReport = false
                return
            }
        }
        if droppingUntilReport { return }
        pointer?.decode(event, into: &readings)
        keys?.decode(event, into: &readings)
        motion?.decode(event, into: &readings)
        stick?.decode(event, into: &readings)
    }

    /// Forgets the events received since the last `SYN_REPORT`: the kernel dropped some of that frame.
    public mutating func discardPartialFrame() {
        pointer?.discardPartialFrame()
        keys?.discardPartialFrame()
        motion?.discardPartialFrame()
        stick?.discardPartialFrame()
    }

    /// Ends every contact still down with a `cancel` at `time`: the device went away mid-gesture.
    public mutating func cancelContacts(at time: Timestamp, into readings: inout [Reading]) {
        pointer?.cancelContacts(at: time, into: &readings)
    }
}

/// How raw input maps onto HAL units where the device itself does not say.
public struct InputDecoderSettings: Sendable, Hashable {
    /// Mouse counts across the whole surface: a mouse's relative motion moves the normalised pointer
    /// by `counts / mouseCountsAcross`.
    public var mouseCountsAcross: Double = 1000
    /// A stick's angular rate at full deflection, radians per second (default 90°/s).
    public var stickFullRate: Double = .pi / 2
    /// Which stick drives the view: the left (`ABS_X`/`ABS_Y`) or the right (`ABS_RX`/`ABS_RY`).
    public var rightStick = false

    /// The defaults.
    public init() {}
}

/// Why an input device cannot be decoded in the role asked for.
public struct InputDecoderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in a sentence.
    public var description: String
    /// Creates an error.
    public init(_ description: String) { self.description = description }
}
