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

    /// Whether the node has input waiting; true when it cannot be opened (nothing to wait for there).
    @Sendable public func isWaiting() -> Bool {
        let file = descriptor.withLock { file -> Int32 in
            if file == nil { file = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) }
            return file!
        }
        guard file >= 0 else { return true }
        var entry = pollfd(fd: file, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLIN) != 0
    }
}
