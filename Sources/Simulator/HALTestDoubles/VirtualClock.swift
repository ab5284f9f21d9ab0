public import HAL

/// A `Clock` whose time moves only when told to: the clock of a replay.
///
/// Its instants are trace `Timestamp`s. A replay advances it to each record's
/// time before delivering the record, so app logic that takes a `Clock` injected
/// sees trace time: a 1-hour trace replays in milliseconds with the same results.
///
/// - ``sleep(until:tolerance:)`` suspends until the clock is advanced to the
///   deadline; sleepers are resumed in deadline order, first come first served on
///   a tie.
/// - With `advancesOnSleep`, a sleep instead moves the clock to its deadline and
///   returns at once. This is the test double for a pacing clock: a real-time replay
///   paced by it finishes instantly, and its `now` shows how long it would have taken.
public final class VirtualClock: Clock, Sendable {
    /// The clock's duration type.
    public typealias Duration = Swift.Duration

    private struct Sleeper {
        var id: UInt64
        var deadline: Timestamp
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Timestamp
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
    }

    private let state: Locked<State>
    private let advancesOnSleep: Bool

    /// Creates a clock at `start`.
    public init(start: Timestamp = .zero, advancesOnSleep: Bool = false) {
        state = Locked(State(now: start))
        self.advancesOnSleep = advancesOnSleep
    }

    /// The current virtual time.
    public var now: Timestamp { state.withLock { $0.now } }

    /// One nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// How many tasks are sleeping on the clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline a task is sleeping until, if any.
    public var nextDeadline: Timestamp? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    /// Suspends until the clock reaches `deadline`; throws `CancellationError` if the task is cancelled first.
    public func sleep(until deadline: Timestamp, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        if advancesOnSleep {
            state.withLock { $0.now = max($0.now, deadline) }
            return
        }
        let id = state.withLock { state -> UInt64? in
            guard deadline > state.now else { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard deadline > state.now else { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index).continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock to `instant` and wakes every sleeper whose deadline has come, in
    /// deadline order. Moving backwards is ignored: virtual time never runs back.
    public func advance(to instant: Timestamp) {
        let due = state.withLock { state -> [Sleeper] in
            guard instant > state.now else { return [] }
            state.now = instant
            let due = state.sleepers.filter { $0.deadline <= instant }
            state.sleepers.removeAll { $0.deadline <= instant }
            return due.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }
}
