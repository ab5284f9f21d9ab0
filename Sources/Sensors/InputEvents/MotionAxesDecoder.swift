import HAL

/// The motion axes of an `INPUT_PROP_ACCELEROMETER` device: `ABS_X/Y/Z` in units per g, and
/// `ABS_RX/RY/RZ` in units per degree per second (the kernel's input ABI), scaled to m/s² and rad/s.
/// A frame that changed any of the three axes yields one sample with all three.
struct MotionAxesDecoder: Sendable {
    /// Standard gravity, m/s², as the kernel's "per g" means.
    static let standardGravity = 9.80665

    private let quantity: MotionQuantity
    private let codes: (UInt16, UInt16, UInt16)
    private let scales: SIMD3<Double>
    private var values = SIMD3<Int32>.zero
    private var committed = SIMD3<Int32>.zero
    private var changed = false

    init(device: InputDeviceDescription, quantity: MotionQuantity) throws(InputDecoderError) {
        typealias Abs = InputCode.Absolute
        self.quantity = quantity
        codes = quantity == .acceleration ? (Abs.x, Abs.y, Abs.z) : (Abs.rx, Abs.ry, Abs.rz)
        let unit = quantity == .acceleration ? Self.standardGravity : Double.pi / 180
        var scales = SIMD3<Double>.zero
        for (index, code) in [codes.0, codes.1, codes.2].enumerated() {
            guard let axis = device.axes[code], axis.resolution > 0 else {
                throw InputDecoderError("'\(device.name)' gives axis \(code) no resolution, so its \(quantity.rawValue) values cannot be scaled")
            }
            scales[index] = unit / Double(axis.resolution)
        }
        self.scales = scales
    }

    mutating func decode(_ event: InputEvent, into readings: inout [Reading]) {
        if event.type == InputCode.Event.absolute {
            switch event.code {
            case codes.0: values.x = event.value
            case codes.1: values.y = event.value
            case codes.2: values.z = event.value
            default: return
            }
            changed = true
        } else if event.isFrameEnd && changed {
            let value = Vector3(x: Double(values.x) * scales.x, y: Double(values.y) * scales.y, z: Double(values.z) * scales.z)
            readings.append(.motion(MotionSample(timestamp: event.timestamp, quantity: quantity, value: value)))
            committed = values
            changed = false
        }
    }

    mutating func discardPartialFrame() {
        values = committed
        changed = false
    }
}
