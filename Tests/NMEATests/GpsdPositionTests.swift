import Foundation
import HAL
import NMEA
import Testing

/// How many of gpsd's positions on one log the decoder and the timeline reproduce, the method of docs/reliability.md
/// ("gpsd's regression logs"):
///
/// - **gpsd's positions** are its TPVs with a latitude, a longitude and mode 2 or 3, in order (``GpsdLog/positions``).
///   gpsd reports a cycle again after each later sentence of it, so one cycle can give several.
/// - **Ours** are the fixes with a position that the decoder and ``EpochTimeline`` give for the log, in order: what
///   `hal gps import` and an `nmea:` file receiver deliver.
/// - **A position is reproduced** when one of our fixes, at or after the one that reproduced the position before it,
///   has that latitude and longitude (to 1e-9°) and, where gpsd gave a time, that UTC time (to 1 ms, gpsd's
///   resolution) or that time a whole number of 1024-week GPS eras away: gpsd moves a date it thinks too early on by
///   1024 weeks, judged against when it ran, and the decoder against its fixed ``NMEADecoder/rolloverPivot``.
///   Those are counted in ``otherEra``.
struct GpsdPositionAgreement: CustomStringConvertible {
    /// A position of gpsd's that no fix of ours reproduces, and what we have instead.
    struct Miss: CustomStringConvertible {
        /// Its index among gpsd's positions.
        var index: Int
        var position: GpsdLog.Position
        /// Why: our fix with that position has another time or came before, or no fix of ours has it.
        var reason: String

        var description: String {
            "#\(index) \(position.time.map { UTCTime.format($0) } ?? "no time") \(position.latitude),\(position.longitude): \(reason)"
        }
    }

    var name: String
    /// gpsd's positions.
    var gpsd = 0
    var reproduced = 0
    var misses: [Miss] = []
    /// Our fixes with a position.
    var ours = 0
    /// The epochs the timeline flagged as going back in time.
    var clockJumps = 0
    /// Positions reproduced at gpsd's time a whole number of 1024-week eras away.
    var otherEra = 0
    /// Positions of gpsd's without a time, matched by position alone.
    var untimed = 0

    static let era: Int64 = 1024 * 7 * UTCTime.nanosecondsPerDay

    var percentage: Double { gpsd == 0 ? 100 : 100 * Double(reproduced) / Double(gpsd) }

    var description: String {
        "\(name): \(reproduced) of \(gpsd) gpsd positions (\(String(format: "%.1f", percentage))%), \(ours) fixes of ours"
            + (untimed > 0 ? ", \(untimed) of gpsd's untimed" : "") + (otherEra > 0 ? ", \(otherEra) in another GPS era" : "")
            + (clockJumps > 0 ? ", \(clockJumps) clock jumps" : "")
    }

    /// The fixes the decoder and the timeline give for `lines`, in order.
    static func fixes(_ lines: [String], clockJumps: inout Int) -> [LocationFix] {
        var decoder = NMEADecoder()
        var timeline = EpochTimeline()
        var fixes: [LocationFix] = []
        for line in lines {
            if let epoch = decoder.decode(line: line), let fix = timeline.fix(for: epoch) { fixes.append(fix) }
        }
        if let epoch = decoder.finish(), let fix = timeline.fix(for: epoch) { fixes.append(fix) }
        clockJumps = timeline.clockJumps.count
        return fixes
    }

    init(_ log: GpsdLog) {
        name = log.name
        let positioned = Self.fixes(log.lines, clockJumps: &clockJumps).filter { $0.coordinate != nil }
        ours = positioned.count
        gpsd = log.positions.count
        func samePlace(_ fix: LocationFix, _ position: GpsdLog.Position) -> Bool {
            abs(fix.coordinate!.latitude - position.latitude) < 1e-9 && abs(fix.coordinate!.longitude - position.longitude) < 1e-9
        }
        /// The same time, or the same a whole number of eras away.
        func sameTime(_ fix: LocationFix, _ position: GpsdLog.Position) -> Bool {
            guard let time = position.time else { return true }
            guard let ours = fix.utcNanoseconds else { return false }
            let apart = abs(ours - time) % Self.era
            return apart < 1_000_000 || Self.era - apart < 1_000_000
        }
        var next = 0
        for (index, position) in log.positions.enumerated() {
            if let found = positioned[next...].firstIndex(where: { samePlace($0, position) && sameTime($0, position) }) {
                reproduced += 1
                if let time = position.time {
                    if abs(positioned[found].utcNanoseconds! - time) >= 1_000_000 { otherEra += 1 }
                } else {
                    untimed += 1
                }
                next = found
                continue
            }
            let reason =
                if let other = positioned[next...].first(where: { samePlace($0, position) }) {
                    "ours is at \(other.utcNanoseconds.map { UTCTime.format($0) } ?? "no time")"
                } else if positioned[..<next].contains(where: { samePlace($0, position) && sameTime($0, position) }) {
                    "ours came before an earlier position's"
                } else {
                    "no fix of ours has it"
                }
            misses.append(Miss(index: index, position: position, reason: reason))
        }
    }
}

