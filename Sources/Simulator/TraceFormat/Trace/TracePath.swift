import FoundationEssentials
import SystemPackage

/// Rules for file paths inside a trace, such as frame images.
public enum TracePath {
    /// Whether `path` is relative and stays inside the trace's folder once `.` and `..` are resolved.
    ///
    /// The check is on the text of the path; a symbolic link inside the folder is the
    /// folder owner's choice.
    public static func staysInsideTraceFolder(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.utf8.contains(0) else { return false }
        var depth = 0
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..":
                depth -= 1
                if depth < 0 { return false }
            default: depth += 1
            }
        }
        return depth > 0
    }

    /// The folder that holds the trace file at `tracePath`, for resolving relative paths in it.
    public static func folder(ofTraceAt tracePath: String) -> String {
        guard let slash = tracePath.lastIndex(of: "/") else { return "." }
        return slash == tracePath.startIndex ? "/" : String(tracePath[..<slash])
    }

    /// Resolves a path from a trace against the trace's folder.
    public static func resolve(_ path: String, inTraceAt tracePath: String) -> String {
        path.hasPrefix("/") ? path : folder(ofTraceAt: tracePath) + "/" + path
    }

    /// `path` as seen from `folder`, for a file written in `folder` that names it: relative (`../config.json`), each
    /// taken from the working directory when it is relative itself.
    public static func relative(_ path: String, from folder: String) -> String {
        func components(_ path: String) -> [String] {
            URL(fileURLWithPath: path).standardizedFileURL.pathComponents.filter { $0 != "/" }
        }
        let target = components(path), base = components(folder)
        let shared = zip(target, base).prefix { $0 == $1 }.count
        let up = Array(repeating: "..", count: base.count - shared)
        let relative = (up + target[shared...]).joined(separator: "/")
        return relative.isEmpty ? "." : relative
    }

    /// The size of the file at `path` in bytes, or nil when it cannot be opened.
    package static func fileSize(_ path: String) -> Int? {
        guard let descriptor = try? FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec]) else { return nil }
        defer { try? descriptor.close() }
        return (try? descriptor.seek(offset: 0, from: .end)).map(Int.init)
    }

    /// The bytes of the file at `path`, such as a frame's image.
    package static func readFile(_ path: String) throws -> [UInt8] {
        let descriptor = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
        return try descriptor.closeAfter {
            let size = Int(try descriptor.seek(offset: 0, from: .end))
            var bytes = [UInt8](repeating: 0, count: size)
            let got = try bytes.withUnsafeMutableBytes { try descriptor.read(fromAbsoluteOffset: 0, into: $0) }
            guard got == size else { throw Errno.ioError }
            return bytes
        }
    }

    /// What a file that is not a trace looks like by its name, and the command that takes it; `nil` when its name
    /// says nothing.
    public static func whatItLooksLike(_ path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let kinds: [(suffix: String, says: String)] = [
            (".run.json", "it looks like a scenario: run it with `hal run APP \(path)` or `hal test \(path)`"),
            (".walk.json", "it looks like a GPS walk: `hal gps walk \(path) -o TRACE` makes its trace, and `hal run` takes it as an input"),
            (".motion.json", "it looks like a motion script: `hal motion simulate \(path) -o TRACE` makes its trace, and `sim:\(path)#CHANNEL` plays it"),
            (".expressions.json", "it looks like an expression timeline: `hal run` takes it as an input"),
            (".faults.json", "it looks like a fault plan: give it to `--faults`"),
            (".events.log", "it looks like a golden event log: `hal test` compares a scenario's log with it"),
            (".nmea", "it looks like an NMEA log: `hal gps import \(path) -o TRACE` turns it into a trace"),
            (".gpx", "it looks like a GPX file: `hal gps import \(path) -o TRACE` turns it into a trace"),
            (".kml", "it looks like a KML file: `hal gps import \(path) -o TRACE` turns it into a trace"),
            (".evemu", "it looks like an evemu recording: `hal input import \(path) -o TRACE` turns it into a trace"),
            (".json", "it looks like an app config: `hal run APP --config \(path) --input TRACE` runs an app with it"),
        ]
        return kinds.first { name.hasSuffix($0.suffix) }?.says
    }
}
