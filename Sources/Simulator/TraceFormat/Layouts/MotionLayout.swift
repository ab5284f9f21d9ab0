import HAL

/// A gyroscope, accelerometer or magnetometer record: `"v":[x,y,z]` in the channel's units. The decoder reads the
/// writer's form of it in one pass (``RecordLayout/motionQuantity``); this reads every other form.
struct MotionLayout: RecordLayout {
    let quantity: MotionQuantity

    var motionQuantity: MotionQuantity? { quantity }

    func encode(_ reading: Reading, on channel: TraceChannel, into out: inout JSONOutput) throws(TraceError) -> Bool {
        guard case .motion(let sample) = reading, sample.quantity == quantity else { return false }
        out.key("v")
        try out.finite(sample.value.x, sample.value.y, sample.value.z, field: "v")
        return true
    }

    func decode(_ fields: inout RecordFields, at timestamp: Timestamp, on channel: TraceChannel) throws(TraceError) -> Reading {
        .motion(MotionSample(timestamp: timestamp, quantity: quantity, value: try fields.required("v", "vector [x, y, z]", Self.readVector)))
    }

    /// A motion record's `v`: an array of exactly three numbers.
    @inline(__always)
    static func readVector(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> Vector3 {
        var vector = Vector3.zero
        try scanner.readNumberArray(count: 3) { index, value in
            switch index {
            case 0: vector.x = value
            case 1: vector.y = value
            default: vector.z = value
            }
        }
        return vector
    }
}