/// The decoder over the NMEA logs of gpsd's regression suite in the project (`Fixtures/gpsd-nmea`) and over our own
/// receiver logs: the share of gpsd's positions it reproduces (docs/reliability.md, "gpsd's regression logs").
///
/// `HAL_GPSD_LOGS=FOLDER` adds the NMEA logs of a gpsd source tree's `test/daemon` (each `NAME.log` with gpsd's
/// `NAME.log.chk`), which the project does not ship: that is how the figure over all 120 of them was measured.
@Suite struct GpsdPositionTests {
    static func agreements(in folder: URL, names: [String]) throws -> [GpsdPositionAgreement] {
        try names.map { GpsdPositionAgreement(try GpsdLog($0, in: folder)) }
    }

    @Test func atLeast99PercentOfGpsdsPositionsAreReproduced() throws {
        var regression = try Self.agreements(in: GpsdLog.folder, names: GpsdLog.names)
        let receivers = try Self.agreements(in: GpsdLog.receiverFolder, names: GpsdLog.receiverNames)
        if let extra = ProcessInfo.processInfo.environment["HAL_GPSD_LOGS"] {
            let folder = URL(fileURLWithPath: extra)
            let shipped = Set(GpsdLog.names)
            regression += try Self.agreements(in: folder, names: GpsdLog.names(in: folder).filter { !shipped.contains($0) })
        }
        for result in regression + receivers {
            print(result)
            for miss in result.misses.prefix(3) { print("    \(miss)") }
        }
        func total(_ results: [GpsdPositionAgreement], _ label: String) -> (gpsd: Int, reproduced: Int) {
            let gpsd = results.map(\.gpsd).reduce(0, +), reproduced = results.map(\.reproduced).reduce(0, +)
            let otherEra = results.map(\.otherEra).reduce(0, +)
            let percentage = String(format: "%.2f", 100 * Double(reproduced) / Double(gpsd))
            print("\(label): \(reproduced) of \(gpsd) (\(percentage)%) over \(results.count) logs, \(otherEra) of them in another GPS era")
            return (gpsd, reproduced)
        }
        let ofGpsd = total(regression, "gpsd's regression logs"), all = total(regression + receivers, "all")
        #expect(regression.count >= 14 && receivers.count == 10)
        #expect(Double(ofGpsd.reproduced) >= 0.99 * Double(ofGpsd.gpsd), "\(ofGpsd)")
        #expect(Double(all.reproduced) >= 0.99 * Double(all.gpsd), "\(all)")
        // On the logs the project ships, every position of gpsd's is reproduced. Over all 120 (HAL_GPSD_LOGS), five
        // are not, each explained in docs/reliability.md: two Ericsson $PERC positions, two in a sentence that
        // gpsfake's '|' marks split, one RMC with the malformed date 2208-1.
        let misses = (regression + receivers).flatMap { result in result.misses.map { "\(result.name) #\($0.index)" } }
        let explained: Set = [
            "april6_2019.log #0", "ericsson-gru04-02-70sec.log #7", "ericsson-gru04-02-70sec.log #252", "tcp-torture.log #0",
            "tcp-torture.log #1",
        ]
        #expect(misses.allSatisfy(explained.contains), "\(misses)")
        if ProcessInfo.processInfo.environment["HAL_GPSD_LOGS"] == nil { #expect(misses.isEmpty, "\(misses)") }
    }
}
