import Foundation
import HAL
import Interchange
import Synthesis
import TraceFormat
import TestSupport
import Testing
import NMEA

@Suite struct WalkScenarioTests {
    static let path = packageRoot + "/traces/ubc/main-mall-tour.walk.json"
    static let loaded = try! WalkScenario.load(path: path)
    static let trace = loaded.0.generate(places: loaded.places)
    static var fixes: [LocationFix] { trace.records.compactMap { LocationFix($0.reading) } }

    @Test func theSameSeedGivesTheSameBytesAndAnotherSeedDoesNot() throws {
        let (scenario, places) = Self.loaded
        #expect(try scenario.generate(places: places).encoded() == (try Self.trace.encoded()))
        var reseeded = scenario
        reseeded.seed += 1
        #expect(try reseeded.generate(places: places).encoded() != (try Self.trace.encoded()))
    }

    /// Seeded variants of a walk share its course (where the walker truly is, the dropouts), worked out once: a course
    /// is never shared with a walk whose route, regions or places differ.
    @Test func aCourseIsSharedOnlyByVariantsOfTheSameWalk() throws {
        let (scenario, places) = Self.loaded
        var variant = scenario
        variant.seed = 77
        let first = variant.generate(places: places)
        func noFixes(_ trace: Trace) -> Int { trace.records.compactMap { LocationFix($0.reading) }.filter { $0.coordinate == nil }.count }
        #expect(noFixes(first) > 0)
        // The same walk without its dropouts has none, although its seed and route are the same.
        var open = variant
        open.dropouts = nil
        #expect(noFixes(open.generate(places: places)) == 0)
        // Places moved move the walk.
        let moved = places.mapValues { place in
            var place = place
            place.coordinate = GeoCoordinate(latitude: place.coordinate.latitude + 0.001, longitude: place.coordinate.longitude)
            return place
        }
        #expect(variant.generate(places: moved).records.first != first.records.first)
        // And the variant again is what it was.
        #expect(try variant.generate(places: places).encoded() == (try first.encoded()))
    }

    @Test func theWalkVisitsItsPlacesOnTime() throws {
        let (scenario, places) = Self.loaded
        var clean = scenario
        clean.noise = nil
        clean.multipath = nil
        let fixes = clean.generate(places: places).records.compactMap { LocationFix($0.reading) }
        #expect(fixes.count == 1431)
        #expect(fixes.first?.utcNanoseconds == 1_788_886_800_000_000_000)  // 2026-09-08T17:00:00Z
        // Dwelling 20 s at the Rose Garden, then 1.3 m/s to Flag Pole Plaza.
        let rose = places["rose-garden"]!.coordinate, flagPole = places["flag-pole-plaza"]!.coordinate
        #expect(fixes[20].coordinate!.distance(to: rose) < 0.01)
        let arrival = 20 + rose.distance(to: flagPole) / 1.3
        // The walk goes straight on, so a second after arriving it is at most a second's walk past.
        let atPlaza = fixes[Int(arrival.rounded(.up))]
        #expect(atPlaza.coordinate!.distance(to: flagPole) < 1.4)
        let halfway = fixes[Int((20 + arrival) / 2)]
        #expect(abs(halfway.coordinate!.distance(to: rose) - halfway.coordinate!.distance(to: flagPole)) < 2)
        #expect(abs(halfway.speed! - 1.3) < 0.001)
        #expect(abs(halfway.course! - rose.bearing(to: flagPole)) < 0.01)
        #expect(fixes.last!.coordinate!.distance(to: places["museum-of-anthropology"]!.coordinate) < 0.01)
    }

    @Test func insideKoernerLibraryThereIsNoFixAndNoStaleCoordinates() {
        let fixes = Self.fixes
        let lost = fixes.indices.filter { fixes[$0].mode == .none }
        #expect(lost.count == 150)
        #expect(lost.allSatisfy { fixes[$0].coordinate == nil && fixes[$0].altitude == nil })
        // One contiguous stretch: in through the door, 90 s inside, out again.
        #expect(lost.last! - lost.first! == lost.count - 1)
        let library = Self.loaded.places["koerner-library"]!.coordinate
        #expect(fixes[lost.first! - 1].coordinate!.distance(to: library) > 20)
    }

