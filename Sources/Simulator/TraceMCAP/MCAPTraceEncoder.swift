import TraceFormat
import HAL

/// Turns a trace's records into MCAP messages in the trace's schemas (``TraceSchemas``), keeping every value
/// exactly: doubles as their bits, and what Foxglove's schemas have no field for in the extra fields and metadata
/// that `docs/trace-format.md` lists. Each channel's kind has its layout (``MCAPRecordLayout``).
struct MCAPTraceEncoder {
    let header: TraceHeader
    private let layouts: [any MCAPRecordLayout]
    private var context: MCAPRecordContext

    /// An encoder for `header`'s records; `traceFile` is the trace whose folder holds a JSON Lines trace's frame
    /// files.
    init(header: TraceHeader, traceFile: String?) {
        self.header = header
        layouts = header.channels.map { MCAPRecordLayouts.layout(for: $0.kind) }
        context = MCAPRecordContext(header: header, traceFile: traceFile, jsonEncoder: TraceEncoder(header: header))
    }

    /// The record's message, appended to `out`, and its schema. A record is checked by the JSON Lines trace's rules
    /// (``TraceEncoder``), so that what one container refuses the other does too, with the same words.
    mutating func encode(_ record: TraceRecord, framePath: String? = nil, into out: inout Protobuf.Writer) throws(TraceError) -> TraceSchemas.Schema {
        guard layouts.indices.contains(record.channel) else {
            throw TraceError(.unknownChannel, line: 0, field: "ch", "no channel with index \(record.channel)")
        }
        let layout = layouts[record.channel]
        context.time = record.timestamp.nanoseconds
        context.channelIndex = record.channel
        context.framePath = framePath
        try layout.check(record, &context)
        return try layout.encode(record.reading, context, into: &out)
    }
}
