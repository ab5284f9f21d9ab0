import LibC
import Dispatch

/// Cancels a command's main task on Ctrl-C (or `SIGTERM`), or when `duration` seconds have passed.
/// Call ``disarm()`` once the task has ended.
struct StopConditions {
    private let interrupt: any DispatchSourceSignal
    private let termination: any DispatchSourceSignal
    private let limit: Task<Void, any Error>?

    init<Success: Sendable>(cancelling task: Task<Success, any Error>, after duration: Double?) {
        signal(SIGINT, SIG_IGN)
        interrupt = DispatchSource.makeSignalSource(signal: SIGINT)
        interrupt.setEventHandler { task.cancel() }
        interrupt.resume()
        signal(SIGTERM, SIG_IGN)
        termination = DispatchSource.makeSignalSource(signal: SIGTERM)
        termination.setEventHandler { task.cancel() }
        termination.resume()
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
        interrupt.cancel()
        termination.cancel()
    }
}
