public import HAL

/// Places decoded epochs on a timeline starting at 0: by their UTC time, or by their time of
/// day when the log has no date (a GGA-only log), carrying over midnight. Only epochs with no time at all are left
/// out, and counted.
///
/// - **Cycles at the same time** (``NMEADecoder`` gives each cycle of an epoch as a fix of its own) are placed at
///   the same timestamp, in order.
/// - **A clock that goes back** (a receiver restarted, two sessions spliced into one log, a sentence stamped ahead)
///   loses nothing: the epoch is kept, placed where the timeline was, and the epochs after it follow on from there at
///   the receiver's own spacing, so the timeline never goes back. Each jump is recorded in ``clockJumps``; the fixes
///   keep the UTC times the receiver gave.
///
/// A log that starts without a date and gains one later (a GGA before the first RMC) is
/// placed by time of day until the date comes, then moved onto UTC without a jump: the
/// epochs so far are taken to be on the days that the time of day and the first date imply.
public struct EpochTimeline: Sendable {
    /// Where the receiver's clock went back, and the timeline carried on from where it was.
    public struct ClockJump: Sendable, Hashable, CustomStringConvertible {
        /// The index of the epoch's fix among those ``EpochTimeline/fix(for:)`` returned.
        public var fix: Int
        /// How far the receiver's time went back, nanoseconds.
        public var back: Int64
        /// The UTC time of the epoch before, and the epoch's own, when the receiver knew the date.
        public var before: Int64?, after: Int64?

        /// The jump in words: how far back, from when to when.
        public var description: String {
            let seconds = Double(back) / 1e9
            let span = if let before, let after { " (from \(UTCTime.format(before)) to \(UTCTime.format(after)))" } else { "" }
            return "the receiver's clock went back \(seconds) s\(span); the epochs are kept and placed on from where the timeline was"
        }
    }

    private var first: Int64?
    /// The last epoch's place on the receiver's clock, and on the timeline (which never goes back).
    private var last: (receiver: Int64, placed: Int64, utc: Int64?)?
    /// The timeline minus the receiver's clock: grows by each jump back.
    private var shift: Int64 = 0
    private var dayOffset: Int64 = 0
    private var lastTimeOfDay: Double?
    /// UTC minus the time-of-day timeline, once an epoch has had both.
    private var utcShift: Int64?
    private var placed = 0
    /// Epochs left out: those with no time at all.
    public private(set) var skipped = 0
    /// Where the receiver's clock went back, in order.
    public private(set) var clockJumps: [ClockJump] = []

    /// Creates a timeline.
    public init() {}

    /// The epoch as a fix stamped with its place on the timeline, or `nil` when it has no time.
    public mutating func fix(for epoch: NMEAFix) -> LocationFix? {
        guard let instant = instant(of: epoch) else {
            skipped += 1
            return nil
        }
        first = first ?? instant
        var time = instant + shift
        if let last, time < last.placed {
            clockJumps.append(ClockJump(fix: placed, back: last.receiver - instant, before: last.utc, after: epoch.utcNanoseconds))
            shift += last.placed - time
            time = last.placed
        }
        last = (instant, time, epoch.utcNanoseconds)
        placed += 1
        return epoch.locationFix(at: Timestamp(nanoseconds: time - first!))
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
                if let previous = last { last = (previous.receiver + shift, previous.placed + shift, previous.utc) }
                utcShift = shift
            }
            return utc
        }
        return sinceFirstMidnight.map { $0 + (utcShift ?? 0) }
    }
}
