import HAL

extension Trace {
    /// One trace holding every channel of `traces`, in the order given, with their records.
    ///
    /// Channel ids must differ across the traces: a clash is an error naming the channel and both traces.
    /// Metadata is merged, the first trace winning. Frame files are referred to by their path from here,
    /// since the merged trace has no folder of its own.
    ///
    /// One trace with no frames is returned as it is, its records not copied.
    public static func merging(_ traces: [Trace]) throws(TraceError) -> Trace {
        if traces.count == 1, !traces[0].header.channels.contains(where: { $0.kind == .camera }) { return traces[0] }
        var channels: [TraceChannel] = []
        var owners: [String: String] = [:]
        var records: [TraceRecord] = []
        var metadata: [String: String] = [:]
        for trace in traces {
            let offset = channels.count
            for channel in trace.header.channels {
                let owner = trace.path ?? "a generated trace"
                if let first = owners[channel.id] {
                    throw TraceError(.badHeader, file: trace.path, line: 1, field: "channels",
                        "channel '\(channel.id)' is also in \(first); channel ids must differ across the inputs")
                }
                owners[channel.id] = owner
                channels.append(channel)
            }
            let folder = trace.path.map { TracePath.folder(ofTraceAt: $0) }
            records += trace.records.map { record in
                var reading = record.reading
                // Frame files stay reachable from the merged trace, wherever it is written.
                if case .frame(var frame) = reading, case .file(let path) = frame.storage, !path.hasPrefix("/"), let folder {
                    frame.storage = .file(path: folder + "/" + path)
                    reading = .frame(frame)
                }
                return TraceRecord(channel: record.channel + offset, reading: reading)
            }
            metadata.merge(trace.header.metadata) { first, _ in first }
        }
        return Trace(header: TraceHeader(channels: channels, metadata: metadata), records: records)
    }
}
