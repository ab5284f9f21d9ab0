import HAL
import LibC

/// Cancels a command's main task on Ctrl-C (`SIGINT`) or `SIGTERM`, or when `duration` seconds have passed.
/// Call ``disarm()`` once the task has ended.
struct StopConditions {
    private let token: Int
    private let limit: Task<Void, any Error>?

    init<Success: Sendable>(cancelling task: Task<Success, any Error>, after duration: Double?) {
        token = SignalRelay.shared.arm { task.cancel() }
        limit = duration.map { seconds in
            Task {
                try await Task.sleep(for: .nanoseconds(Int64(seconds * 1e9)))
                task.cancel()
            }
        }
    }

    /// Stops watching.
    func disarm() {
        limit?.cancel()
        SignalRelay.shared.disarm(token)
    }
}

/// The write end of the relay's pipe, for its signal handler: a handler may only make async-signal-safe calls, and
/// may not capture anything.
nonisolated(unsafe) private var signalPipe: Int32 = -1

/// Turns `SIGINT` and `SIGTERM` into actions on a thread of their own: the handler writes the signal's number into a
/// pipe, and the thread reads it and runs what is armed. A signal with nothing armed ends the process as the signal
/// would (status 128 + N).
///
/// A handler, not Dispatch's signal source: that source reads a signalfd, which sees a signal only while every
/// thread blocks it, and the cooperative pool's threads do not, so a Ctrl-C was lost whenever one of them took it.
final class SignalRelay: Sendable {
    static let shared = SignalRelay()

    private let actions = Locked<(next: Int, armed: [Int: @Sendable () -> Void])>((0, [:]))

    private init() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        signalPipe = ends[1]
        let reader = ends[0]
        DetachedThread.start(name: "signal relay") { [actions] in
            var signal: UInt8 = 0
            while true {
                let count = read(reader, &signal, 1)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return }
                let armed = actions.withLock { Array($0.armed.values) }
                if armed.isEmpty { _exit(128 + Int32(signal)) }
                for action in armed { action() }
            }
        }
        for number in [SIGINT, SIGTERM] {
            _ = LibC.signal(number) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipe, &byte, 1)
            }
        }
    }

    /// Runs `action` on each signal until ``disarm(_:)`` with the token returned.
    func arm(_ action: @escaping @Sendable () -> Void) -> Int {
        actions.withLock {
            $0.next += 1
            $0.armed[$0.next] = action
            return $0.next
        }
    }

    /// Stops running the action of `token`.
    func disarm(_ token: Int) {
        _ = actions.withLock { $0.armed.removeValue(forKey: token) }
    }
}
