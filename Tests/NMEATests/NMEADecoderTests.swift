import HAL
import NMEA
import Testing

@Suite struct NMEADecoderTests {
    let encoder = NMEAEncoder()

    /// A correctly checksummed sentence from a body such as `GPRMC,...`.
    func line(_ body: String) -> String {
        let fields = body.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return NMEAEncoder(talker: String(body.prefix(2))).sentence(String(body.dropFirst(2).prefix(3)), Array(fields.dropFirst()))
    }

    func decodeAll(_ lines: [String], decoder: inout NMEADecoder) -> [NMEAFix] {
        var fixes = lines.compactMap { decoder.decode(line: $0) }
        if let last = decoder.finish() { fixes.append(last) }
        return fixes
    }

    @Test func checksumsAreCheckedAndBadLinesCountedByReason() {
        var decoder = NMEADecoder()
        let good = line("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        var corrupted = Array(good)
        corrupted[10] = "9"
        let lines = [
            good,
            String(corrupted),                                       // bad checksum
            String(good.prefix(30)),                                 // truncated
            "\u{01}\u{FF}garbage\u{7F}",                             // no start
            "$GPGGA,1235\u{07}19,4807.038*00",                       // control character
            line("GPRMC,123519,A,4807.038,N,01131.000,E"),           // fine: a short RMC is still valid
            line("GPZZZ,1,2,3"),                                     // unsupported type
            line("GPGGA,123520,48x7.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),  // malformed field
            "",
        ]
        let fixes = decodeAll(lines, decoder: &decoder)
        #expect(decoder.statistics.rejected == [.badChecksum: 1, .noChecksum: 1, .noStart: 1, .badCharacters: 1, .unsupportedType: 1, .badField: 1])
        #expect(decoder.statistics.decoded == ["GGA": 1, "RMC": 1])
        #expect(decoder.statistics.decodedCount == 2 && decoder.statistics.rejectedCount == 6)
        #expect(fixes.count == 1)
        #expect(fixes[0].coordinate == GeoCoordinate(latitude: 48 + 7.038 / 60, longitude: 11 + 31.0 / 60))
    }

    /// A sentence is read from the last `$` before its checksum: noise, a doubled `$` or a cut-off sentence before it
    /// is passed over and counted, never taken as a bad checksum.
    @Test func sentencesAreResynchronisedAtTheirLastDollar() {
        var decoder = NMEADecoder()
        let gga = line("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        let rmc = line("GPRMC,123519,A,4807.038,N,01131.000,E,0.1,10.0,230394,,,A")
        let fixes = decodeAll(
            ["$" + gga, "$GPGGA,12\u{07}351" + rmc, "  " + line("GPGSA,A,3,04,05,,,,,,,,,,,2.5,1.3,2.1")], decoder: &decoder)
        #expect(decoder.statistics.rejected.isEmpty)
        #expect(decoder.statistics.decoded == ["GGA": 1, "RMC": 1, "GSA": 1])
        // Leading spaces are not noise.
        #expect(decoder.statistics.resynchronised == 2)
        #expect(fixes.count == 1 && fixes[0].utcNanoseconds != nil)
        // Without its own `$`, a line is still refused for what it lacks.
        var strict = NMEADecoder()
        _ = strict.decode(line: "$GPGGA,1235$" + String(gga.dropFirst().prefix(20)))
        #expect(strict.statistics.rejected == [.noChecksum: 1] && strict.statistics.resynchronised == 0)
    }

    /// An empty or all-zero date is one the receiver does not know yet: the position is kept, with its time of day
    /// and no UTC time; a date out of range is still a bad field.
    @Test func zeroDatesAreNotKnownYet() {
        var decoder = NMEADecoder()
        let fixes = decodeAll([
            line("GPRMC,100000.00,A,4915.6360,N,12314.7600,W,2.7,45.0,,,,A"),
            line("GPRMC,100001.00,A,4915.6366,N,12314.7594,W,2.7,45.0,000000,,,A"),
            line("GPZDA,100002.00,00,00,0000,00,00"),
            line("GPRMC,100002.00,A,4915.6372,N,12314.7588,W,2.7,45.0,000000,,,A"),
            line("GPRMC,100003.00,A,4915.6378,N,12314.7582,W,2.7,45.0,201126,,,A"),
            line("GPRMC,100004.00,A,4915.6384,N,12314.7576,W,2.7,45.0,321126,,,A"),
        ], decoder: &decoder)
        #expect(decoder.statistics.rejected == [.badField: 1])
        #expect(fixes.map { $0.coordinate != nil } == [true, true, true, true])
        #expect(fixes.map(\.timeOfDay) == [36_000, 36_001, 36_002, 36_003])
        #expect(fixes.map { $0.utcNanoseconds != nil } == [false, false, false, true])
    }

    /// GBS gives the position's expected errors where no GST does; GRS and DTM belong to the epoch.
    @Test func gbsGrsAndDtmAreRead() {
        var decoder = NMEADecoder()
        let fixes = decodeAll([
            line("GPDTM,W84,,0.0,N,0.0,E,0.0,W84"),
            line("GPGGA,100000.00,4915.6360,N,12314.7600,W,1,09,0.9,18.0,M,-16.9,M,,"),
            line("GPGBS,100000.00,1.6,1.4,3.2,,,,"),
            line("GPGRS,100000.00,1,0.2,-0.4,0.1,,,,,,,,,"),
            line("GPGGA,100001.00,4915.6366,N,12314.7594,W,1,09,0.9,18.1,M,-16.9,M,,"),
            line("GPGST,100001.00,1.2,0.9,0.6,45,1.5,2.0,3.0"),
            line("GPGBS,100001.00,1.6,1.4,3.2,,,,"),
        ], decoder: &decoder)
        #expect(decoder.statistics.rejected.isEmpty)
        #expect(decoder.statistics.decoded == ["DTM": 1, "GGA": 2, "GBS": 2, "GRS": 1, "GST": 1])
        #expect(fixes.count == 2)
        #expect(fixes[0].datum?.code == "W84" && fixes[0].sentences == ["DTM", "GGA", "GBS", "GRS"])
        #expect(fixes[0].sigmaLatitude == 1.6 && fixes[0].sigmaLongitude == 1.4 && fixes[0].sigmaAltitude == 3.2)
        // GST's σ stands where both came.
        #expect(fixes[1].sigmaLatitude == 1.5 && fixes[1].sigmaLongitude == 2.0 && fixes[1].sigmaAltitude == 3.0)
    }

    @Test func everySentenceTypeContributesToItsEpoch() throws {
        var decoder = NMEADecoder()
        let fixes = decodeAll([
            line("GNGGA,092750.000,5321.6802,N,00630.3372,W,1,8,1.03,61.7,M,55.2,M,,"),
            line("GNGSA,A,3,10,07,05,02,29,04,08,13,,,,,1.72,1.03,1.38,1"),
            line("GLGSV,1,1,02,65,30,100,40,66,50,200,45"),
            line("GNRMC,092750.000,A,5321.6802,N,00630.3372,W,0.02,31.66,280511,,,A"),
            line("GNVTG,31.66,T,,M,0.02,N,0.04,K,A"),
            line("GAGLL,5321.6802,N,00630.3372,W,092750.000,A,A"),
            line("GPGST,092750.000,1.2,0.9,0.6,45,1.5,2.0,3.0"),
            line("GBZDA,092750.000,28,05,2011,00,00"),
            line("GQGNS,092751.000,5321.6803,N,00630.3373,W,AAN,08,1.0,61.8,55.2,,,V"),
            line("BDGSA,A,3,01,02,03,,,,,,,,,,2.0,1.0,1.7"),
        ], decoder: &decoder)
        #expect(fixes.count == 2)
        let first = fixes[0]
        #expect(first.mode == .threeDimensional)
        #expect(first.utcNanoseconds == 1_306_574_870_000_000_000)  // 2011-05-28T09:27:50Z
        #expect(abs(first.coordinate!.latitude - 53.36133666) < 1e-8)
        #expect(abs(first.coordinate!.longitude + 6.50562) < 1e-8)
        #expect(first.altitudeMSL == 61.7)
        #expect(first.satellitesUsed == 8)
        #expect(first.hdop == 1.03 && first.vdop == 1.38 && first.pdop == 1.72)
        #expect(abs(first.speed! - 0.02 * 1852 / 3600) < 1e-12)
        #expect(first.course == 31.66)
        // Accuracy from GST: √(1.5² + 2²) = 2.5 m.
        #expect(first.horizontalAccuracy == 2.5)
        #expect(first.verticalAccuracy == 3.0)
        #expect(first.sentences == ["GGA", "GSA", "GSV", "RMC", "VTG", "GLL", "GST", "ZDA"])
        // The GNS epoch one second later keeps the date and is 3D from its altitude and BD's GSA.
        #expect(fixes[1].utcNanoseconds == 1_306_574_871_000_000_000)
        #expect(fixes[1].mode == .threeDimensional)
        let reading = fixes[1].locationFix(at: Timestamp(nanoseconds: 5))
        #expect(reading.altitude == 61.8)
        #expect(reading.horizontalAccuracy == 5.0)  // no GST: HDOP 1.0 × 5 m
    }

    @Test func lossAndRecoveryOfFixNeverShowStaleCoordinates() {
        var decoder = NMEADecoder()
        let fixes = decodeAll([
            line("GPRMC,120000,A,4916.45,N,12311.12,W,0.5,54.7,211126,,,A"),
            line("GPGGA,120000,4916.45,N,12311.12,W,1,06,1.2,80.0,M,-17.0,M,,"),
            line("GPRMC,120001,V,,,,,,,211126,,,N"),
            line("GPGGA,120001,,,,,0,00,,,M,,M,,"),
            line("GPRMC,120002,V,4916.45,N,12311.12,W,,,211126,,,N"),
            line("GPRMC,120003,A,4916.46,N,12311.13,W,0.4,50.0,211126,,,A"),
        ], decoder: &decoder)
        #expect(fixes.map(\.mode) == [.threeDimensional, .none, .none, .twoDimensional])
        let readings = fixes.map { $0.locationFix(at: .zero) }
        #expect(readings[1].coordinate == nil)
        #expect(readings[2].coordinate == nil)  // a receiver repeating its last position with status V
        #expect(readings[3].coordinate != nil)
    }

    /// A chartplotter's GGA and its GLL, stamped a second later, give different positions at one time: each is a
    /// fix of its own, in order, as gpsd reports each cycle; the later one carries on the altitude.
    @Test func theSameTimeWithAnotherPositionIsAnotherFix() {
        var decoder = NMEADecoder()
        let fixes = decodeAll([
            line("GPRMC,094816,A,5250.9713,N,00518.7344,E,5.5,237.9,200818,1.4,E,A"),
            line("GPGGA,094816,5250.9705,N,00518.7323,E,1,12,0.60,-5,M,46.8,M,,"),
            line("GPGLL,5250.9705,N,00518.7323,E,094817,A,A"),
            line("GPRMC,094817,A,5250.9705,N,00518.7323,E,5.7,238.1,200818,1.4,E,A"),
            line("GPGGA,094817,5250.9696,N,00518.7305,E,1,12,0.60,-5,M,46.8,M,,"),
        ], decoder: &decoder)
        #expect(fixes.map(\.sentences) == [["RMC"], ["GGA"], ["GLL", "RMC"], ["GGA"]])
        let minutes: [Double] = [50.9713, 50.9705, 50.9705, 50.9696]
        #expect(fixes.map { $0.coordinate?.latitude } == minutes.map { 52 + $0 / 60 })
        let second = 1_534_758_496_000_000_000 as Int64  // 2018-08-20T09:48:16Z
        #expect(fixes.map(\.utcNanoseconds) == [second, second, second + 1_000_000_000, second + 1_000_000_000])
        #expect(fixes.map(\.mode) == [.twoDimensional, .threeDimensional, .twoDimensional, .threeDimensional])
        // The GGA's cycle carries on the RMC's speed.
        #expect(fixes[3].altitudeMSL == -5 && abs(fixes[3].speed! - 5.7 * 1852 / 3600) < 1e-12)
        #expect(decoder.statistics.epochs == 4)
        // Both cycles of one time go on the timeline at that time.
        var timeline = EpochTimeline()
        #expect(fixes.compactMap { timeline.fix(for: $0)?.timestamp.nanoseconds } == [0, 0, 1_000_000_000, 1_000_000_000])
        #expect(timeline.skipped == 0 && timeline.clockJumps.isEmpty)
    }

    /// A receiver's clock that goes back (two sessions spliced into one log) loses no epoch: each is kept, the
    /// timeline carries on from where it was at the receiver's spacing, and the jump is recorded where it happened.
    @Test func aClockThatGoesBackKeepsEveryEpochAndIsFlagged() throws {
        var decoder = NMEADecoder()
        var timeline = EpochTimeline()
        let fixes = decodeAll([
            line("GPRMC,152508.00,A,5547.82150,N,02334.14092,E,0.309,,091209,,,A"),
            line("GPRMC,152508.50,A,5547.82156,N,02334.14086,E,0.296,,091209,,,A"),
            line("GPRMC,143306.00,A,5546.83315,N,02334.72613,E,30.3,221.2,091209,,,A"),
            line("GPRMC,143306.50,A,5546.82983,N,02334.72123,E,30.3,221.2,091209,,,A"),
        ], decoder: &decoder).compactMap { timeline.fix(for: $0) }
        #expect(fixes.count == 4 && timeline.skipped == 0)
        #expect(fixes.map(\.timestamp.nanoseconds) == [0, 500_000_000, 500_000_000, 1_000_000_000])
        // The fixes keep the receiver's own times.
        let before = try #require(UTCTime.parse("2009-12-09T15:25:08.5Z")), after = try #require(UTCTime.parse("2009-12-09T14:33:06Z"))
        #expect(fixes[1].utcNanoseconds == before && fixes[2].utcNanoseconds == after)
        let jump = try #require(timeline.clockJumps.first)
        #expect(timeline.clockJumps.count == 1 && jump.fix == 2 && jump.back == before - after)
        #expect(jump.description.hasPrefix("the receiver's clock went back 3122.5 s (from 2009-12-09T15:25:08.5"), "\(jump)")
    }

    /// A ZDA stamped two seconds ahead of the RMC and GGA around it is no epoch of its own: the next position joins
    /// it, so the timeline never goes back.
    @Test func aZDAStampedAheadJoinsTheNextPosition() {
        var decoder = NMEADecoder()
        var timeline = EpochTimeline()
        let fixes = decodeAll([
            line("GPRMC,193221.00,A,2037.7279,N,08704.0848,W,00.1,201.8,231207,01,W,A"),
            line("GPZDA,193223.00,23,12,2007,00,00"),
            line("GPGGA,193222.00,2037.72832,N,08704.08469,W,1,04,1.7,-30.00,M,-13.9,M,,"),
            line("GPZDA,193224.00,23,12,2007,00,00"),
            line("GPGGA,193223.00,2037.72880,N,08704.08455,W,1,04,1.7,-29.55,M,-13.9,M,,"),
        ], decoder: &decoder)
        #expect(fixes.map(\.sentences) == [["RMC"], ["ZDA", "GGA"], ["ZDA", "GGA"]])
        #expect(fixes.compactMap { timeline.fix(for: $0)?.timestamp.nanoseconds } == [0, 1_000_000_000, 2_000_000_000])
        #expect(timeline.clockJumps.isEmpty)
    }

    /// A valid fix followed, before the next time, by a GSA `1` and empty GGA and RMC sentences without a time
    /// (a Quectel losing its fix) is kept; the loss is the next epoch, at the same time.
    @Test func emptySentencesWithoutATimeDoNotWipeAValidFix() {
        var decoder = NMEADecoder()
        let fixes = decodeAll([
            line("GPGGA,022038.00,3644.762563,S,17444.069733,E,1,06,1.1,53.0,M,37.0,M,,"),
            line("GPRMC,022038.00,A,3644.762563,S,17444.069733,E,0.0,,071020,18.3,E,A,V"),
            line("GPGSA,A,2,06,07,11,19,22,30,,,,,,,1.4,1.1,0.9,1"),
            line("GPVTG,,T,,M,,N,,K,N"),
            line("GPGSA,A,1,,,,,,,,,,,,,,,,"),
            line("GPGGA,,,,,,0,,,,,,,,"),
            line("GPRMC,,V,,,,,,,,,,N"),
        ], decoder: &decoder)
        #expect(fixes.map(\.mode) == [.twoDimensional, .none])
        #expect(fixes[0].coordinate != nil && fixes[1].coordinate == nil)
        #expect(fixes[1].sentences == ["GSA", "GGA", "RMC"] && fixes[1].utcNanoseconds == fixes[0].utcNanoseconds)
    }

    /// gpsd reads a GGA of quality 0 (or none) with a position from 3 or more satellites as a fix, and a fix that
    /// comes within an epoch that said there was none (a Garmin in simulator mode: RMC `V`, GGA quality 8, GLL `V`)
    /// as a cycle of its own; without a position, or from fewer than 3 satellites, quality 0 stays no fix.
    @Test func noFixSentencesAreReadAsGpsdReadsThem() {
        var decoder = NMEADecoder()
        let fixes = decodeAll([
            line("GPGGA,071734.929,4404.1178,N,12118.8608,W,0,4,,1127.8,M,-19.6,M,,"),
            line("GPGGA,071735.929,4404.1178,N,12118.8608,W,0,2,,1127.8,M,-19.6,M,,"),
            line("GPGGA,071736.929,4404.1178,N,12118.8608,W,,3,,1127.8,M,-19.6,M,,"),
            line("GPRMC,125106,V,3854.5087,N,07726.4523,W,0.0,0.0,241011,10.5,W,S"),
            line("GPGGA,125106,3854.5087,N,07726.4523,W,8,10,2.0,268.8,M,-33.9,M,,"),
            line("GPGSA,A,3,03,07,08,11,13,16,19,23,24,28,,,3.6,2.0,3.0"),
            line("GPGLL,3854.5087,N,07726.4523,W,125106,V,S"),
        ], decoder: &decoder)
        #expect(decoder.statistics.rejected.isEmpty)
        #expect(fixes.map(\.mode) == [.threeDimensional, .none, .threeDimensional, .none, .threeDimensional, .none])
        #expect(fixes.map(\.sentences) == [["GGA"], ["GGA"], ["GGA"], ["RMC"], ["GGA", "GSA"], ["GLL"]])
        #expect(fixes[5].locationFix(at: .zero).coordinate == nil)
    }

    @Test func theGPSWeekRolloverIsCorrected() {
        var decoder = NMEADecoder()
        // A receiver with the 1024-week bug reports 1999-08-27 for 2019-04-12.
        let fix = decodeAll([line("GPRMC,101500,A,4916.45,N,12311.12,W,,,270899,,,A")], decoder: &decoder)[0]
        #expect(fix.utcNanoseconds == 1_555_064_100_000_000_000)  // 2019-04-12T10:15:00Z
        var older = NMEADecoder()
        older.rolloverPivot = 0
        let raw = decodeAll([line("GPRMC,101500,A,4916.45,N,12311.12,W,,,270899,,,A")], decoder: &older)[0]
        #expect(raw.utcNanoseconds == 935_748_900_000_000_000)  // 1999-08-27T10:15:00Z as reported
    }

    @Test func midnightMovesTheDateOn() {
        var decoder = NMEADecoder()
        let fixes = decodeAll([
            line("GPRMC,235959,A,4916.45,N,12311.12,W,,,311226,,,A"),
            line("GPGGA,000000,4916.45,N,12311.12,W,1,06,1.2,80.0,M,-17.0,M,,"),
        ], decoder: &decoder)
        #expect(fixes.map(\.utcNanoseconds) == [1_798_761_599_000_000_000, 1_798_761_600_000_000_000])  // 2026-12-31T23:59:59Z, 2027-01-01T00:00:00Z
    }

    @Test func anRMCWithTheNewDateAtMidnightIsNotMovedOnTwice() {
        var decoder = NMEADecoder()
        let fixes = decodeAll([
            line("GPRMC,235959,A,4916.45,N,12311.12,W,,,311226,,,A"),
            line("GPRMC,000000,A,4916.45,N,12311.12,W,,,010127,,,A"),
            line("GPRMC,000001,A,4916.45,N,12311.12,W,,,010127,,,A"),
        ], decoder: &decoder)
        #expect(fixes.map(\.utcNanoseconds) == [1_798_761_599_000_000_000, 1_798_761_600_000_000_000, 1_798_761_601_000_000_000])
    }

    @Test func sentencesWithoutATimeJoinTheNextTimedOne() {
        var decoder = NMEADecoder()
        // Opening a receiver mid-burst: a GSA first, then the epoch's timed sentences.
        let fixes = decodeAll([
            line("GPGSA,A,3,01,02,03,04,,,,,,,,,1.5,0.9,1.2"),
            line("GPRMC,120000,A,4916.45,N,12311.12,W,,,211126,,,A"),
            line("GPGGA,120000,4916.45,N,12311.12,W,1,06,1.2,80.0,M,-17.0,M,,"),
        ], decoder: &decoder)
        #expect(fixes.count == 1)
        #expect(fixes.first?.mode == .threeDimensional)
        #expect(fixes.first?.sentences == ["GSA", "RMC", "GGA"])
    }

    @Test func signsAreMalformedInTimesAndAngles() {
        var decoder = NMEADecoder()
        _ = decodeAll([
            line("GPGGA,1200-5,4916.45,N,12311.12,W,1,06,1.2,80.0,M,-17.0,M,,"),
            line("GPGGA,120000,49-6.45,N,12311.12,W,1,06,1.2,80.0,M,-17.0,M,,"),
        ], decoder: &decoder)
        #expect(decoder.statistics.rejected == [.badField: 2])
    }

    @Test func aLogWithoutDatesIsPlacedByTimeOfDay() {
        var decoder = NMEADecoder()
        var timeline = EpochTimeline()
        let lines = [
            line("GPGGA,235958,4916.45,N,12311.12,W,1,06,1.2,80.0,M,-17.0,M,,"),
            line("GPGGA,235959,4916.46,N,12311.12,W,1,06,1.2,80.0,M,-17.0,M,,"),
            line("GPGGA,000000,4916.47,N,12311.12,W,1,06,1.2,80.0,M,-17.0,M,,"),
        ]
        let fixes = decodeAll(lines, decoder: &decoder).compactMap { timeline.fix(for: $0) }
        #expect(fixes.map(\.timestamp.nanoseconds) == [0, 1_000_000_000, 2_000_000_000])
        #expect(fixes.allSatisfy { $0.utcNanoseconds == nil && $0.coordinate != nil })
    }

    @Test func aLogThatGainsADateLaterMovesOntoUTCWithoutAJump() {
        // A GGA before the first RMC, just before midnight: placed by time of day, then the
        // dated epochs carry on one second at a time, across midnight.
        var decoder = NMEADecoder()
        var timeline = EpochTimeline()
        let lines = [
            line("GPGGA,235959,4916.45,N,12311.12,W,1,06,1.2,80.0,M,-17.0,M,,"),
            line("GPRMC,000000,A,4916.46,N,12311.12,W,0.5,54.7,220926,,,A"),
            line("GPGGA,000000,4916.46,N,12311.12,W,1,06,1.2,80.0,M,-17.0,M,,"),
            line("GPRMC,000001,A,4916.47,N,12311.12,W,0.5,54.7,220926,,,A"),
            line("GPGGA,000001,4916.47,N,12311.12,W,1,06,1.2,80.0,M,-17.0,M,,"),
        ]
        let fixes = decodeAll(lines, decoder: &decoder).compactMap { timeline.fix(for: $0) }
        #expect(fixes.map(\.timestamp.nanoseconds) == [0, 1_000_000_000, 2_000_000_000])
        let midnight = UTCTime.parse("2026-09-22T00:00:00Z")!
        #expect(fixes.map(\.utcNanoseconds) == [nil, midnight, midnight + 1_000_000_000])
        #expect(timeline.skipped == 0)
    }

    @Test func theEncoderRoundTripsThroughTheDecoder() {
        let fix = LocationFix(
            timestamp: .zero, utcNanoseconds: 1_795_262_400_250_000_000, mode: .threeDimensional,
            coordinate: GeoCoordinate(latitude: 49.2676512345, longitude: -123.2521398765), altitude: 78.46,
            horizontalAccuracy: 3.2, verticalAccuracy: 5.1, speed: 1.4, course: 271.25, satellites: 9)
        var decoder = NMEADecoder()
        let decoded = decodeAll(encoder.sentences(for: fix), decoder: &decoder)
        #expect(decoder.statistics.rejectedCount == 0)
        let back = decoded[0].locationFix(at: .zero)
        #expect(back.mode == .threeDimensional)
        #expect(back.utcNanoseconds == fix.utcNanoseconds)
        // Six decimals of minutes: within 1e-8° (about 2 mm).
        #expect(abs(back.coordinate!.latitude - 49.2676512345) < 1e-8)
        #expect(abs(back.coordinate!.longitude + 123.2521398765) < 1e-8)
        #expect(back.altitude == 78.5)
        #expect(abs(back.horizontalAccuracy! - 3.2) < 0.01)
        #expect(abs(back.speed! - 1.4) < 0.001)
        #expect(back.course == 271.25)
        #expect(back.satellites == 9)
        let lost = decodeAll(encoder.sentences(for: .noFix(at: .zero, utcNanoseconds: fix.utcNanoseconds)), decoder: &decoder)
        #expect(lost.last?.mode == FixMode.none)
        #expect(lost.last?.locationFix(at: .zero).coordinate == nil)
    }
}
