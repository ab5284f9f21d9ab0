import TraceFormat
import HAL

/// An app event: Foxglove's `Log` at level INFO, its message the event's name and data as the JSON Lines trace
/// writes them, and its `name` the event's name.
struct LogMCAPLayout: MCAPRecordLayout {
    var formats: [String: MCAPMessageFormat] { [TraceSchemas.Schema.log.name: .log] }

    func encode(_ reading: Reading, _ context: MCAPRecordContext, into out: inout Protobuf.Writer) throws(TraceError) -> TraceSchemas.Schema {
        guard case .appEvent(let event) = reading else { return .log }
        out.timestamp(1, nanoseconds: context.time)
        out.int64(2, 2)  // INFO
        let data = try context.jsonEncoder.attributes(event.attributes)
        out.string(3, data.isEmpty ? event.name : event.name + " " + data)
        out.string(4, event.name)
        return .log
    }
}
