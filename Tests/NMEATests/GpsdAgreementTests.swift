import Foundation
import HAL
import NMEA
import Testing

/// The decoder over gpsd's own regression logs from fourteen real receivers, against the
/// TPV reports gpsd made for them. See docs/gps.md for the per-log figures and why each
/// difference is there.
@Suite struct GpsdAgreementTests {
    struct Agreement: CustomStringConvertible {
        var name = ""
        var gpsdEpochs = 0
        var found = 0
        var positions = 0
        var altitudes = 0
        var modes = 0
        /// Mode differences where the epoch's GSA says 2D though GGA gave an altitude (gpsd says 3D).
        var gsaTwoDimensional = 0
        /// Mode differences where GNS alone gave the fix: gpsd 3.22 reports mode 0 (not seen) and no position.
        var gnsAlone = 0
        var unexplained: [String] = []
        var rejected: [NMEASentence.Rejection: Int] = [:]
        /// Sentences read after noise or from a later `$`.
        var resynchronised = 0
        /// gpsd's epochs without a time (before the receiver knew the date), among ``gpsdEpochs``.
        var dateless = 0

        var description: String {
            "\(name): \(gpsdEpochs) epochs, found \(found), positions \(positions), altitudes \(altitudes), modes \(modes) "
                + "(GSA 2D \(gsaTwoDimensional), GNS alone \(gnsAlone)); \(dateless) without a date; "
                + "rejected \(rejected.map { "\($0.key) \($0.value)" }.sorted()); resynchronised \(resynchronised)"
        }
    }

    static func agreement(_ name: String, in folder: URL = GpsdLog.folder) throws -> Agreement {
        let log = try GpsdLog(name, in: folder)
        let (fixes, dateless, decoder) = log.decoded()
        var result = Agreement(
            name: name, gpsdEpochs: log.reports.count + log.datelessReports.count, rejected: decoder.statistics.rejected,
            resynchronised: decoder.statistics.resynchronised, dateless: log.datelessReports.count)
        // Timed reports by their time; those from before the date was known by their position.
        let matched: [(report: GpsdLog.Report, fix: NMEAFix?, label: String)] =
            log.reports.map { report in (report, fixes[report.time], "\(report.time)") }
            + log.datelessReports.map { report in
                // gpsd reports an epoch without a time when the date came later in it (a GGA before its RMC), or
                // never came: the same position among our epochs, dated or not.
                let samePosition = { (fix: NMEAFix) in
                    fix.coordinate.map { abs($0.latitude - report.latitude!) < 1e-9 && abs($0.longitude - report.longitude!) < 1e-9 } ?? false
                }
                let ours = dateless.first(where: samePosition) ?? fixes.values.sorted { $0.utcNanoseconds! < $1.utcNanoseconds! }.first(where: samePosition)
                return (report, ours, "no date, \(report.latitude!), \(report.longitude!)")
            }
        for (report, found, label) in matched {
            guard let fix = found else {
                result.unexplained.append("no epoch at \(label)")
                continue
            }
            result.found += 1
            if let latitude = report.latitude, let longitude = report.longitude {
                if let coordinate = fix.coordinate, abs(coordinate.latitude - latitude) < 1e-9, abs(coordinate.longitude - longitude) < 1e-9 {
                    result.positions += 1
                } else {
                    result.unexplained.append("position at \(label): \(String(describing: fix.coordinate)) vs \(latitude), \(longitude)")
                }
            } else {
                result.positions += 1
            }
            if report.mode == 3, let altitude = report.altitudeMSL, let ours = fix.altitudeMSL, abs(ours - altitude) > 1e-6 {
                result.unexplained.append("altitude at \(label): \(ours) vs \(altitude)")
            } else {
                result.altitudes += 1
            }
            let mode = switch fix.mode {
            case .none: 1
            case .twoDimensional: 2
            case .threeDimensional: 3
            }
            if mode == report.mode {
                result.modes += 1
            } else if mode == 2, report.mode == 3, fix.sentences.contains("GSA"), fix.altitudeMSL != nil {
                result.gsaTwoDimensional += 1
            } else if report.mode == 0, fix.sentences.contains("GNS"), fix.coordinate != nil {
                result.gnsAlone += 1
            } else {
                result.unexplained.append("mode at \(label): \(mode) vs gpsd \(report.mode), from \(fix.sentences)")
            }
        }
        return result
    }

