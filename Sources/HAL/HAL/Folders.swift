import LibC

/// Whether `path` is a folder, following symbolic links (`stat(2)`), with no Foundation.
package func isFolder(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
}

/// A file as it is now: its path, inode, size and modification and change times (`stat(2)`), for caches that must
/// read a file again once it changes (or is replaced, as an atomic write does).
package struct FileVersion: Hashable, Sendable {
    /// The path.
    package var path: String
    /// The inode.
    package var inode: UInt64
    /// The size in bytes.
    package var size: Int64
    /// The modification and status change times, nanoseconds since 1970.
    package var modified: Int64, changed: Int64

    /// The file at `path` as it is now, or `nil` when it cannot be read.
    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.path = path
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }
}

/// The folder of the running program (`/proc/self/exe`'s), where files installed beside it are looked for; `nil` when
/// it cannot be read.
package func runningProgramFolder() -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
}
