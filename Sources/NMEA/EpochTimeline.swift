public import HAL

/// Places decoded epochs on a timeline starting at 0: by their UTC time, or by their time of
/// day when the log has no date (a GGA-only log), carrying over midnight. Epochs that would go
/// back in time, or that have no time at all, are left out and counted.
public struct EpochTimeline: Sendable {
    private var first: Int64?
    private var last: Int64?
    private var dayOffset: Int64 = 0
    private var lastTimeOfDay: Double?
    /// Epochs left out.
    public private(set) var skipped = 0

    /// Creates a timeline.
    public init() {}

    /// The epoch as a fix stamped with its time since the first epoch, or `nil` when it is left out.
    public mutating func fix(for epoch: NMEAFix) -> LocationFix? {
        let instant: Int64
        if let utc = epoch.utcNanoseconds {
            instant = utc
        } else if let timeOfDay = epoch.timeOfDay {
            if let previous = lastTimeOfDay, timeOfDay < previous - 43_200 { dayOffset += UTCTime.nanosecondsPerDay }
            lastTimeOfDay = timeOfDay
            instant = dayOffset + Int64((timeOfDay * 1e9).rounded())
        } else {
            skipped += 1
            return nil
        }
        first = first ?? instant
        guard last.map({ instant > $0 }) ?? true else {
            skipped += 1
            return nil
        }
        last = instant
        return epoch.locationFix(at: Timestamp(nanoseconds: instant - first!))
    }
}
