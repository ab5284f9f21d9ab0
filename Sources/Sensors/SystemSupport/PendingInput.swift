import HAL
import LibC

/// Whether a terminal or device node holds input a reader has not taken yet, seen from outside without reading it:
/// what the trace's clock asks to know that a record written into a node has reached the reader's side.
///
/// The node is opened once, on the first question, without becoming this process's controlling terminal, and never
/// read.
public final class PendingInput: Sendable {
    private let path: String
    private let descriptor = Locked<Int32?>(nil)

    /// An observer of the node at `path` (a pseudo-terminal's slave, such as `/dev/pts/3`).
    public init(path: String) {
        self.path = path
    }

    deinit {
        if let open = descriptor.withLock({ $0 }), open >= 0 { close(open) }
    }

    /// The node's descriptor, opened on the first question; -1 when it cannot be opened.
    private var file: Int32 {
        descriptor.withLock { file -> Int32 in
            if file == nil { file = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) }
            return file!
        }
    }

    /// Whether the node has input waiting; true when it cannot be opened (nothing to wait for there).
    @Sendable public func isWaiting() -> Bool {
        let file = self.file
        guard file >= 0 else { return true }
        var entry = pollfd(fd: file, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLIN) != 0
    }

    /// Reads and discards the input waiting, without blocking (a terminal's non-blocking read also takes what is still
    /// on its way into its queue); the bytes taken, or `nil` when the node cannot be opened or read.
    public func drain() -> Int? {
        let file = self.file
        guard file >= 0 else { return nil }
        var taken = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
            if count > 0 {
                taken += count
                continue
            }
            if count < 0 && errno == EINTR { continue }
            return count == 0 || errno == EAGAIN ? taken : (taken > 0 ? taken : nil)
        }
    }

    /// The bytes of input waiting (`FIONREAD`); `nil` when the node cannot be opened or asked. Asked once early, it
    /// also keeps the node open, so a terminal's input queue outlives the reader's last close and can be counted.
    public func pendingBytes() -> Int? {
        let file = self.file
        var count: Int32 = 0
        guard file >= 0, ioctl(file, UInt(FIONREAD), &count) == 0 else { return nil }
        return Int(count)
    }
}
