import HAL

/// Decodes NMEA 0183 into one ``NMEAFix`` per epoch.
///
/// - **Sentences:** every NMEA 0183 4.x sentence a GNSS receiver sends with a position, a time or the fix's quality:
///   RMC, GGA, GLL and GNS (position), GSA (fix type), GST and GBS (position errors), ZDA (date), GRS (time), DTM
///   (datum), and GSV and VTG.
/// - **Talkers:** any that NMEA 0183 or 4.x defines: GP, GL, GA, GB, BD, GQ, GI, GN, IN (integrated
///   navigation), EC (electronic chart), II, and the rest: two characters, a letter then a letter or digit (`U0`…`U9`
///   are user talkers). Proprietary sentences (`$P…`) are not read.
/// - **Bad sentences** (bad checksum, truncated, garbage, malformed fields) are counted by
///   reason in ``statistics`` and skipped; nothing a line holds can crash the decoder.
/// - **Noise before a sentence** (a doubled `$`, stray bytes, the start of a sentence cut off by this one) is
///   passed over: a sentence is read from the last `$` before its checksum, and counted in
///   ``Statistics/resynchronised``.
///
/// **Epochs.** An epoch is one cycle of sentences sharing one UTC time of day. A sentence
/// with another time closes the epoch, which ``decode(line:)`` then returns; sentences
/// without a time (GSA, GSV, VTG, DTM) belong to the epoch in progress. ``finish()`` closes
/// the last one.
///
/// - **A cycle of its own at the same time:** a sentence that gives another position than the epoch's, says there is
///   no fix after the epoch had one, or gives a fix after the epoch said there was none, closes the epoch and starts
///   the next at the same time, as gpsd reports each cycle. So a chartplotter that stamps its GLL one second ahead of
///   its GGA gives each position as a fix of its own, and a trailing GSA `1` or an empty GGA does not wipe the
///   valid fix before it; the next epoch carries on the earlier one's fields (altitude, speed, DOPs) but not its fix.
/// - **A time stamped ahead:** an epoch of only ZDA, GST, GBS or GRS (and time-less sentences) is not closed by the
///   next sentence with a position: that sentence joins it and gives the time. A receiver whose ZDA runs two seconds
///   ahead of its RMC does not make a time-only epoch between each pair of fixes and a jump back after it.
///
/// **Fix mode:** no fix when RMC or GLL says `V`, GSA says 1, GNS says `N`, or GGA's quality is 0 or empty and it has
/// no position or fewer than 3 satellites used (a GGA of quality 0 with a position from 3 or more satellites is a fix,
/// as gpsd reads it); otherwise GSA's 2D/3D, or 3D when GGA or GNS gave an altitude, else 2D.
///
/// **Dates** come from RMC or ZDA and carry over to later epochs; an empty or all-zero date is one the receiver
/// does not know yet, and the epoch has no UTC time (its ``NMEAFix/timeOfDay`` only). A known date moves on a day
/// when the time of day wraps past midnight. A date before ``rolloverPivot`` is taken to be
/// a receiver with the GPS week-number rollover bug, and 1024 weeks are added until it
/// is not.
public struct NMEADecoder: Sendable {
    /// The earliest plausible date, as nanoseconds since 1970: 2000-01-01 by default.
    public var rolloverPivot: Int64 = 946_684_800 * 1_000_000_000
    /// Sentences used, and lines rejected, by reason.
    public private(set) var statistics = Statistics()
    private var epoch: NMEAFix?
    /// Whether a sentence of the epoch in progress gave a date.
    private var epochHasDate = false
    private var date: (day: Int, month: Int, year: Int)?
    private var lastTimeOfDay: Double?

    private var fieldScratch: [Range<Int>] = []

    /// Counts of what the decoder saw.
    public struct Statistics: Sendable, Hashable {
        /// Sentences decoded, by type.
        public var decoded: [String: Int] {
            var counts: [String: Int] = [:]
            for type in SentenceType.allCases where decodedCounts[Self.index(type)] > 0 { counts[type.rawValue] = decodedCounts[Self.index(type)] }
            return counts
        }
        /// Lines rejected, by reason.
        public var rejected: [NMEASentence.Rejection: Int] {
            var counts: [NMEASentence.Rejection: Int] = [:]
            for (index, reason) in NMEASentence.Rejection.allCases.enumerated() where rejectedCounts[index] > 0 { counts[reason] = rejectedCounts[index] }
            return counts
        }
        /// Epochs closed.
        public var epochs = 0
        /// Sentences read from a later `$` than the line's first, or after noise: resynchronised.
        public var resynchronised = 0
        var decodedCounts = [Int](repeating: 0, count: SentenceType.allCases.count)
        var rejectedCounts = [Int](repeating: 0, count: NMEASentence.Rejection.allCases.count)

        /// All decoded sentences.
        public var decodedCount: Int { decodedCounts.reduce(0, +) }
        /// All rejected lines.
        public var rejectedCount: Int { rejectedCounts.reduce(0, +) }

        mutating func reject(_ reason: NMEASentence.Rejection) {
            rejectedCounts[NMEASentence.Rejection.allCases.firstIndex(of: reason)!] += 1
        }

