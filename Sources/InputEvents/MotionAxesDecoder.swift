import HAL

/// The motion axes of an `INPUT_PROP_ACCELEROMETER` device: `ABS_X/Y/Z` in units per g, and
/// `ABS_RX/RY/RZ` in units per degree per second (the kernel's input ABI), scaled to m/s² and rad/s.
/// A frame that changed any of the three axes yields one sample with all three.
struct MotionAxesDecoder: Sendable {
    /// Standard gravity, m/s², as the kernel's "per g" means.
    static let standardGravity = 9.80665

    private let quantity: MotionQuantity
    private let codes: [UInt16]
    private let scales: [Double]
    private var values: [Int32]
    private var committed: [Int32]
    private var changed = false

    init(device: InputDeviceDescription, quantity: MotionQuantity) throws(InputDecoderError) {
        typealias Abs = InputCode.Absolute
        self.quantity = quantity
        codes = quantity == .acceleration ? [Abs.x, Abs.y, Abs.z] : [Abs.rx, Abs.ry, Abs.rz]
        let unit = quantity == .acceleration ? Self.standardGravity : Double.pi / 180
        var scales: [Double] = []
        for code in codes {
            guard let axis = device.axes[code], axis.resolution > 0 else {
                throw InputDecoderError("'\(device.name)' gives axis \(code) no resolution, so its \(quantity.rawValue) values cannot be scaled")
            }
            scales.append(unit / Double(axis.resolution))
        }
        self.scales = scales
        values = [0, 0, 0]
        committed = values
    }

    mutating func decode(_ event: InputEvent, into readings: inout [Reading]) {
        if event.type == InputCode.Event.absolute, let index = codes.firstIndex(of: event.code) {
            values[index] = event.value
            changed = true
        } else if event.isFrameEnd && changed {
            let value = Vector3(x: Double(values[0]) * scales[0], y: Double(values[1]) * scales[1], z: Double(values[2]) * scales[2])
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
