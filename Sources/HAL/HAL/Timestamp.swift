/// A point in time on a monotonic clock, in integer nanoseconds.
///
/// Every reading carries one. Device backends use the device's own clock domain
/// (`CLOCK_MONOTONIC`, as evdev, IIO and V4L2 timestamps are); replay uses the
/// trace's timestamps. Wall-clock time, where a device has it (a GPS fix), is a
/// separate field of that reading.
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Nanoseconds since the clock's epoch.
    public var nanoseconds: Int64

    /// Creates a timestamp from nanoseconds since the clock's epoch.
    @inlinable
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// The clock's epoch.
    public static let zero = Timestamp(nanoseconds: 0)

    /// Orders timestamps by time.
    @inlinable
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// Seconds since the epoch, for display.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    /// The time as seconds with nanosecond digits, such as `12.400000000`.
    public var description: String {
        let sign = nanoseconds < 0 ? "-" : ""
        let magnitude = nanoseconds.magnitude
        let fraction = String(magnitude % 1_000_000_000)
        let padded = String(repeating: "0", count: 9 - fraction.count) + fraction
        return "\(sign)\(magnitude / 1_000_000_000).\(padded)"
    }
}

extension Timestamp: InstantProtocol {
    /// Returns the timestamp moved by `duration`, rounded down to whole nanoseconds.
    @inlinable
    public func advanced(by duration: Duration) -> Timestamp {
        Timestamp(nanoseconds: nanoseconds + duration.wholeNanoseconds)
    }

    /// The timestamp `duration` later.
    @inlinable
    public static func + (lhs: Timestamp, rhs: Duration) -> Timestamp {
        lhs.advanced(by: rhs)
    }

    /// Returns the duration from this timestamp to `other`.
    @inlinable
    public func duration(to other: Timestamp) -> Duration {
        .nanoseconds(other.nanoseconds - nanoseconds)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds, rounded towards negative infinity.
    @inlinable
    public var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
            - (attoseconds % 1_000_000_000 < 0 ? 1 : 0)
    }
}
