public import HAL

/// Places decoded epochs on a timeline starting at 0: by their UTC time, or by their time of
/// day when the log has no date (a GGA-only log), carrying over midnight. Epochs that would go
/// back in time, or that have no time at all, are left out and counted.
///
/// A log that starts without a date and gains one later (a GGA before the first RMC) is
/// placed by time of day until the date comes, then moved onto UTC without a jump: the
/// epochs so far are taken to be on the days that the time of day and the first date imply.
public struct EpochTimeline: Sendable {
    private var first: Int64?
    private var last: Int64?
    private var dayOffset: Int64 = 0
    private var lastTimeOfDay: Double?
    /// UTC minus the time-of-day timeline, once an epoch has had both.
    private var utcShift: Int64?
    /// Epochs left out.
    public private(set) var skipped = 0

    /// Creates a timeline.
    public init() {}

    /// The epoch as a fix stamped with its time since the first epoch, or `nil` when it is left out.
    public mutating func fix(for epoch: NMEAFix) -> LocationFix? {
        guard let instant = instant(of: epoch) else {
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

    /// The epoch's place: UTC once known, else the time of day carried over midnight.
    private mutating func instant(of epoch: NMEAFix) -> Int64? {
        var sinceFirstMidnight: Int64?
        if let timeOfDay = epoch.timeOfDay {
            if let previous = lastTimeOfDay, timeOfDay < previous - 43_200 { dayOffset += UTCTime.nanosecondsPerDay }
            lastTimeOfDay = timeOfDay
            sinceFirstMidnight = dayOffset + Int64((timeOfDay * 1e9).rounded())
        }
        if let utc = epoch.utcNanoseconds {
            if utcShift == nil, let sinceFirstMidnight {
                let shift = utc - sinceFirstMidnight
                first = first.map { $0 + shift }
                last = last.map { $0 + shift }
                utcShift = shift
            }
            return utc
        }
        return sinceFirstMidnight.map { $0 + (utcShift ?? 0) }
    }
}
