import HAL

/// A gamepad stick as a motion control: a virtual gyroscope held upright in portrait
/// (x right, y up, z towards the viewer), whose angular rate follows the deflection.
///
/// Pushing right turns the view right (a negative rate about y); pushing up looks up (a positive
/// rate about x). Deflection is measured from the axis's centre, the driver's dead zone (`flat`)
/// reads as zero, and full deflection is ``InputDecoderSettings/stickFullRate``. A frame that
/// changed the stick yields a sample; the rate holds until the next one.
struct StickDecoder: Sendable {
    private let xCode: UInt16, yCode: UInt16
    private let xAxis: AbsoluteAxis?, yAxis: AbsoluteAxis?
    private let fullRate: Double
    private var x: Int32, y: Int32
    private var committed: (x: Int32, y: Int32)
    private var changed = false

    init(device: InputDeviceDescription, settings: InputDecoderSettings) {
        typealias Abs = InputCode.Absolute
        let right = settings.rightStick && device.axes[Abs.rx] != nil && device.axes[Abs.ry] != nil
        xCode = right ? Abs.rx : Abs.x
        yCode = right ? Abs.ry : Abs.y
        xAxis = device.axes[xCode]
        yAxis = device.axes[yCode]
        fullRate = settings.stickFullRate
        x = Self.centre(of: xAxis)
        y = Self.centre(of: yAxis)
        committed = (x, y)
    }

    private static func centre(of axis: AbsoluteAxis?) -> Int32 {
        guard let axis else { return 0 }
        return Int32((Int64(axis.minimum) + Int64(axis.maximum)) / 2)
    }

    /// Deflection in −1…1, zero inside the dead zone and rescaled outside it.
    static func deflection(_ value: Int32, on axis: AbsoluteAxis?) -> Double {
        guard let axis, axis.maximum > axis.minimum else { return 0 }
        let half = Double(Int64(axis.maximum) - Int64(axis.minimum)) / 2
        let offset = (Double(value) - Double(axis.minimum)) - half
        let deflection = min(max(offset / half, -1), 1)
        let deadZone = min(Double(axis.flat) / half, 0.99)
        guard abs(deflection) > deadZone else { return 0 }
        return (abs(deflection) - deadZone) / (1 - deadZone) * (deflection < 0 ? -1 : 1)
    }

    mutating func decode(_ event: InputEvent, into readings: inout [Reading]) {
        if event.type == InputCode.Event.absolute && event.code == xCode {
            x = event.value
            changed = true
        } else if event.type == InputCode.Event.absolute && event.code == yCode {
            y = event.value
            changed = true
        } else if event.isFrameEnd && changed {
            let right = Self.deflection(x, on: xAxis), down = Self.deflection(y, on: yAxis)
            // 0 - v, not -v: a centred stick gives +0, which a trace writes as 0.0.
            let rate = Vector3(x: 0 - down * fullRate, y: 0 - right * fullRate, z: 0)
            readings.append(.motion(MotionSample(timestamp: event.timestamp, quantity: .angularVelocity, value: rate)))
            committed = (x, y)
            changed = false
        }
    }

    mutating func discardPartialFrame() {
        (x, y) = committed
        changed = false
    }
}
