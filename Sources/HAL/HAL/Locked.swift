import LibC
/// A value behind a `pthread_mutex_t`, with the shape of `Synchronization.Mutex`.
///
/// On Linux, `Mutex` is built on futex system calls that ThreadSanitizer does not see, so every access it
/// guards is reported as a race; ThreadSanitizer intercepts pthread mutexes. The package uses this type for
/// all its locks so that `swift test --sanitize=thread` reports only real races (docs/reliability.md).
/// NIO's `NIOLockedValueBox` is the same idea, but takes only copyable values.
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Creates a lock holding `value`.
    package init(_ value: consuming Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock.
    package func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
