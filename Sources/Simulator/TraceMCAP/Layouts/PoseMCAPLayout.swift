import TraceFormat
import HAL

/// An attitude sample: Foxglove's `PoseInFrame`, its frame id the earth frame, and its heading accuracy in an extra
/// field (``TraceSchemas/Extra/headingAccuracy``).
struct PoseMCAPLayout: MCAPRecordLayout {
    var formats: [String: MCAPMessageFormat] { [TraceSchemas.Schema.pose.name: .pose] }

    func encode(_ reading: Reading, _ context: MCAPRecordContext, into out: inout Protobuf.Writer) throws(TraceError) -> TraceSchemas.Schema {
        guard case .attitude(let sample) = reading else { return .pose }
        let q = sample.quaternion
        out.timestamp(1, nanoseconds: context.time)
        out.string(2, sample.frame.rawValue)
        out.message(3) { pose in
            pose.message(2) { orientation in
                orientation.double(1, q.x)
                orientation.double(2, q.y)
                orientation.double(3, q.z)
                orientation.double(4, q.w)
            }
        }
        if let accuracy = sample.headingAccuracy { out.double(TraceSchemas.Extra.headingAccuracy, accuracy) }
        return .pose
    }
}