    @Test func besideBuchananTheAccuracyIsDegraded() {
        let degraded = Self.fixes.filter { $0.satellites == 5 }
        #expect(!degraded.isEmpty)
        #expect(degraded.allSatisfy { $0.horizontalAccuracy == 9 && $0.verticalAccuracy == 15 })
        let buchanan = Self.loaded.places["buchanan"]!.coordinate
        #expect(degraded.allSatisfy { $0.coordinate!.distance(to: buchanan) < 90 + 40 })
    }

    @Test func theMultipathJumpMovesThePositionBy25MetresForSixSeconds() {
        var without = Self.loaded.0
        without.multipath = nil
        let clean = without.generate(places: Self.loaded.places).records.compactMap { LocationFix($0.reading) }
        for (index, (jumped, steady)) in zip(Self.fixes, clean).enumerated() {
            guard let a = jumped.coordinate, let b = steady.coordinate else { continue }
            if (150..<156).contains(index) {
                #expect(abs(b.distance(to: a) - 25) < 0.01, "at \(index) s")
                #expect(abs(b.bearing(to: a) - 60) < 0.1, "at \(index) s")
            } else {
                #expect(b.distance(to: a) < 1e-6, "at \(index) s")
            }
        }
    }

    @Test func theNoiseDriftsInsteadOfJumping() throws {
        // While dwelling at the Museum the truth stands still, so the fixes show the error itself.
        let fixes = Self.fixes.suffix(30)
        let steps = zip(fixes, fixes.dropFirst()).map { $0.0.coordinate!.distance(to: $0.1.coordinate!) }
        // σ 3 m with a 30 s correlation moves about 3 m · √(2/30) ≈ 0.8 m a second, never metres at once.
        #expect(steps.max()! < 2.5)
        #expect(steps.reduce(0, +) / Double(steps.count) > 0.1)
    }

