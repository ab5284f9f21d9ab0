import TraceFormat
import HAL

/// A gyroscope, accelerometer or magnetometer sample: `hal.MotionSample`'s three doubles, the hot path.
struct MotionMCAPLayout: MCAPRecordLayout {
    let quantity: MotionQuantity

    var formats: [String: MCAPMessageFormat] { [TraceSchemas.Schema.motion.name: .motion(quantity)] }

    /// The JSON encoder's one check of a motion sample, without its text.
    func check(_ record: TraceRecord, _ context: inout MCAPRecordContext) throws(TraceError) {
        guard case .motion(let sample) = record.reading, sample.quantity == quantity else { return try context.check(record) }
        try TraceEncoder.checkFinite(sample.value.x, field: "v[0]")
        try TraceEncoder.checkFinite(sample.value.y, field: "v[1]")
        try TraceEncoder.checkFinite(sample.value.z, field: "v[2]")
    }

    func encode(_ reading: Reading, _ context: MCAPRecordContext, into out: inout Protobuf.Writer) throws(TraceError) -> TraceSchemas.Schema {
        guard case .motion(let sample) = reading else { return .motion }
        out.double(1, sample.value.x)
        out.double(2, sample.value.y)
        out.double(3, sample.value.z)
        return .motion
    }
}
