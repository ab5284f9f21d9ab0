import HAL

/// Where an app keeps what must outlast a run, such as a field guide's entries: named files in a place of its own.
///
/// An app reads it once, in ``AppLogic/restore(from:)`` before it starts, and writes through
/// ``AppOutput/store(_:as:)``, which the ``AppRunner`` carries out; the logic itself still does no I/O. A replay
/// gets a fresh ``InMemoryAppStorage`` unless told otherwise, so it gives the same events every time; `hal run
/// --storage DIR` keeps the files in a folder, so a second run finds the first one's.
public protocol AppStorage: Sendable {
    /// The file's bytes, or `nil` when there is none.
    func read(_ name: String) throws -> [UInt8]?
    /// Writes the file whole, replacing what was there.
    func write(_ contents: StoredContents, as name: String) throws
}

/// What an app stores under a name.
public enum StoredContents: Sendable, Hashable {
    /// These bytes.
    case bytes([UInt8])
    /// A copy of a file the app was given by path, such as a camera frame recorded as a file.
    case copy(ofFile: String)
}

/// Storage in memory: the test double, and what a replay uses unless given a folder.
public final class InMemoryAppStorage: AppStorage {
    private let files: Locked<[String: [UInt8]]>
    /// Reads files given by path for ``StoredContents/copy(ofFile:)``; none by default.
    private let readFile: @Sendable (String) throws -> [UInt8]

    /// Empty storage, or one holding `files`. `readFile` reads a file an app asks to copy.
    public init(files: [String: [UInt8]] = [:], readFile: @escaping @Sendable (String) throws -> [UInt8] = { path in
        throw AppConfigError(field: "storage", "cannot copy \(path): this storage reads no files")
    }) {
        self.files = Locked(files)
        self.readFile = readFile
    }

    /// Every file, by name.
    public var contents: [String: [UInt8]] { files.withLock { $0 } }

    public func read(_ name: String) throws -> [UInt8]? { files.withLock { $0[name] } }

    public func write(_ contents: StoredContents, as name: String) throws {
        let bytes: [UInt8]
        switch contents {
        case .bytes(let data): bytes = data
        case .copy(let path): bytes = try readFile(path)
        }
        files.withLock { $0[name] = bytes }
    }
}
