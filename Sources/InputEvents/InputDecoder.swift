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
    private var state: State
    private var droppingUntilReport = false

    private enum State: Sendable {
        case pointer(PointerDecoder)
        case keys(KeyDecoder)
        case motion(MotionAxesDecoder)
        case stick(StickDecoder)
    }

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
        case .pointer: state = .pointer(PointerDecoder(device: device, settings: settings))
        case .keys: state = .keys(KeyDecoder(device: device))
        case .accelerometer: state = .motion(try MotionAxesDecoder(device: device, quantity: .acceleration))
        case .gyroscope: state = .motion(try MotionAxesDecoder(device: device, quantity: .angularVelocity))
        case .stick: state = .stick(StickDecoder(device: device, settings: settings))
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
        switch state {
        case .pointer(var decoder):
            decoder.decode(event, into: &readings)
            state = .pointer(decoder)
        case .keys(var decoder):
            decoder.decode(event, into: &readings)
            state = .keys(decoder)
        case .motion(var decoder):
            decoder.decode(event, into: &readings)
            state = .motion(decoder)
        case .stick(var decoder):
            decoder.decode(event, into: &readings)
            state = .stick(decoder)
        }
    }

    /// Forgets the events received since the last `SYN_REPORT`: the kernel dropped some of that frame.
    public mutating func discardPartialFrame() {
        switch state {
        case .pointer(var decoder):
            decoder.discardPartialFrame()
            state = .pointer(decoder)
        case .keys(var decoder):
            decoder.discardPartialFrame()
            state = .keys(decoder)
        case .motion(var decoder):
            decoder.discardPartialFrame()
            state = .motion(decoder)
        case .stick(var decoder):
            decoder.discardPartialFrame()
            state = .stick(decoder)
        }
    }

    /// Ends every contact still down with a `cancel` at `time`: the device went away mid-gesture.
    public mutating func cancelContacts(at time: Timestamp, into readings: inout [Reading]) {
        guard case .pointer(var decoder) = state else { return }
        decoder.cancelContacts(at: time, into: &readings)
        state = .pointer(decoder)
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
