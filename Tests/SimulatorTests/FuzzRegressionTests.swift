import Foundation
import Simulator
import Testing

/// Inputs `scripts/fuzz` found that crashed a parser, kept as regression tests.
@Suite struct FuzzRegressionTests {
    /// GPX and KML with bytes that are not UTF-8 in element names trapped inside Foundation's XMLParser.
    @Test func geoFilesThatAreNotUTF8AreRefusedNamingTheByte() throws {
        let gpx = [UInt8](Data(base64Encoded: "PGdweD48dHJrPjx0cmtzZWc+PHRycmtrcHQgbGtwdD48Z3B4//////////////8+PHRyaz48dHJrc65lZz48dHJrcHQgbGtwdD48L3Rya3NlZz48L3RylcY8L2c8L3Rya3NlZz48L3Ryaz48L2dweD4=")!)
        let kml = [UInt8](Data(base64Encoded: "PGttbD48UGxhY2X//////////25lU3RyaW4zLjI1MSw0OS4yNjEsODA8L2Nvb4tyZGluYXRlcz48L0xpbmVTdHJpbmc+PC9QbGFjZW1hcms+PC9rbWw+")!)
        #expect(throws: GeoFileError.self) { try GeoFiles.importGPX(gpx, file: "crash.gpx") }
        #expect(throws: GeoFileError.self) { try GeoFiles.importKML(kml, file: "crash.kml") }
        do { _ = try GeoFiles.importGPX(gpx, file: "crash.gpx") } catch {
            #expect("\(error)".contains("not UTF-8 text (byte"), "\(error)")
        }
    }

    /// A GPX time in the year 4052 overflowed 64-bit nanoseconds after Foundation's ISO 8601 parser took it.
    @Test func aGPXTimeBeyond2262IsAClearError() throws {
        let gpx = #"<gpx><trk><trkseg><trkpt lat="34.26" lon="-123.25"><time>4052-09-08T17:00:00.5Z</time></trkpt></trkseg></trk></gpx>"#
        do {
            _ = try GeoFiles.importGPX(Array(gpx.utf8), file: "crash.gpx")
            Issue.record("a time in 4052 was accepted")
        } catch {
            #expect("\(error)".contains("<time> '4052-09-08T17:00:00.5Z' is not an ISO 8601 time"), "\(error)")
        }
    }
}