        mutating func count(_ type: SentenceType) {
            decodedCounts[Self.index(type)] += 1
        }

        static func index(_ type: SentenceType) -> Int { SentenceType.allCases.firstIndex(of: type)! }
    }

    /// Whether two bytes can be a talker: an upper-case letter, then an upper-case letter or a digit. Which
    /// system or instrument sent a fix does not change how it reads, so every talker's fixes are taken, as gpsd does.
    static func isKnownTalker(_ talker: (UInt8, UInt8)) -> Bool {
        let letters = UInt8(ascii: "A")...UInt8(ascii: "Z"), digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        return letters.contains(talker.0) && (letters.contains(talker.1) || digits.contains(talker.1))
    }

    /// Creates a decoder.
    public init() {}

    /// Takes one line; returns the epoch it closed, if any.
    public mutating func decode(line: some StringProtocol) -> NMEAFix? {
        var text = String(line)
        return text.withUTF8 { decode(bytes: $0) }
    }

    /// Takes one line as bytes; returns the epoch it closed, if any.
    public mutating func decode(bytes: UnsafeBufferPointer<UInt8>) -> NMEAFix? {
        let framed: FramedSentence
        switch FramedSentence.frame(bytes, fields: &fieldScratch) {
        case .failure(let rejection):
            if bytes.contains(where: { $0 > 32 }) { statistics.reject(rejection) }
            return nil
        case .success(let sentence):
            framed = sentence
        }
        if framed.resynchronised { statistics.resynchronised += 1 }
        guard !framed.isProprietary, Self.isKnownTalker(framed.talker), let type = framed.type else {
            statistics.reject(.unsupportedType)
            return nil
        }
        var update = Update()
        guard update.parse(framed, as: type) else {
            statistics.reject(.badField)
            return nil
        }
        statistics.count(type)
        var closed: NMEAFix?
        if let current = epoch {
            if let time = update.timeOfDay,
               current.timeOfDay.map({ $0 != time }) ?? current.sentenceTypes.contains(where: \.carriesTime) {
                // A new time closes the epoch, unless the epoch so far holds only sentences that never carry a time
                // (GSA, GSV, VTG: a receiver opened mid-burst), or only ones that say nothing of the position or the
                // fix (a ZDA or GST stamped ahead of the sentences with the position): then this sentence joins it.
                if !(type.givesPosition && current.sentenceTypes.allSatisfy(\.isAncillary)) { closed = close() }
            } else if update.startsCycle(after: current) {
                // The same time, but another cycle: another position, or a fix that comes or goes.
                closed = close()
                epoch = current.nextCycle(noFix: update.noFix)
            }
        }
        if epoch == nil { epoch = NMEAFix() }
        update.apply(to: &epoch!, type: type)
        if let newDate = update.date {
            date = newDate
            epochHasDate = true
        }
        return closed
    }

    /// Closes the epoch in progress, at the end of input.
    public mutating func finish() -> NMEAFix? {
        epoch == nil ? nil : close()
    }

    private mutating func close() -> NMEAFix? {
        guard var fix = epoch else { return nil }
        epoch = nil
        let hadDate = epochHasDate
        epochHasDate = false
        statistics.epochs += 1
        fix.mode = fix.resolvedMode
        if let time = fix.timeOfDay {
            if let last = lastTimeOfDay, time < last - 43_200, !hadDate, let current = date {
                // The time of day wrapped past midnight and no sentence of this epoch gave the new date.
                let next = UTCTime.civilDate(days: UTCTime.days(year: current.year, month: current.month, day: current.day) + 1)
                date = (next.day, next.month, next.year)
            }
            lastTimeOfDay = time
            if let date {
                // Checked arithmetic: a corrupt date or time gives no UTC time, never a trap (found by scripts/fuzz).
                let (dayStart, overflow) = UTCTime.days(year: date.year, month: date.month, day: date.day)
                    .multipliedReportingOverflow(by: UTCTime.nanosecondsPerDay)
                let ofDay = time * 1e9
                if !overflow, ofDay.isFinite, abs(ofDay) < 1e15,
                   case (var nanoseconds, false) = dayStart.addingReportingOverflow(Int64(ofDay.rounded())) {
                    while nanoseconds < rolloverPivot { nanoseconds += 1024 * 7 * UTCTime.nanosecondsPerDay }
                    fix.utcNanoseconds = nanoseconds
                }
            }
        }
        return fix
    }
}

extension NMEAFix {
    /// The next cycle of this epoch, at the same time: everything this one said but its sentences and whether there
    /// is a fix, and, when the next cycle starts with a no-fix sentence, without the position and altitude.
    func nextCycle(noFix: Bool) -> NMEAFix {
        var next = self
        next.sentenceTypes = []
        next.noFixReported = false
        if noFix {
            next.coordinate = nil
            next.altitudeMSL = nil
        }
        return next
    }

    /// The fix mode from what the epoch's sentences said.
    var resolvedMode: FixMode {
        if noFixReported || coordinate == nil { return .none }
        if let reported = reportedMode { return reported }
        return altitudeMSL != nil ? .threeDimensional : .twoDimensional
    }
}
