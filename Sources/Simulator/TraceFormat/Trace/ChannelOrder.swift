import HAL
/// The rule every trace writer keeps: a record names a channel of the header, and within a channel time never goes
/// back. Checked in one place for both containers (``TraceWriter``, ``MCAPTraceWriter``) and for
/// ``Trace/encoded()``.
package struct ChannelOrder {
    private let header: TraceHeader
    private var last: [Int64]

    package init(_ header: TraceHeader) {
        self.header = header
        last = Array(repeating: .min, count: header.channels.count)
    }

    /// Throws unless `record` may follow the records taken so far; the error has no file or line, which the caller
    /// adds. Call ``take(_:)`` once the record is written.
    package func check(_ record: TraceRecord) throws(TraceError) {
        guard header.channels.indices.contains(record.channel) else {
            throw TraceError(.unknownChannel, line: 0, field: "ch", "no channel with index \(record.channel)")
        }
        let time = record.timestamp.nanoseconds
        guard time >= last[record.channel] else {
            throw TraceError(
                .timestampBackwards, line: 0, field: "t",
                "\(time) is earlier than \(last[record.channel]) in channel '\(header.channels[record.channel].id)'")
        }
    }

    /// Notes that `record` was written.
    package mutating func take(_ record: TraceRecord) {
        last[record.channel] = record.timestamp.nanoseconds
    }
}
