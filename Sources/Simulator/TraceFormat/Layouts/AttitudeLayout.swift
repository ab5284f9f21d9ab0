import HAL

/// An attitude record: `"q":[w,x,y,z]`, a unit quaternion in the channel's earth frame, and an optional heading
/// accuracy `hacc` in radians.
struct AttitudeLayout: RecordLayout {
    func encode(_ reading: Reading, on channel: TraceChannel, into out: inout JSONOutput) throws(TraceError) -> Bool {
        guard case .attitude(let sample) = reading else { return false }
        guard sample.frame == channel.frame else {
            throw TraceError(
                .invalidValue, line: 0, field: "q",
                "an \(sample.frame.rawValue) attitude cannot go on channel '\(channel.id)', which is \(channel.frame?.rawValue ?? "?")")
        }
        out.key("q")
        let q = sample.quaternion
        try out.finite(q.w, q.x, q.y, q.z, field: "q")
        try out.optionalFinite("hacc", sample.headingAccuracy, field: "hacc")
        return true
    }

    func decode(_ fields: inout RecordFields, at timestamp: Timestamp, on channel: TraceChannel) throws(TraceError) -> Reading {
        let q = try fields.required("q", "quaternion [w, x, y, z]") { (s: inout JSONScanner) throws(JSONSyntaxError) -> Quaternion in
            var q = Quaternion.identity
            try s.readNumberArray(count: 4) { index, value in
                switch index {
                case 0: q.w = value
                case 1: q.x = value
                case 2: q.y = value
                default: q.z = value
                }
            }
            return q
        }
        guard abs(q.magnitude - 1) <= 1e-6 else {
            throw fields.error(.invalidValue, "q", "a unit quaternion has norm 1, not \(q.magnitude)")
        }
        let accuracy = try fields.nonNegative("hacc")
        guard let frame = channel.frame else {
            throw fields.error(.invalidValue, "ch", "attitude channel '\(channel.id)' names no earth frame")
        }
        return .attitude(AttitudeSample(timestamp: timestamp, quaternion: q, frame: frame, headingAccuracy: accuracy))
    }
}
