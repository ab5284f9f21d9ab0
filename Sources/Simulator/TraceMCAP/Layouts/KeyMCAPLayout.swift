import TraceFormat
import HAL

/// A key event: `hal.KeyEvent`.
struct KeyMCAPLayout: MCAPRecordLayout {
    var formats: [String: MCAPMessageFormat] { [TraceSchemas.Schema.key.name: .key] }

    func encode(_ reading: Reading, _ context: MCAPRecordContext, into out: inout Protobuf.Writer) throws(TraceError) -> TraceSchemas.Schema {
        guard case .key(let event) = reading else { return .key }
        out.int64(1, Int64(event.code))
        out.string(2, event.state.rawValue)
        return .key
    }
}
