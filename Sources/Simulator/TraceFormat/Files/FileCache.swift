import FoundationEssentials
import HAL
import LibC
import SystemPackage

/// Values built from files, shared within a process for as long as every file a value was built from still holds the
/// same bytes.
///
/// A suite runs hundreds of scenarios on the same config, motion script and places library; building each of them
/// again for every scenario was a fifth of a suite's time. What a build read is what it read through
/// ``FileReads/read(path:)`` (``ScriptFile/decode(path:)`` reads that way), so a cached value is checked against
/// the files themselves, not against a path or a time stamp: reading a few kilobytes again to compare costs little,
/// and an edit between two runs in one process is always seen. A hit inside another cache's build counts its files
/// as read by that build too, so the outer value is checked against them as well.
///
/// A build that reads nothing through `FileReads` is never checked again: cache only builds whose every input is a
/// file read that way, or that are a function of their key alone (a memo).
package final class FileCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var files: [FileRead]
    }

    private let entries = Locked<[Key: Entry]>([:])
    private let capacity: Int

    /// A cache of at most `capacity` values; when it is full, the next value built empties it first.
    package init(capacity: Int = 64) {
        self.capacity = max(capacity, 1)
    }

    /// The value for `key`: the one built before, if every file its build read still holds the bytes it read then,
    /// or else one built now by `build` (kept when `keep` says so). Errors are `build`'s, and nothing is kept.
    package func value(for key: Key, keep: (Value) -> Bool = { _ in true }, build: () throws -> Value) rethrows -> Value {
        if let entry = entries.withLock({ $0[key] }), entry.files.allSatisfy(\.isCurrent) {
            FileReads.note(entry.files)
            return entry.value
        }
        let (value, files) = try FileReads.recording(build)
        if keep(value) {
            entries.withLock { entries in
                if entries.count >= capacity, entries[key] == nil { entries.removeAll() }
                entries[key] = Entry(value: value, files: files)
            }
        }
        return value
    }

    /// How many values the cache holds.
    package var count: Int { entries.withLock { $0.count } }
}

/// A file's bytes as a build read them.
package struct FileRead: Sendable, Equatable {
    /// The file's path, as it was read.
    package var path: String
    /// Its bytes then.
    package var bytes: [UInt8]

    /// Whether the file holds the same bytes now.
    var isCurrent: Bool { FileReads.contents(of: path) == bytes }
}

/// The files a build reads, for ``FileCache`` to check a value against.
package enum FileReads {
    /// The reads of the build under way in this task or thread, if a cache is recording one.
    @TaskLocal private static var current: Locked<[FileRead]>?

    /// The bytes of the file at `path`, recorded as read by the build under way. Errors are ``FileError``s, the path
    /// and the cause in words: `walk.json: no such file`, `walk.json: is a directory, not a file`.
    package static func read(path: String) throws(FileError) -> [UInt8] {
        let bytes = try load(path)
        note([FileRead(path: path, bytes: bytes)])
        return bytes
    }

    /// The bytes of the file at `path`, or `nil` when it cannot be read; not recorded.
    package static func contents(of path: String) -> [UInt8]? {
        try? load(path)
    }

    /// Reads the whole file through a file descriptor, not Foundation, so that an error is an errno put in words.
    private static func load(_ path: String) throws(FileError) -> [UInt8] {
        let descriptor = try open(path)
        defer { try? descriptor.close() }
        // Reads go in pieces of the file's size (and a byte to see its end), up to 1 MiB.
        var info = stat()
        var size = 0
        if fstat(descriptor.rawValue, &info) == 0 { size = max(0, Int(info.st_size)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        var piece = [UInt8](repeating: 0, count: max(4096, min(1 << 20, size + 1)))
        while true {
            let count: Int
            do {
                count = try piece.withUnsafeMutableBytes { try descriptor.read(into: $0) }
            } catch {
                throw FileError(path: path, error: error, access: .read)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: piece[..<count])
        }
    }

    /// Records `files` as read by the build under way, if one is being recorded.
    static func note(_ files: [FileRead]) {
        current?.withLock { $0 += files }
    }

    /// Runs `build`, and returns what it made with the files it read (and notes them for an outer build too).
    static func recording<Value>(_ build: () throws -> Value) rethrows -> (Value, [FileRead]) {
        let reads = Locked<[FileRead]>([])
        let value = try $current.withValue(reads) { try build() }
        let files = reads.withLock { $0 }
        note(files)
        return (value, files)
    }
}