    @Test(arguments: GpsdLog.names)
    func positionsModesAndTimesMatchGpsd(_ name: String) throws {
        let result = try Self.agreement(name)
        print(result)
        #expect(result.gpsdEpochs > 0)
        #expect(result.unexplained.isEmpty, "\(result.unexplained.prefix(5))")
        #expect(result.found == result.gpsdEpochs)
        #expect(result.positions == result.gpsdEpochs)
        #expect(result.altitudes == result.gpsdEpochs)
    }

    /// Our own logs, one per way a receiver can give a fix: any talker (`$IN`), RMC, GLL, GGA or GNS alone, a fix
    /// spread over an epoch's sentences, some without a time, noise and doubled `$` before sentences, fixes before
    /// the date is known (empty and all-zero dates), and GBS, GRS and DTM beside the fix. gpsd read each one to make
    /// its `.chk`.
    @Test(arguments: GpsdLog.receiverNames)
    func everyKindOfReceiverGivesTheFixesGpsdGives(_ name: String) throws {
        let result = try Self.agreement(name, in: GpsdLog.receiverFolder)
        print(result)
        #expect(result.gpsdEpochs >= 10)
        #expect(result.unexplained.isEmpty, "\(result.unexplained.prefix(5))")
        #expect(result.found == result.gpsdEpochs && result.positions == result.gpsdEpochs)
        #expect(result.rejected.isEmpty, "\(result.rejected)")
        // Where the modes differ, each difference is one docs/gps.md explains, and the logs have exactly these.
        // (gga-only.log's GGA of quality 0 from 8 satellites is a fix, as gpsd reads it, so its mode agrees too.)
        let explained = ["gns-only.log": (gsa: 0, gns: 11), "spread-epoch.log": (gsa: 5, gns: 0)][name] ?? (gsa: 0, gns: 0)
        #expect(result.gsaTwoDimensional == explained.gsa && result.gnsAlone == explained.gns, "\(result)")
        #expect(result.modes + result.gsaTwoDimensional + result.gnsAlone == result.gpsdEpochs)
        // The noisy log's sentences are all read, 18 of them from a later `$` or after noise; the logs without a date
        // for their first epochs have gpsd's undated positions among ours.
        let expected = ["resync.log": (resynchronised: 18, dateless: 1), "no-date-yet.log": (resynchronised: 0, dateless: 6), "rmc-no-date-yet.log": (resynchronised: 0, dateless: 5)][name]
        #expect(result.resynchronised == expected?.resynchronised ?? 0)
        if let dateless = expected?.dateless { #expect(result.dateless == dateless) }
    }

    @Test func theCorpusAsAWhole() throws {
        let results = try GpsdLog.names.map { try Self.agreement($0) }
        let epochs = results.map(\.gpsdEpochs).reduce(0, +)
        // 925 timed epochs, and 9 that gpsd reported without a time (a GGA before the first RMC gave the date).
        #expect(epochs == 934)
        #expect(results.map(\.positions).reduce(0, +) == epochs)
        #expect(results.map(\.modes).reduce(0, +) == epochs - 10)
        #expect(results.map(\.gsaTwoDimensional).reduce(0, +) == 10)
        // Only the one cut-off line in ublox-8 is bad; the rest of what is rejected is well formed
        // but not used: proprietary $PSRF/$PSTI and $GPTXT.
        let rejected = results.reduce(into: [NMEASentence.Rejection: Int]()) { total, result in
            total.merge(result.rejected, uniquingKeysWith: +)
        }
        #expect(rejected == [.noChecksum: 1, .unsupportedType: 138])
    }
}
