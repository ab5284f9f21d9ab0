public import MCAP
public import TraceFormat

/// MCAP as a ``TraceFormat/TraceContainer``: a file that starts with MCAP's magic bytes is read as a HAL trace
/// (``MCAPTraceFile``), a ROS 2 recording (``ROS2Import``) or a Foxglove recording (``FoxgloveImport``), and a file
/// named `*.mcap` is written by an ``MCAPTraceWriter``. Register it once, before traces are opened: `TraceContainers.register(MCAPTraceContainer())`.
public struct MCAPTraceContainer: TraceContainer {
    /// How new files' chunks are compressed.
    public var compression: MCAPCompression

    /// The container, writing chunks compressed with `compression`.
    public init(compression: MCAPCompression = .lz4) {
        self.compression = compression
    }

    /// `MCAP`.
    public var name: String { "MCAP" }

    /// Whether the file at `path` starts with MCAP's magic bytes.
    public func holds(path: String) -> Bool { MCAPFiles.isMCAP(path: path) }

    /// Whether `path` ends in `.mcap`.
    public func writes(path: String) -> Bool { path.hasSuffix(".mcap") }

    /// The header of the HAL trace the file holds.
    public func header(path: String) throws(TraceError) -> TraceHeader { try MCAPTraceFile.header(path: path) }

    /// The trace the file holds: a HAL trace, or a ROS 2 or Foxglove recording's sensor topics.
    public func load(path: String, from offset: Duration?, progress: (Double) -> Void) throws(TraceError) -> (trace: Trace, framePaths: [Int: String]) {
        let (trace, framePaths) = try MCAPFiles.load(path: path, from: offset, progress: progress)
        return (trace, framePaths)
    }

    /// An ``MCAPTraceWriter`` compressing with ``compression``.
    public func makeWriter(
        path: String, header: TraceHeader, durability: TraceWriter.Durability, frameFolderOf: String?
    ) throws(TraceError) -> any TraceSink {
        try MCAPTraceWriter(path: path, header: header, durability: durability, compression: compression, frameFolderOf: frameFolderOf)
    }
}

extension TraceFiles {
    /// A writer for `path`: MCAP for a `.mcap` file (chunks compressed with `compression`, frames stored as files
    /// read from the folder of `frameFolderOf`), otherwise what ``makeWriter(path:header:durability:frameFolderOf:)``
    /// picks.
    public static func makeWriter(
        path: String, header: TraceHeader, durability: TraceWriter.Durability = .everyRecord,
        compression: MCAPCompression, frameFolderOf: String? = nil
    ) throws(TraceError) -> any TraceSink {
        let container = MCAPTraceContainer(compression: compression)
        if container.writes(path: path) {
            return try container.makeWriter(path: path, header: header, durability: durability, frameFolderOf: frameFolderOf)
        }
        return try makeWriter(path: path, header: header, durability: durability, frameFolderOf: frameFolderOf)
    }
}
