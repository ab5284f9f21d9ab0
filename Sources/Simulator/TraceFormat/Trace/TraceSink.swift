public import HAL

/// Where records are written: a trace file in some container. ``TraceWriter`` writes JSON Lines, and a registered
/// ``TraceContainer`` gives its own writer; ``TraceFiles/makeWriter(path:header:durability:frameFolderOf:)`` picks by
/// the file's name.
public protocol TraceSink: AnyObject {
    /// The header the file records.
    var header: TraceHeader { get }
    /// The file being written.
    var path: String { get }
    /// Records written so far, per channel.
    var counts: [Int] { get }
    /// Writes a record, refusing one the trace format does not allow (``TraceError``).
    func write(_ record: TraceRecord) throws(TraceError)
    /// Writes out what is buffered.
    func flush() throws(TraceError)
    /// Flushes and closes the file. Later writes throw.
    func close() throws(TraceError)
    /// Writes a record whose frame, if it has one in memory, was kept in a file called `frameName` (a trace's
    /// conversion keeps the names). A sink that keeps no names writes the record as ``write(_:)`` does.
    func write(_ record: TraceRecord, keepingFrameAs frameName: String) throws(TraceError)
}

extension TraceSink {
    /// Writes the record as ``write(_:)`` does: a sink that keeps no frame names.
    public func write(_ record: TraceRecord, keepingFrameAs frameName: String) throws(TraceError) {
        try write(record)
    }

    /// Writes a reading on the channel with id `channel`.
    public func write(_ reading: Reading, channel: String) throws(TraceError) {
        guard let index = header.channelIndex(of: channel) else {
            throw TraceError(.unknownChannel, file: path, line: 0, field: "ch", "no channel '\(channel)' in the header")
        }
        try write(TraceRecord(channel: index, reading: reading))
    }
}

extension TraceWriter: TraceSink {
    /// Writes the record, saving its frame in memory, if any, as the file `frameName` beside the trace.
    public func write(_ record: TraceRecord, keepingFrameAs frameName: String) throws(TraceError) {
        try write(record, savingFrameAs: frameName)
    }
}

/// Trace files by name: JSON Lines, or the registered container that claims the name.
public enum TraceFiles {
    /// A writer for `path`: the writer of the registered ``TraceContainer`` that claims the name (frames stored as
    /// files read from the folder of `frameFolderOf`), JSON Lines otherwise.
    public static func makeWriter(
        path: String, header: TraceHeader, durability: TraceWriter.Durability = .everyRecord, frameFolderOf: String? = nil
    ) throws(TraceError) -> any TraceSink {
        if let container = TraceContainers.container(writing: path) {
            return try container.makeWriter(path: path, header: header, durability: durability, frameFolderOf: frameFolderOf)
        }
        try TraceContainers.refuseUnregistered(writing: path)
        return try TraceWriter(path: path, header: header, durability: durability)
    }
}
