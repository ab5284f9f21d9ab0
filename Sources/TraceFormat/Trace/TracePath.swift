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
}
