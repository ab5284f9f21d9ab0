public import AppCore
import FoundationEssentials
import TraceFormat

/// An app's storage in a folder on disk (`hal run --storage DIR`): each file under its name, written whole through a
/// temporary file and a rename, so a crash leaves the old file or the new one, never half of one.
public struct FolderAppStorage: AppStorage {
    /// The folder, created on the first write.
    public let path: String

    /// Storage in `path`.
    public init(path: String) {
        self.path = path
    }

    public func read(_ name: String) throws -> [UInt8]? {
        let file = try location(of: name)
        guard FileManager.default.fileExists(atPath: file) else { return nil }
        do throws(FileError) { return try FileReads.read(path: file) } catch {
            throw AppStorageError(file: file, "cannot read the stored file: \(error.cause)")
        }
    }

    public func write(_ contents: StoredContents, as name: String) throws {
        let file = try location(of: name)
        let bytes: [UInt8]
        switch contents {
        case .bytes(let stored): bytes = stored
        case .copy(let source): bytes = try Self.readFile(source)
        }
        do throws(FileError) { try FileWrites.replace(bytes, at: file) } catch {
            throw AppStorageError(file: file, "cannot write the stored file: \(error.path == file ? error.cause : error.description)")
        }
    }

    /// A file an app asks to store a copy of.
    static func readFile(_ path: String) throws -> [UInt8] {
        do throws(FileError) { return try FileReads.read(path: path) } catch {
            throw AppStorageError(file: path, "cannot read the file to store: \(error.cause)")
        }
    }

    /// A name is one path component: an app cannot write outside its folder.
    private func location(of name: String) throws -> String {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw AppStorageError(file: path, "'\(name)' is not a file name of the app's storage")
        }
        return path + "/" + name
    }
}

extension InMemoryAppStorage {
    /// Empty storage in memory that copies files from disk: what a replay stores into.
    public static func forReplay() -> InMemoryAppStorage {
        InMemoryAppStorage(readFile: FolderAppStorage.readFile)
    }
}

/// A folder storage that cannot read or write one of its files: the file and what went wrong.
public struct AppStorageError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// What went wrong.
    public var message: String

    /// Creates an error.
    public init(file: String, _ message: String) {
        self.file = file
        self.message = message
    }

    /// `file: message`.
    public var description: String { "\(file): \(message)" }
}
