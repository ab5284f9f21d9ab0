import HAL
import Interchange
import Synthesis
import Testing
import NMEA

@Suite struct GeoFilesTests {
    static let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
          <wpt lat="49.267351" lon="-123.253656"><ele>84</ele><name>clock-tower</name></wpt>
          <wpt lat="49.266650" lon="-123.255125"><name>koerner-library</name></wpt>
          <trk><name>timed</name>
            <trkseg>
              <trkpt lat="49.269386" lon="-123.256479"><ele>88.5</ele><time>2026-09-08T17:00:00Z</time></trkpt>
              <trkpt lat="49.269300" lon="-123.256400"><ele>88.4</ele><time>2026-09-08T17:00:05.5Z</time></trkpt>
            </trkseg>
            <trkseg>
              <trkpt lat="49.269200" lon="-123.256300"><ele>88.3</ele><time>2026-09-08T17:00:10Z</time></trkpt>
            </trkseg>
          </trk>
          <rte><rtept lat="1" lon="2"/></rte>
        </gpx>
        """

    @Test func gpxTracksKeepTheirTimesAndWaypointsBecomePlaces() throws {
        let imported = try GeoFiles.importGPX(Array(Self.gpx.utf8), file: "walk.gpx")
        let fixes = try #require(imported.track?.fixes)
        #expect(fixes.map(\.timestamp.nanoseconds) == [0, 5_500_000_000, 10_000_000_000])
        #expect(fixes.first?.utcNanoseconds == 1_788_886_800_000_000_000)
        #expect(fixes.allSatisfy { $0.mode == .threeDimensional })
        #expect(fixes.last?.coordinate == GeoCoordinate(latitude: 49.2692, longitude: -123.2563))
        #expect(fixes.last?.altitude == 88.3)
        #expect(imported.places.keys.sorted() == ["clock-tower", "koerner-library"])
        #expect(imported.places["clock-tower"]?.alt == 84)
    }

    @Test func untimedRoutesAreWalkedAtTheGivenSpeed() throws {
        let gpx = """
            <gpx version="1.1"><rte>
              <rtept lat="49.269386" lon="-123.256479"/><rtept lat="49.264795" lon="-123.252795"/>
            </rte></gpx>
            """
        let fixes = try #require(try GeoFiles.importGPX(Array(gpx.utf8), file: "route.gpx", speed: 2).track?.fixes)
        let distance = fixes[0].coordinate!.distance(to: fixes[1].coordinate!)
        #expect(abs(fixes[1].timestamp.seconds - distance / 2) < 1e-6)
        #expect(fixes.allSatisfy { $0.utcNanoseconds == nil && $0.mode == .twoDimensional })
    }

    @Test func anUntimedRouteExportsAsNMEAWithIncreasingTimes() throws {
        let gpx = """
            <gpx version="1.1"><rte>
              <rtept lat="49.269386" lon="-123.256479"/><rtept lat="49.268916" lon="-123.256185"/><rtept lat="49.267351" lon="-123.253656"/>
            </rte></gpx>
            """
        let track = try #require(try GeoFiles.importGPX(Array(gpx.utf8), file: "route.gpx").track)
        let imported = LocationTrack.importNMEA(track.nmea())
        let (back, statistics, skipped) = (imported.track, imported.statistics, imported.skipped)
        #expect(statistics.rejectedCount == 0 && skipped == 0)
        #expect(back.fixes.count == 3)
        #expect(back.fixes.map(\.timestamp) == track.fixes.map(\.timestamp).map { Timestamp(nanoseconds: ($0.nanoseconds + 500_000) / 1_000_000 * 1_000_000) })
    }

    @Test func gpxHasNoScientificNotation() throws {
        let track = LocationTrack(channel: "gps", fixes: [LocationFix(
            timestamp: .zero, mode: .threeDimensional, coordinate: GeoCoordinate(latitude: 0.00001, longitude: -0.000002), altitude: 0.00004)])
        let gpx = track.gpx(name: "equator")
        #expect(gpx.contains(#"<trkpt lat="0.00001" lon="-0.000002"><ele>0</ele>"#))
        #expect(!gpx.contains("e-"))
    }

    @Test func kmlPointsLineStringsAndTracks() throws {
        let kml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document>
              <Placemark><name>Rose Garden</name><Point><coordinates>-123.256479,49.269386,88</coordinates></Point></Placemark>
              <Placemark><name>walk</name><gx:Track>
                <when>2026-09-08T17:00:00Z</when><when>2026-09-08T17:00:01Z</when>
                <gx:coord>-123.256479 49.269386 88</gx:coord><gx:coord>-123.256470 49.269380 88.1</gx:coord>
              </gx:Track></Placemark>
            </Document></kml>
            """
        let imported = try GeoFiles.importKML(Array(kml.utf8), file: "walk.kml")
        #expect(imported.places["Rose Garden"]?.coordinate.latitude == 49.269386)
        let fixes = try #require(imported.track?.fixes)
        #expect(fixes.map(\.timestamp.nanoseconds) == [0, 1_000_000_000])
        #expect(fixes[1].coordinate == GeoCoordinate(latitude: 49.26938, longitude: -123.25647))
        let line = """
            <kml><Placemark><LineString><coordinates>
              -123.256479,49.269386 -123.252795,49.264795
            </coordinates></LineString></Placemark></kml>
            """
        let walked = try #require(try GeoFiles.importKML(Array(line.utf8), file: "line.kml").track?.fixes)
        #expect(walked.count == 2)
        #expect(abs(walked[1].timestamp.seconds - walked[0].coordinate!.distance(to: walked[1].coordinate!) / 1.4) < 1e-6)
    }

    @Test func anExportedWalkImportsBack() throws {
        let track = try LocationTrack(trace: WalkScenarioTests.trace)
        let imported = try #require(try GeoFiles.importGPX(Array(track.gpx(name: "tour").utf8), file: "tour.gpx").track)
        let positioned = track.fixes.filter { $0.coordinate != nil }
        #expect(imported.fixes.count == positioned.count)
        for (original, back) in zip(positioned, imported.fixes) {
            #expect(back.utcNanoseconds == original.utcNanoseconds)
            #expect(back.coordinate == original.coordinate)
            #expect(back.altitude == original.altitude)
        }
    }

    @Test(arguments: [
        (#"<gpx><trk><trkseg><trkpt lat="north" lon="1"/></trkseg></trk></gpx>"#, "bad.gpx:1: <trkpt> needs numeric lat and lon attributes"),
        ("<gpx><trk><trkseg>\n<trkpt lat=\"95\" lon=\"1\"/></trkseg></trk></gpx>", "bad.gpx:2: latitude 95.0, longitude 1.0 is not on the earth"),
        ("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"1\">\n<time>noon</time></trkpt></trkseg></trk></gpx>", "bad.gpx:2: <time> 'noon' is not an ISO 8601 time"),
        ("<kml></kml>", "bad.gpx:1: not GPX: the root element is <kml>"),
    ])
    func badFilesNameTheLineAndTheElement(_ text: String, _ message: String) {
        do {
            _ = try GeoFiles.importGPX(Array(text.utf8), file: "bad.gpx")
            Issue.record("accepted \(text)")
        } catch {
            #expect("\(error)" == message)
        }
    }

    /// libxml2's warnings are not errors: a relative namespace URI (a warning in libxml2) still parses, with entities
    /// and CDATA read as text.
    @Test func aWarningIsNotAnError() throws {
        let gpx = #"<gpx xmlns="gpx"><wpt lat="49.26" lon="-123.25"><name>A &amp; B <![CDATA[<here>]]></name></wpt></gpx>"#
        let imported = try GeoFiles.importGPX(Array(gpx.utf8), file: "relative.gpx")
        #expect(imported.places.keys.sorted() == ["A & B <here>"])
    }

    @Test func malformedXMLSaysWhere() {
        do {
            _ = try GeoFiles.importGPX(Array("<gpx>\n<trk>\n</gpx>".utf8), file: "cut.gpx")
            Issue.record("accepted malformed XML")
        } catch {
            // Foundation's parser on Linux recovers from the missing </trk> in its own way; the error
            // still names the file, the line, and an element left open or mismatched.
            #expect("\(error)".hasPrefix("cut.gpx:3: not well-formed XML: "))
            #expect("\(error)".contains("is never closed") || "\(error)".contains("does not match") || "\(error)".contains("</trk>"))
        }
    }
}
