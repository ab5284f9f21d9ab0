import LibC
/// Buffered standard output, for commands that print many lines.
struct StandardOutput {
    private var buffer: [UInt8] = []

    /// Adds a line.
    mutating func line(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Adds bytes as they are.
    mutating func bytes(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Writes out what is buffered.
    mutating func flush() {
        writeAll(STDOUT_FILENO, buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Writes a message to standard error.
func printError(_ text: String, terminator: String = "\n") {
    writeAll(STDERR_FILENO, Array((text + terminator).utf8))
}

/// Writes every byte to a file descriptor, retrying short writes and interrupts.
private func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}

/// `count` and `noun`, with an `s` unless the count is one: "1 scenario", "3 scenarios".
func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
