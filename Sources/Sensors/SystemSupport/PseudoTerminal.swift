import LibC
import CSystemCalls
public import HAL

/// A pseudo-terminal whose slave side any program can open as if it were a serial GPS
/// receiver (gpsd: `gpsd -N -n /dev/pts/N`), while the master side is written here.
public final class PseudoTerminal: Sendable {
    /// The master's file descriptor.
    public let master: Int32
    /// The slave's path, such as `/dev/pts/3`.
    public let slavePath: String
    /// Whether the master is still open: closed, and written, under this lock.
    private let open = Locked(true)

    /// Opens a pseudo-terminal in raw mode.
    public init() throws(DeviceError) {
        var name = [CChar](repeating: 0, count: 128)
        master = hal_open_pseudo_terminal(&name, name.count)
        guard master >= 0 else {
            throw DeviceError(.ioFailure, uri: "pty", "cannot open a pseudo-terminal: \(describeErrno(errno))")
        }
        slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes `bytes` to the master side. When nobody reads the slave and the terminal's buffer
    /// is full, the rest is dropped, as a receiver's sentences are lost with no listener: a
    /// reader that attaches later gets current epochs, not a backlog.
    public func write(_ bytes: [UInt8]) throws(DeviceError) {
        try open.withLock { open throws(DeviceError) in
            guard open else { throw DeviceError(.disconnected, uri: slavePath, "write failed: the terminal is closed") }
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress! + offset, $0.count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    if errno == EAGAIN { return }
                    throw DeviceError(.disconnected, uri: slavePath, "write failed: \(describeErrno(errno))")
                }
                offset += written
            }
        }
    }

    /// Closes the master; readers of the slave see the device go away. Closing again does nothing, and a write after
    /// the close fails as disconnected rather than reach a number the system has handed out again.
    public func close() {
        open.withLock { open in
            if open { Glibc.close(master) }
            open = false
        }
    }
}