    @Test func mistakesNameTheFileAndThePlace() throws {
        let folder = try makeScratchFolder()
        let cases: [(String, String)] = [
            (#"{"start": "2026-09-08T17:00:00Z", "rate": 1, "seed": 1, "route": [{"at": "library"}], "places": {}}"#, "line 1, column 74: route[0].at: no place 'library' (places: )"),
            (#"{"start": "2026-09-08T17:00:00Z", "rate": 1, "seed": 1, "route": [{"at": {"lat": 1, "lon": 2}}, {"to": {"lat": 1, "lon": 3}}]}"#, "line 1, column 97: route[1]: give a positive speed or duration, one of them"),
            (#"{"start": "yesterday", "rate": 1, "seed": 1, "route": []}"#, "line 1, column 11: start: 'yesterday' is not an ISO 8601 UTC time"),
            (#"{"start": "2026-09-08T17:00:00Z", "rate": 1, "seed": 1, "route": [{"to": {"lat": 1, "lon": 3}}]}"#, #"line 1, column 67: route[0]: the route starts with {"at": PLACE}"#),
            (#"{"start": "2026-09-08T17:00:00Z", "rate": 1, "seed": 1, "route": [{"at": {"lat": 1, "lon": 2}}], "dropout": []}"#, "line 1, column 109: dropout: unknown field"),
            (#"{"start": "2026-09-08T17:00:00Z", "rate": 1, "seed": 1, "route": [{"at": {"lat": 1, "lon": 2}}], "dropouts": [{"inside": {"lat": 1, "lon": 2}}]}"#, "line 1, column 111: dropouts[0].radius: an area needs a positive radius"),
            (#"{"start": "2026-09-08T17:00:00Z", "rate": 1, "seed": 1, "route": [{"at": {"lat": 1, "lon": 2}}], "multipath": [{"at": 5, "seconds": -1, "jump": 3}]}"#, "line 1, column 112: multipath[0]: at, seconds and jump must be 0 or more"),
            (#"{"start": "2026-09-08T17:00:00Z", "rate": 1, "seed": 1, "route": [{"at": {"lat": 91, "lon": 2}}]}"#, "line 1, column 67: route[0]: latitude 91.0, longitude 2.0 is not on the earth"),
        ]
        for (index, (text, message)) in cases.enumerated() {
            let path = folder + "/bad\(index).walk.json"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            do {
                _ = try WalkScenario.load(path: path)
                Issue.record("accepted \(text)")
            } catch {
                #expect("\(error)" == "\(path): \(message)")
            }
        }
    }
}

@Suite struct LocationTrackTests {
    static let track = try! LocationTrack(trace: WalkScenarioTests.trace)

    @Test func gpxHoldsEveryFixWithAPosition() {
        let gpx = Self.track.gpx(name: "Tour <1> & more")
        #expect(gpx.components(separatedBy: "<trkpt ").count - 1 == 1281)
        #expect(gpx.contains("<name>Tour &lt;1&gt; &amp; more</name>"))
        #expect(gpx.contains("<time>2026-09-08T17:00:00Z</time>"))
    }

    @Test func nmeaExportImportsBackWithinNMEAPrecision() throws {
        let imported = LocationTrack.importNMEA(Self.track.nmea())
        let (back, statistics, skipped) = (imported.track, imported.statistics, imported.skipped)
        #expect(statistics.rejectedCount == 0)
        #expect(skipped == 0)
        #expect(back.fixes.count == Self.track.fixes.count)
        for (original, decoded) in zip(Self.track.fixes, back.fixes) {
            #expect(decoded.utcNanoseconds == original.utcNanoseconds)
            #expect(decoded.mode == original.mode)
            #expect(decoded.timestamp == original.timestamp)
            guard let a = original.coordinate, let b = decoded.coordinate else {
                #expect(original.coordinate == nil && decoded.coordinate == nil)
                continue
            }
            #expect(a.distance(to: b) < 0.002)
            #expect(abs(decoded.altitude! - original.altitude!) <= 0.05 + 1e-9)
        }
    }

    @Test func importingARealReceiverLog() throws {
        let log = try String(contentsOfFile: packageRoot + "/Tests/NMEATests/Fixtures/gpsd-nmea/bu353s4.log", encoding: .utf8)
        let imported = LocationTrack.importNMEA(log)
        let (track, statistics, skipped) = (imported.track, imported.statistics, imported.skipped)
        #expect(track.fixes.count == 25)
        #expect(skipped == 0)
        #expect(statistics.rejectedCount == 0)
        #expect(track.fixes.first?.timestamp == .zero)
        #expect(track.fixes.first?.utcNanoseconds == 1_419_995_239_000_000_000)  // 2014-12-31T03:07:19Z
    }

    /// Fixes from before the receiver knew the date are imported, placed by their time of day, and given UTC times
    /// once a later epoch gives the date.
    @Test func fixesBeforeTheDateGetItsUTC() throws {
        let log = try String(contentsOfFile: packageRoot + "/Tests/NMEATests/Fixtures/receivers/rmc-no-date-yet.log", encoding: .utf8)
        let imported = LocationTrack.importNMEA(log)
        let (track, statistics, skipped) = (imported.track, imported.statistics, imported.skipped)
        #expect(track.fixes.count == 12 && skipped == 0 && statistics.rejectedCount == 0)
        #expect(track.fixes.allSatisfy { $0.coordinate != nil })
        // 2026-11-20T10:00:00Z, one a second.
        #expect(track.fixes.map(\.utcNanoseconds) == (0..<12).map { 1_795_168_800_000_000_000 + Int64($0) * 1_000_000_000 })
        #expect(track.fixes.map(\.timestamp.nanoseconds) == (0..<12).map { Int64($0) * 1_000_000_000 })
    }

    @Test func scrubbingHidesTheStartAndTheEnd() {
        let scrubbed = Self.track.scrubbed(radius: 100, decimals: 4)
        let start = Self.track.fixes.first!.coordinate!, end = Self.track.fixes.last!.coordinate!
        #expect(scrubbed.fixes.count < Self.track.fixes.count - 100)
        let positioned = scrubbed.fixes.compactMap(\.coordinate)
        #expect(positioned.first!.distance(to: start) > 95)
        #expect(positioned.last!.distance(to: end) > 95)
        #expect(positioned.allSatisfy { ($0.latitude * 1e4).rounded() / 1e4 == $0.latitude && ($0.longitude * 1e4).rounded() / 1e4 == $0.longitude })
        #expect(Self.track.scrubbed(radius: 100_000).fixes.isEmpty)
    }
}
