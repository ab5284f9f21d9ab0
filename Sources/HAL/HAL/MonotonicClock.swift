import LibC
/// The system's `CLOCK_MONOTONIC`, as a Swift `Clock` whose instants are ``Timestamp``s.
///
/// This is the clock domain of evdev, IIO and V4L2 kernel timestamps, so readings
/// from real devices and `now` of this clock can be compared directly. App logic
/// should not use it directly: it takes a `Clock` injected, which is this clock
/// on a board and a `VirtualClock` under replay.
public struct MonotonicClock: Clock, Sendable {
    /// Creates the clock.
    public init() {}

    /// The current time of `CLOCK_MONOTONIC`.
    public var now: Timestamp { Self.now }

    /// The current time of `CLOCK_MONOTONIC`.
    public static var now: Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Timestamp(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }

    /// One nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Suspends until `deadline`, or throws `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Timestamp, tolerance: Duration? = nil) async throws {
        let remaining = now.duration(to: deadline)
        if remaining > .zero {
            try await SuspendingClock().sleep(for: remaining, tolerance: tolerance)
        }
    }
}
