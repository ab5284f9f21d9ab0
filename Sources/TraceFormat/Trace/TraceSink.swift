public import HAL
public import MCAP

/// Where records are written: a trace file in either container. ``TraceWriter`` writes JSON Lines and
/// ``MCAPTraceWriter`` writes MCAP; ``TraceFiles/makeWriter(path:header:durability:)`` picks by the file's name.
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
}

extension TraceSink {
    /// Writes a reading on the channel with id `channel`.
    public func write(_ reading: Reading, channel: String) throws(TraceError) {
        guard let index = header.channelIndex(of: channel) else {
            throw TraceError(.unknownChannel, file: path, line: 0, field: "ch", "no channel '\(channel)' in the header")
        }
        try write(TraceRecord(channel: index, reading: reading))
    }
}

extension TraceWriter: TraceSink {}

/// The two trace containers, by file name.
public enum TraceFiles {
    /// Whether a file name says MCAP (`.mcap`); every other name is JSON Lines.
    public static func isMCAP(name path: String) -> Bool { path.hasSuffix(".mcap") }

    /// A writer for `path`: MCAP for a `.mcap` file (chunks compressed with `compression`, frames stored as files
    /// read from the folder of `frameFolderOf`), JSON Lines otherwise.
    public static func makeWriter(
        path: String, header: TraceHeader, durability: TraceWriter.Durability = .everyRecord,
        compression: MCAPCompression = .lz4, frameFolderOf: String? = nil
    ) throws(TraceError) -> any TraceSink {
        isMCAP(name: path)
            ? try MCAPTraceWriter(path: path, header: header, durability: durability, compression: compression, frameFolderOf: frameFolderOf)
            : try TraceWriter(path: path, header: header, durability: durability)
    }
}
