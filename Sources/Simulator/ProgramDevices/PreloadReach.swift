import FoundationEssentials
import LibC
import SystemSupport

/// Whether umockdev's preload library can reach a program: it works through the dynamic loader (`LD_PRELOAD`), so
/// a statically linked program (an ELF file without a `PT_INTERP` program header, as Go and musl-static builds are)
/// never loads it and would see the machine's real `/dev` and `/sys`; nor does a 32-bit program (the preloads are
/// 64-bit) or a set-user-ID one (the loader ignores `LD_PRELOAD` for it). A script is judged by its interpreter.
///
/// A dynamically linked program that makes raw system calls (`syscall(2)`, inline assembly) instead of calling the C
/// library's functions also bypasses the preload; that cannot be seen from the file, and `docs/programs.md` says so.
///
/// On the trace's clock (``TraceClock``) a program must also take its time from the C library: a Go program reads the
/// vDSO's clock directly, whatever is preloaded.
enum PreloadReach {
    /// Throws when `path` (or its script's interpreter) is statically linked or not a program at all; with
    /// `clock`, also when it is a Go program, whose clocks the trace's clock cannot own.
    static func check(_ path: String, clock: Bool = false, depth: Int = 0) throws {
        guard let handle = FileManager.default.contents(atPath: path) else { throw ProgramError("cannot read the program \(path)") }
        let bytes = [UInt8](handle.prefix(64 * 1024))
        if bytes.starts(with: Array("#!".utf8)) {
            guard depth < 4 else { return }
            let line = String(decoding: bytes.dropFirst(2).prefix { $0 != 10 }, as: UTF8.self)
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard var interpreter = words.first else { throw ProgramError("\(path) starts with #! but names no interpreter") }
            if interpreter.hasSuffix("/env"), let name = words.dropFirst().first(where: { !$0.hasPrefix("-") }) {
                guard let found = ChildProcess.resolve(name, path: ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") else { throw ProgramError("\(path) runs '\(name)', which is not on PATH") }
                interpreter = found
            }
            try check(interpreter, clock: clock, depth: depth + 1)
            return
        }
        guard bytes.count >= 64, bytes.starts(with: [0x7f, 0x45, 0x4c, 0x46]) else { return }
        let is64 = bytes[4] == 2
        let reaches = clock ? "neither the simulated devices nor the trace's clock can reach it" : "umockdev's preload library cannot reach it"
        // The preload libraries are built for this machine's 64-bit programs.
        guard is64 else { throw ProgramError("\(path) is a 32-bit program: the preload libraries are 64-bit, so \(reaches)") }
        // The dynamic loader ignores LD_PRELOAD paths for a set-user-ID or set-group-ID program.
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & (S_ISUID | S_ISGID) != 0 {
            throw ProgramError("\(path) is set-user-ID or set-group-ID: the dynamic loader ignores LD_PRELOAD for it, so \(reaches)")
        }
        func value(_ at: Int, _ size: Int) -> Int {
            guard at + size <= bytes.count else { return 0 }
            var result = 0
            for index in (0..<size).reversed() { result = result << 8 | Int(bytes[at + index]) }
            return result
        }
        let (offset, entrySize, count) = is64 ? (value(32, 8), value(54, 2), value(56, 2)) : (value(28, 4), value(42, 2), value(44, 2))
        var sawHeaders = false
        for index in 0..<count {
            let at = offset + index * entrySize
            guard at + 4 <= bytes.count else { break }
            sawHeaders = true
            // PT_INTERP: the dynamic loader runs it, and loads the preload.
            if value(at, 4) == 3 {
                if clock, isGo(path) {
                    throw ProgramError("\(path) is a Go program, which reads the machine's clock from the vDSO, not through the C library, so the trace's clock cannot own its time; run it with --clock wall")
                }
                return
            }
        }
        if sawHeaders {
            if clock {
                throw ProgramError("\(path) is statically linked: no dynamic loader reads LD_PRELOAD, so neither the simulated devices nor the trace's clock can reach it; build it dynamically linked, or run it with --clock wall")
            }
            throw ProgramError(
                "\(path) is statically linked: umockdev's preload library cannot reach it, so it would see the machine's real devices, not the simulated ones; build it dynamically linked")
        }
    }

    /// Whether the ELF file at `path` was built by Go: it holds the `.go.buildinfo` section's magic.
    static func isGo(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size >= Self.goMagic.count else { return false }
        let size = Int(info.st_size)
        // The file mapped, and searched with the C library's memchr for the magic's first byte: a program of megabytes
        // in a few milliseconds, with no copy.
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else { return false }
        defer { munmap(mapped, size) }
        let bytes = UnsafeRawPointer(mapped)
        return Self.goMagic.withUnsafeBytes { magic in
            var at = 0
            while at + magic.count <= size, let found = memchr(bytes + at, Int32(magic[0]), size - magic.count + 1 - at) {
                if memcmp(found, magic.baseAddress!, magic.count) == 0 { return true }
                at = bytes.distance(to: UnsafeRawPointer(found)) + 1
            }
            return false
        }
    }

    /// The first bytes of Go's `.go.buildinfo` section: 0xff, then " Go buildinf:".
    static let goMagic: [UInt8] = [0xff] + Array(" Go buildinf:".utf8)
}
