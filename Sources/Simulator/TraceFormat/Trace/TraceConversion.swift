import HAL

/// Converting a trace from one container to the other (`hal convert`): read it whole, with the names of the files
/// its frames were kept in, and write it record by record, so that JSON Lines → MCAP → JSON Lines gives the same
/// bytes and the same frame files.
public enum TraceConversion {
    /// The trace at `path`, and for a trace in a registered container the file names its frames had in JSON Lines,
    /// by record index.
    /// `progress` hears the share of the file read so far (0...1).
    public static func read(_ path: String, progress: (Double) -> Void = { _ in }) throws(TraceError) -> (trace: Trace, framePaths: [Int: String]) {
        if let container = TraceContainers.container(holding: path) { return try container.load(path: path, from: nil, progress: progress) }
        try TraceContainers.refuseUnregistered(reading: path)
        return (try Trace.load(path: path, progress: progress), [:])
    }

    /// Writes every record of `trace` to `sink`, then whatever `beforeClosing` adds, and closes it, calling
    /// `progress` with the records written so far every 65,536 records and at the end. A frame in memory whose record has a name in `framePaths` is saved under
    /// that name by a JSON Lines writer.
    public static func write(
        _ trace: Trace, framePaths: [Int: String] = [:], to sink: any TraceSink, progress: (Int) -> Void = { _ in },
        beforeClosing: (any TraceSink) throws(TraceError) -> Void = { _ in }
    ) throws(TraceError) {
        // A JSON Lines trace written into another folder than its frames': the frames are copied under their names.
        let copiesFrames = sink is TraceWriter && trace.path.map { TracePath.folder(ofTraceAt: $0) != TracePath.folder(ofTraceAt: sink.path) } == true
        for (index, var record) in trace.records.enumerated() {
            var name = framePaths[index]
            if copiesFrames, let source = trace.path, case .frame(var frame) = record.reading, case .file(let file) = frame.storage {
                let resolved = TracePath.resolve(file, inTraceAt: source)
                do { frame.storage = .bytes(try TracePath.readFile(resolved)) } catch {
                    throw TraceError(.io, file: source, line: index + 2, field: "file", "cannot read the frame's file \(resolved): \(error)")
                }
                record.reading = .frame(frame)
                name = file
            }
            if let name { try sink.write(record, keepingFrameAs: name) } else { try sink.write(record) }
            if index & 0xFFFF == 0xFFFF { progress(index + 1) }
        }
        progress(trace.records.count)
        try beforeClosing(sink)
        try sink.close()
    }
}
