import FoundationEssentials
import HAL

/// Finding a suite's scenario files.
public enum ScenarioDiscovery {
    /// Every `*.run.json` under `paths` (folders are searched recursively; a file is taken as it is), sorted by path
    /// and without repeats. A path that does not exist is an error naming it.
    public static func scenarios(under paths: [String]) throws -> [String] {
        var found: Set<String> = []
        let files = FileManager.default
        for path in paths {
            guard files.fileExists(atPath: path) else {
                throw ScenarioDiscoveryError(path: path, "no such file or folder")
            }
            guard isFolder(path) else {
                found.insert(path)
                continue
            }
            let root = path.hasSuffix("/") ? String(path.dropLast()) : path
            guard let relatives = try? files.subpathsOfDirectory(atPath: root) else {
                throw ScenarioDiscoveryError(path: path, "cannot list the folder")
            }
            for relative in relatives where relative.hasSuffix(".run.json") {
                found.insert(root + "/" + relative)
            }
        }
        return found.sorted()
    }
}

/// A path given to scenario discovery that cannot be searched: the path and why.
public struct ScenarioDiscoveryError: Error, Sendable, CustomStringConvertible {
    /// The path.
    public var path: String
    /// Why it cannot be searched.
    public var message: String

    /// Creates an error.
    public init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}
