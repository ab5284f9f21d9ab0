import LibC
/// Reads lines from a file descriptor with a time limit per wait, the way device streams need:
/// a device that stops talking is a timeout, one that goes away is an error, not a hang.
package struct LineReader {
    package enum Event {
        case line([UInt8])
        case timeout
        case endOfInput
        case failure(errno: Int32)
    }

    package let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Where each `read` lands; reused.
    private var chunk = [UInt8](repeating: 0, count: 4096)
    /// The longest line kept; longer ones are cut (NMEA allows 82 characters, gpsd JSON a few kB).
    package let maximumLine: Int

    package init(descriptor: Int32, maximumLine: Int = 1 << 16) {
        self.descriptor = descriptor
        self.maximumLine = maximumLine
    }

    /// The next line (without its `\n`), or what stopped it, waiting at most `timeout` seconds.
    package mutating func next(timeout: Double) -> Event {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return .line(line)
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(max(0, timeout * 1000), 3_600_000)))
            if ready < 0 {
                if errno == EINTR { continue }
                return .failure(errno: errno)
            }
            if ready == 0 { return .timeout }
            let descriptor = descriptor
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .failure(errno: errno)
            }
            if count == 0 {
                // A pty whose other side closed reads 0 (or EIO): the device is gone.
                if !buffer.isEmpty {
                    let line = buffer
                    buffer.removeAll()
                    return .line(line)
                }
                return .endOfInput
            }
            buffer.append(contentsOf: chunk[..<count])
            // The buffer held no newline before this read (it would have been returned).
            if buffer.count > maximumLine, !chunk[..<count].contains(UInt8(ascii: "\n")) {
                buffer.removeFirst(buffer.count - maximumLine)
            }
        }
    }
}
