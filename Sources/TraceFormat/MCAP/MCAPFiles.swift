import MCAP
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

    /// The trace an MCAP file holds: a ROS 2 recording's sensor topics.
    static func load(path: String) throws(TraceError) -> Trace {
        let reader: MCAPReader
        do { reader = try MCAPReader(path: path) } catch { throw TraceError(.io, file: path, line: 0, error.reason) }
        guard ROS2Import.isROS2(reader) else {
            throw TraceError(.badHeader, file: path, line: 0,
                "an MCAP file, but not a ROS 2 recording (no 'ros2' profile and no cdr channels): the HAL reads ROS 2 recordings from MCAP")
        }
        return try ROS2Import.load(path: path).trace
    }
}
