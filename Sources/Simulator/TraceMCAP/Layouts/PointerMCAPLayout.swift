import TraceFormat
import HAL

/// A pointer event: `hal.PointerEvent`.
struct PointerMCAPLayout: MCAPRecordLayout {
    var formats: [String: MCAPMessageFormat] { [TraceSchemas.Schema.pointer.name: .pointer] }

    func encode(_ reading: Reading, _ context: MCAPRecordContext, into out: inout Protobuf.Writer) throws(TraceError) -> TraceSchemas.Schema {
        guard case .pointer(let event) = reading else { return .pointer }
        out.string(1, event.phase.rawValue)
        out.int64(2, Int64(event.pointer))
        out.double(3, event.x)
        out.double(4, event.y)
        return .pointer
    }
}
