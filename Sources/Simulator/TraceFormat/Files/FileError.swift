import LibC
import SystemPackage

/// A file or folder that cannot be read or written, in words: its path and the cause (`walk.json: no such file`,
/// `out.svg: cannot write: no such folder plots`), never a Foundation error's dump.
///
/// The package's `FileReads` and `FileWrites` throw it, and the command line prints it as it is. The cause of a failed
/// system call is put in words in one place, `FileError.cause(code:path:access:)`, so that every file the package
/// reads or writes says what is wrong the same way.
public struct FileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file or folder.
    public var path: String
    /// What is wrong, in words: `no such file`, `is a directory, not a file`, `permission denied`,
    /// `the file is empty; expected a sound file`.
    public var cause: String

    /// An error about `path` saying `cause`.
    public init(path: String, _ cause: String) {
        self.path = path
        self.cause = cause
    }

    /// What was being done with the path when a system call failed.
    package enum Access: Sendable {
        /// Reading a file.
        case read
        /// Creating or writing a file.
        case write
        /// Listing a folder.
        case folder
    }

    /// The error of a system call on `path` that failed with the errno `code`, while doing `access`.
    package init(path: String, code: Int32, access: Access) {
        self.init(path: path, Self.cause(code: code, path: path, access: access))
    }

    /// The error of a system call on `path` that threw `error` (swift-system's `Errno`), while doing `access`.
    package init(path: String, error: any Error, access: Access) {
        self.init(path: path, code: (error as? Errno)?.rawValue ?? EIO, access: access)
    }

    /// A file with nothing in it, where `what` was expected: `walk.json: the file is empty; expected a JSON document`.
    public static func empty(_ path: String, expecting what: String) -> FileError {
        FileError(path: path, "the file is empty; expected \(what)")
    }

    /// `path: cause`.
    public var description: String { "\(path): \(cause)" }

    /// A failed system call's errno on `path` as words: the one place the package turns a file's errno into a cause.
    package static func cause(code: Int32, path: String, access: Access) -> String {
        let writing = access == .write ? "cannot write: " : ""
        switch (access, code) {
        case (.read, ENOENT): return "no such file"
        case (.folder, ENOENT): return "no such folder"
        case (.write, ENOENT): return "cannot write: no such folder \(TracePath.folder(ofTraceAt: path))"
        case (.folder, ENOTDIR): return "is a file, not a folder"
        case (_, ENOTDIR): return "\(writing)a folder on the path is a file"
        case (_, EISDIR): return "\(writing)is a directory, not a file"
        case (_, EACCES), (_, EPERM): return "\(writing)permission denied"
        case (_, ENOSPC): return "cannot write: the disk is full"
        case (_, EROFS): return "cannot write: the file system is read-only"
        case (.write, _): return "cannot write: \(Errno(rawValue: code).description)"
        default: return "cannot read: \(Errno(rawValue: code).description)"
        }
    }
}

/// Writing whole files, with errors in words (``FileError``).
package enum FileWrites {
    /// Creates or replaces the file at `path` with `bytes`.
    package static func write(_ bytes: [UInt8], to path: String) throws(FileError) {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                FilePath(path), .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw FileError(path: path, error: error, access: .write)
        }
        do {
            try descriptor.closeAfter { _ = try descriptor.writeAll(bytes) }
        } catch {
            throw FileError(path: path, error: error, access: .write)
        }
    }

    /// Replaces the file at `path` with `bytes` through a temporary file beside it and a rename, so that a crash
    /// leaves the old file or the new one, never half of one; makes the file's folder (and the folders above it) first.
    package static func replace(_ bytes: [UInt8], at path: String) throws(FileError) {
        try makeFolder(TracePath.folder(ofTraceAt: path))
        let temporary = path + ".partial"
        try write(bytes, to: temporary)
        guard rename(temporary, path) == 0 else {
            let code = errno
            _ = unlink(temporary)
            throw FileError(path: path, code: code, access: .write)
        }
    }

    /// Makes the folder at `path` and the folders above it, where they are missing.
    package static func makeFolder(_ path: String) throws(FileError) {
        guard !path.isEmpty, path != "/", path != "." else { return }
        if mkdir(path, 0o755) == 0 { return }
        let code = errno
        if code == EEXIST { return }
        guard code == ENOENT else { throw FileError(path: path, code: code, access: .write) }
        try makeFolder(TracePath.folder(ofTraceAt: path))
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw FileError(path: path, code: errno, access: .write) }
    }

    /// Checks, before a long job or a library that says less (OpenCV), that a file can be written at `path`: that
    /// it is not a folder, and that its folder exists and takes new files. Creates nothing.
    package static func checkWritable(_ path: String) throws(FileError) {
        if let folder = try? FileDescriptor.open(FilePath(path), .readOnly, options: [.directory, .closeOnExec]) {
            try? folder.close()
            throw FileError(path: path, code: EISDIR, access: .write)
        }
        if access(TracePath.folder(ofTraceAt: path), W_OK | X_OK) != 0 { throw FileError(path: path, code: errno, access: .write) }
        if access(path, F_OK) == 0, access(path, W_OK) != 0 { throw FileError(path: path, code: errno, access: .write) }
    }
}

extension FileReads {
    /// Checks, before a library that says less (libsndfile, OpenCV) reads it, that the file at `path` can be read
    /// and is not empty: `clip.wav: no such file`, `clip.wav: is a directory, not a file`, `clip.wav: permission
    /// denied`, or, with `what` being `a sound file`, `clip.wav: the file is empty; expected a sound file`.
    package static func checkReadable(_ path: String, expecting what: String) throws(FileError) {
        let descriptor = try open(path)
        defer { try? descriptor.close() }
        var byte: UInt8 = 0
        let count: Int
        do {
            count = try withUnsafeMutableBytes(of: &byte) { try descriptor.read(into: $0) }
        } catch {
            throw FileError(path: path, error: error, access: .read)
        }
        if count == 0 { throw FileError.empty(path, expecting: what) }
    }

    /// The bytes of the file at `path` (``read(path:)``), refusing an empty file where `what` was expected.
    package static func read(path: String, expecting what: String) throws(FileError) -> [UInt8] {
        let bytes = try read(path: path)
        guard !bytes.isEmpty else { throw FileError.empty(path, expecting: what) }
        return bytes
    }

    /// The file at `path` opened for reading; the caller closes it.
    static func open(_ path: String) throws(FileError) -> FileDescriptor {
        do {
            return try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
        } catch {
            throw FileError(path: path, error: error, access: .read)
        }
    }

    /// Checks that `path` is a folder that can be listed (and, when `writable`, that takes new files): a missing
    /// one, a file or a folder without permission is a ``FileError`` in words (`clips: no such folder`).
    package static func checkFolder(_ path: String, writable: Bool = false) throws(FileError) {
        do {
            let folder = try FileDescriptor.open(FilePath(path), .readOnly, options: [.directory, .closeOnExec])
            try? folder.close()
        } catch {
            throw FileError(path: path, error: error, access: .folder)
        }
        if writable, access(path, W_OK | X_OK) != 0 { throw FileError(path: path, code: errno, access: .write) }
    }
}
