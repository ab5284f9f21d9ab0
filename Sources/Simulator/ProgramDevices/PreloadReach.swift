import FoundationEssentials
import LibC
import SystemSupport

/// Whether umockdev's preload library can reach a program: it works through the dynamic loader (`LD_PRELOAD`), so
/// a statically linked program (an ELF file without a `PT_INTERP` program header, as Go and musl-static builds are)
/// never loads it and would see the machine's real `/dev` and `/sys`. A script is judged by its interpreter.
///
/// A dynamically linked program that makes raw system calls (`syscall(2)`, inline assembly) instead of calling the C
/// library's functions also bypasses the preload; that cannot be seen from the file, and `docs/programs.md` says so.
enum PreloadReach {
    /// Throws when `path` (or its script's interpreter) is statically linked or not a program at all.
    static func check(_ path: String, depth: Int = 0) throws {
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
            try check(interpreter, depth: depth + 1)
            return
        }
        guard bytes.count >= 64, bytes.starts(with: [0x7f, 0x45, 0x4c, 0x46]) else { return }
        let is64 = bytes[4] == 2
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
            if value(at, 4) == 3 { return }  // PT_INTERP: the dynamic loader runs it, and loads the preload.
        }
        if sawHeaders {
            throw ProgramError(
                "\(path) is statically linked: umockdev's preload library cannot reach it, so it would see the machine's real devices, not the simulated ones; build it dynamically linked")
        }
    }
}
