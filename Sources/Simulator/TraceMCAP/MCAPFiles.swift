import TraceFormat
public import MCAP
import SystemPackage

/// Traces in MCAP files, for ``Trace/load(path:)``: which files are MCAP, and how they are read.
enum MCAPFiles {
    /// Whether the file at `path` starts with MCAP's magic bytes.
    static func isMCAP(path: String) -> Bool {
        guard let descriptor = try? FileDescriptor.open(FilePath(path), .readOnly) else { return false }
        defer { try? descriptor.close() }
        var magic = [UInt8](repeating: 0, count: 8)
        let count = (try? magic.withUnsafeMutableBytes { try descriptor.read(into: $0) }) ?? 0
        return count == 8 && magic == mcapMagic
    }

    /// Whether a channel of the file passes `test`, given the channel and its schema's name (empty for none): read
    /// from the summary when the file has one, else by a scan that stops at the first such channel.
    static func hasChannel(_ reader: MCAPReader, where test: (MCAPChannel, String) -> Bool) -> Bool {
        if let summary = try? reader.summary() {
            return summary.channels.values.contains { test($0, summary.schemas[$0.schemaID]?.name ?? "") }
        }
        struct Found: Error {}
        var schemas: [UInt16: String] = [:]
        do {
            try reader.scan { record in
                switch record {
                case .schema(let schema): schemas[schema.id] = schema.name
                case .channel(let channel): if test(channel, schemas[channel.schemaID] ?? "") { throw Found() }
                default: break
                }
            }
        } catch {
            return error is Found
        }
        return false
    }

    /// A reader of the MCAP file at `path`.
    static func open(_ path: String) throws(TraceError) -> MCAPReader {
        do { return try MCAPReader(path: path) } catch { throw TraceError(.io, file: path, line: 0, error.reason) }
    }

    /// The trace an MCAP file holds: a HAL trace (``MCAPTraceFile``), a ROS 2 recording's sensor topics
    /// (``ROS2Import``) or a recording in Foxglove's schemas (``FoxgloveImport``). With `offset`, a HAL trace's
    /// records from `offset` after its first, read through its index.
    ///
    /// With the trace come, for a HAL trace, the file names its frames had in JSON Lines, by record index.
    static func load(path: String, from offset: Duration? = nil, progress: (Double) -> Void = { _ in }) throws(TraceError) -> (Trace, framePaths: [Int: String]) {
        let reader = try open(path)
        var trace: Trace
        // The reader that told which recording it is reads it: the file is opened once.
        switch MCAPRecordingKind(reader) {
        case .halTrace:
            let file = try MCAPTraceFile.load(path: path, from: offset, progress: progress)
            return (file.trace, file.framePaths)
        case .ros2: trace = ROS2Import.load(reader).trace
        case .foxglove: trace = FoxgloveImport.load(reader).trace
        case .other:
            throw TraceError(.badHeader, file: path, line: 0,
                "an MCAP file, but neither a HAL trace (profile 'hal'), a ROS 2 recording (profile 'ros2', or cdr channels) nor a recording in Foxglove's schemas (foxglove.* in protobuf or json)")
        }
        if let offset { trace.dropRecords(before: offset) }
        return (trace, [:])
    }
}

/// What an MCAP file holds, as `Trace.load` tells it apart: a HAL trace, a ROS 2
/// recording, a recording in Foxglove's schemas, or any other MCAP file, which is no trace (`hal info` summarises
/// it, ``MCAP/MCAPFileSummary``).
public enum MCAPRecordingKind: Sendable, Hashable {
    /// A HAL trace: the Header's profile is `hal` (``MCAPTraceFile``).
    case halTrace
    /// A ROS 2 recording: the profile is `ros2`, or a channel carries `cdr` (``ROS2Import``).
    case ros2
    /// A recording with a channel in one of Foxglove's schemas, in protobuf or JSON (``FoxgloveImport``).
    case foxglove
    /// Any other MCAP file.
    case other

    /// The kind of the file `reader` reads, in that order of precedence.
    public init(_ reader: MCAPReader) {
        if MCAPTraceFile.isTrace(reader) {
            self = .halTrace
        } else if ROS2Import.isROS2(reader) {
            self = .ros2
        } else if FoxgloveImport.isFoxglove(reader) {
            self = .foxglove
        } else {
            self = .other
        }
    }

    /// The kind of the file at `path`, or nil when it is not an MCAP file (it does not start with MCAP's magic
    /// bytes, or cannot be read).
    public init?(path: String) {
        guard MCAPFiles.isMCAP(path: path), let reader = try? MCAPReader(path: path) else { return nil }
        self.init(reader)
    }
}
