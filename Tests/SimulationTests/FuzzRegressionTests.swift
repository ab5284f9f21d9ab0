import Foundation
import Interchange
import MCAP
import Replay
import TraceFormat
import Testing
import TraceMCAP

/// Inputs `scripts/fuzz` found that crashed a parser, kept as regression tests.
@Suite struct FuzzRegressionTests {
    /// The regression corpus (`Fixtures/fuzz-regressions/TARGET/WHAT-IT-CAUGHT.EXT`), which `scripts/fuzz` also
    /// seeds its targets with: each input is refused with an error, never a crash.
    @Test func everyKeptCrashInputIsRefusedWithAnError() throws {
        let folder = try #require(Bundle.module.resourceURL).appendingPathComponent("Fixtures/fuzz-regressions")
        var count = 0
        for target in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(target).path) {
                let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(target).appendingPathComponent(name)))
                count += 1
                switch target {
                case "gpx": #expect(throws: GeoFileError.self, "\(name)") { try GeoFiles.importGPX(bytes, file: name) }
                case "kml": #expect(throws: GeoFileError.self, "\(name)") { try GeoFiles.importKML(bytes, file: name) }
                case "trace": #expect(throws: TraceError.self, "\(name)") { try Trace.decode(bytes, file: name) }
                case "fault_plans":
                    #expect(throws: ScriptError.self, "\(name)") {
                        let plan: FaultPlan = try ScriptFile.decode(bytes, file: name)
                        try plan.validate(file: name)
                    }
                case "mcap":
                    #expect(throws: MCAPError.self, "\(name)") { try MCAPReader(bytes: bytes, name: name).scan { _ in } }
                    #expect(ROS2Import.decode(bytes, file: name).trace.truncation != nil, "\(name)")
                default: Issue.record("no parser for the regression folder '\(target)'")
                }
            }
        }
        #expect(count >= 1)
    }

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

    /// A DTD would make Foundation's parser expand the entities it declares; GPX and KML have none, so a
    /// DOCTYPE is refused with its line.
    @Test func aDoctypeInGPXOrKMLIsRefusedWithItsLine() throws {
        let gpx = "<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;\">]>\n<gpx>&b;</gpx>"
        for (bytes, file) in [(Array(gpx.utf8), "doctype.gpx"), (Array(gpx.replacingOccurrences(of: "gpx", with: "kml").utf8), "doctype.kml")] {
            do {
                _ = try file.hasSuffix(".gpx") ? GeoFiles.importGPX(bytes, file: file) : GeoFiles.importKML(bytes, file: file)
                Issue.record("\(file): a DOCTYPE was parsed")
            } catch {
                #expect("\(error)" == "\(file):2: a DOCTYPE is not allowed; GPX and KML files have no DTD")
            }
        }
    }

    /// `<?name?>`, a processing instruction with no data, crashed Foundation's parser (it took the length of
    /// a null string). Refused with its line; one with data, such as a stylesheet, still parses.
    @Test func aProcessingInstructionWithNoDataIsRefusedNotACrash() throws {
        let crash = [UInt8](Data(base64Encoded: "PD9waDhwPz5hAQBl")!)  // <?ph8p?>a..e, refused for its control characters too
        #expect(throws: GeoFileError.self) { try GeoFiles.importGPX(crash, file: "crash.gpx") }
        do {
            _ = try GeoFiles.importGPX(Array("<gpx>\n<?ph8p?></gpx>".utf8), file: "crash.gpx")
            Issue.record("parsed")
        } catch {
            #expect("\(error)" == "crash.gpx:2: a processing instruction with no data (<?name?>) is not allowed")
        }
        let styled = #"<?xml version="1.0"?><?xml-stylesheet href="a.css"?><gpx><trk><trkseg><trkpt lat="49.26" lon="-123.25"/></trkseg></trk></gpx>"#
        #expect(try GeoFiles.importGPX(Array(styled.utf8), file: "styled.gpx").track?.fixes.count == 1)
    }

    /// Foundation's parser keeps every error it reports; a file with thousands of errors grew memory by 46 KB a
    /// parse under scripts/fuzz. The first error now ends the parse, and is the one reported.
    @Test func aFileFullOfErrorsStopsAtTheFirstWithItsLine() throws {
        let broken = "<gpx>\n<trk>\n<trkseg>" + String(repeating: "<trkpt lat=1></x>", count: 2000) + "</trkseg></trk></gpx>"
        do {
            _ = try GeoFiles.importGPX(Array(broken.utf8), file: "broken.gpx")
            Issue.record("parsed")
        } catch {
            #expect("\(error)".hasPrefix("broken.gpx:3: not well-formed XML: "), "\(error)")
        }
    }

    /// Leading NULs made Foundation's parser guess a UCS-4 encoding, and stopping it at the first error there
    /// crashed libxml2. Control characters (which XML forbids) and encodings other than UTF-8 are refused first.
    @Test func controlCharactersAndOtherEncodingsAreRefusedBeforeParsing() throws {
        let gpx = [UInt8](Data(base64Encoded: "AAAAPAEJAAAAAABFLUNT")!)
        let kml = [UInt8](Data(base64Encoded: "AAAAPGttbD48UGxhY2VtYXJrPjxMaW5lU3RyaW5nPjxjb29yZGluYXRlcz4tMTIzLjUsNDkuMjg2LDAgLTEyLCwsLAAsLCwsLCwsLCwzLDIsNTEsMy4yODAgLTEyLCwsLCwsLCwsLCwsLDEuMjYxLDgwPC9jb29yZGluYXRlcz48L0xpbmVTdHJpbmc+PC9QbGFjZW1hcms+PC9rbWw+")!)
        for (name, attempt) in [("crash.gpx", { try GeoFiles.importGPX(gpx, file: "crash.gpx") }), ("crash.kml", { try GeoFiles.importKML(kml, file: "crash.kml") })] {
            do {
                _ = try attempt()
                Issue.record("\(name) parsed")
            } catch {
                #expect("\(error)" == "\(name):1: control character 0x0 (byte 1) is not allowed in XML")
            }
        }
        let utf16 = #"<?xml version="1.0" encoding="UTF-16"?><gpx/>"#
        do {
            _ = try GeoFiles.importGPX(Array(utf16.utf8), file: "wide.gpx")
            Issue.record("a UTF-16 declaration parsed")
        } catch {
            #expect("\(error)" == "wide.gpx:1: the XML declaration names an encoding other than UTF-8; GPX and KML are UTF-8")
        }
    }
}
