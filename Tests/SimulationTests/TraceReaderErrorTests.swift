import Foundation
import HAL
import Replay
import Synthesis
import TraceFormat
import Testing
import TestSupport

/// Every way a trace can be bad gets an error naming the file, the line and the field.
@Suite struct TraceReaderErrorTests {
    static let header = #"{"format":"hal-trace","version":1,"channels":[{"id":"gyro","kind":"gyroscope","source":"test:gyro","units":"rad/s","rate":100},{"id":"cam","kind":"camera","source":"test:cam"}]}"#
    static let good = #"{"t":10,"ch":"gyro","v":[0.1,0.2,0.3]}"#

    func expectError(
        _ lines: [String], kind: TraceError.Kind, line: Int, field: String?, message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let trace = try decode(lines, file: "walk.jsonl")
            Issue.record("accepted a bad trace with \(trace.records.count) records", sourceLocation: sourceLocation)
        } catch {
            #expect(error.kind == kind, sourceLocation: sourceLocation)
            #expect(error.file == "walk.jsonl", sourceLocation: sourceLocation)
            #expect(error.line == line, sourceLocation: sourceLocation)
            #expect(error.field == field, sourceLocation: sourceLocation)
            #expect(error.description == "walk.jsonl:\(line): " + (field.map { "field '\($0)': " } ?? "") + message, sourceLocation: sourceLocation)
        }
    }

    @Test func malformedJSON() {
        expectError(
            [Self.header, Self.good, #"{"t":20,"ch":"gyro","v":[0.1,0.2 0.3]}"#],
            kind: .malformedJSON, line: 3, field: nil, message: "column 34: expected ',' or ']' in an array")
        expectError(
            [Self.header, #"{"t":20,"ch":"gyro","v":[1,2,3]} trailing"#],
            kind: .malformedJSON, line: 2, field: nil, message: "column 34: unexpected text after the JSON value")
        expectError(
            [Self.header, #"{"t":020,"ch":"gyro","v":[1,2,3]}"#],
            kind: .malformedJSON, line: 2, field: nil, message: "column 6: leading zero in a number")
    }

    @Test func unknownChannel() {
        expectError(
            [Self.header, Self.good, #"{"t":20,"ch":"gps","v":[1,2,3]}"#],
            kind: .unknownChannel, line: 3, field: "ch", message: "no channel 'gps' in the header (channels: gyro, cam)")
    }

    @Test func timestampsGoingBackwardsInAChannel() {
        expectError(
            [Self.header, #"{"t":30,"ch":"gyro","v":[1,2,3]}"#, #"{"t":25,"ch":"cam","seq":1,"width":2,"height":2,"format":"GREY","file":"f/1.raw"}"#, #"{"t":29,"ch":"gyro","v":[1,2,3]}"#],
            kind: .timestampBackwards, line: 4, field: "t", message: "29 is earlier than 30 before it in channel 'gyro'")
    }

    /// Motion lines as people write them by hand (spaces, tabs, other key orders) decode like the writer's lines,
    /// through the one-pass decoder; what it does not take still gets the strict path's errors.
    @Test func handWrittenMotionLinesDecodeAsTheWritersLinesAndBadOnesKeepTheirErrors() throws {
        let canonical = #"{"t":10,"ch":"gyro","v":[0.1,-2.5e-07,3.0]}"#
        let expected = try decode([Self.header, canonical]).records
        for line in [
            #"{"t": 10, "ch": "gyro", "v": [0.1, -2.5e-07, 3.0]}"#,
            "{ \"v\" :\t[ 0.1 ,-2.5e-07,3.0 ] , \"ch\":\"gyro\" ,\"t\":10 }  ",
            #"{"ch":"gyro","t":10,"v":[1e-1,-0.00000025,3]}"#,
            #"{"t":10,"ch":"gy\u0072o","v":[0.1,-2.5e-07,3.0]}"#,  // an escaped id: the strict path
        ] {
            #expect(try decode([Self.header, line]).records == expected, "\(line)")
        }
        expectError(
            [Self.header, #"{"t": 10, "ch": "gyro", "v": [1, 2, 3], "v": [1, 2, 3]}"#],
            kind: .invalidValue, line: 2, field: "v", message: "appears twice")
        expectError(
            [Self.header, #"{"t": 10, "ch": "gyro", "v": [1, 2, 3], "w": 1}"#],
            kind: .unknownField, line: 2, field: "w", message: "gyroscope records have no such field")
        expectError(
            [Self.header, #"{"t": 10.5, "ch": "gyro", "v": [1, 2, 3]}"#],
            kind: .invalidValue, line: 2, field: "t", message: "expected a whole number")
    }

    @Test func trackedFacesNeedAPlaceAmongTheirFrameAndAFace() {
        let header = #"{"format":"hal-trace","version":1,"channels":[{"id":"face","kind":"expression","source":"test:face"}]}"#
        let scores = #""scores":{"angry":0,"disgust":0,"fear":0,"happy":1,"sad":0,"surprise":0,"neutral":0}"#
        expectError(
            [header, #"{"t":1,"ch":"face","face":[1,2,3,4],"# + scores + #","id":2,"rank":2,"faces":2}"#],
            kind: .invalidValue, line: 2, field: "rank", message: "2 is not a place among 2 faces (0...1)")
        expectError(
            [header, #"{"t":1,"ch":"face","face":[1,2,3,4],"# + scores + #","id":-1}"#],
            kind: .invalidValue, line: 2, field: "id", message: "-1 is not a face id (0...2147483647)")
        expectError(
            [header, #"{"t":1,"ch":"face","id":1}"#],
            kind: .invalidValue, line: 2, field: "id", message: "a reading with no face has no id")
    }

    @Test func timestampsMayInterleaveAcrossChannels() throws {
        let trace = try decode([Self.header, #"{"t":30,"ch":"gyro","v":[1,2,3]}"#, #"{"t":25,"ch":"cam","seq":1,"width":2,"height":2,"format":"GREY","file":"f/1.raw"}"#])
        #expect(trace.records.map(\.timestamp.nanoseconds) == [30, 25])
    }

    @Test func missingFields() {
        expectError(
            [Self.header, #"{"t":20,"ch":"gyro"}"#],
            kind: .missingField, line: 2, field: "v", message: "required vector [x, y, z] is missing")
        expectError(
            [Self.header, #"{"ch":"gyro","v":[1,2,3]}"#],
            kind: .missingField, line: 2, field: "t", message: "required timestamp is missing")
        expectError(
            [Self.header, #"{"t":1,"ch":"cam","seq":1,"width":2,"format":"GREY","file":"f/1.raw"}"#],
            kind: .missingField, line: 2, field: "height", message: "required height is missing")
        expectError(
            [#"{"format":"hal-trace","version":1}"#],
            kind: .missingField, line: 1, field: "channels", message: "the header must list its channels")
    }

    @Test func wrongUnits() {
        expectError(
            [#"{"format":"hal-trace","version":1,"channels":[{"id":"gyro","kind":"gyroscope","source":"x","units":"deg/s"}]}"#, Self.good],
            kind: .wrongUnits, line: 1, field: "channels[0].units", message: "gyroscope channels are in 'rad/s', not 'deg/s'")
        expectError(
            [#"{"format":"hal-trace","version":1,"channels":[{"id":"a","kind":"app","source":"x"},{"id":"m","kind":"magnetometer","source":"x","units":"gauss"}]}"#],
            kind: .wrongUnits, line: 1, field: "channels[1].units", message: "magnetometer channels are in 'uT', not 'gauss'")
        expectError(
            [#"{"format":"hal-trace","version":1,"channels":[{"id":"a","kind":"accelerometer","source":"x"}]}"#],
            kind: .missingField, line: 1, field: "channels[0].units", message: "accelerometer channels must state their units ('m/s^2')")
    }

    @Test func framePathsThatLeaveTheTraceFolder() {
        for path in ["../secret.png", "frames/../../x.jpg", "/etc/passwd", "./", ""] {
            expectError(
                [Self.header, #"{"t":1,"ch":"cam","seq":1,"width":2,"height":2,"format":"PNG","file":"\#(path)"}"#],
                kind: .pathOutsideTrace, line: 2, field: "file",
                message: "'\(path)' leaves the trace's folder; frame files must be inside it")
        }
    }

    @Test func wrongTypesAndValues() {
        expectError(
            [Self.header, #"{"t":"soon","ch":"gyro","v":[1,2,3]}"#],
            kind: .invalidValue, line: 2, field: "t", message: "expected a number")
        expectError(
            [Self.header, #"{"t":1.5,"ch":"gyro","v":[1,2,3]}"#],
            kind: .invalidValue, line: 2, field: "t", message: "expected a whole number")
        expectError(
            [Self.header, #"{"t":1,"ch":"gyro","v":[1,2,3,4]}"#],
            kind: .invalidValue, line: 2, field: "v", message: "expected exactly 3 numbers")
        expectError(
            [Self.header, #"{"t":1,"ch":"cam","seq":1,"width":2,"height":2,"format":"H264","file":"f.raw"}"#],
            kind: .invalidValue, line: 2, field: "format",
            message: "'H264' is not one of 'YUYV', 'MJPG', 'GREY', 'NV12', 'RGB3', 'BGR3', 'PNG'")
        expectError(
            [Self.header, #"{"t":1,"ch":"gyro","v":[1,2,3],"t":2}"#],
            kind: .invalidValue, line: 2, field: "t", message: "appears twice")
    }

    @Test func attitudeChannelsNameTheirFrameAndHoldUnitQuaternions() {
        let attitudeHeader = #"{"format":"hal-trace","version":1,"channels":[{"id":"truth","kind":"attitude","source":"x","frame":"ENU"}]}"#
        expectError(
            [#"{"format":"hal-trace","version":1,"channels":[{"id":"truth","kind":"attitude","source":"x"}]}"#],
            kind: .missingField, line: 1, field: "channels[0].frame", message: "attitude channels name their earth frame ('ENU', 'NED', 'NWU')")
        expectError(
            [#"{"format":"hal-trace","version":1,"channels":[{"id":"g","kind":"gyroscope","source":"x","units":"rad/s","frame":"NED"}]}"#],
            kind: .unknownField, line: 1, field: "channels[0].frame", message: "only attitude channels have a frame")
        expectError(
            [attitudeHeader, #"{"t":1,"ch":"truth","q":[1,0,0,0.5]}"#],
            kind: .invalidValue, line: 2, field: "q", message: "a unit quaternion has norm 1, not 1.118033988749895")
    }

    @Test func unknownFieldsAreRefused() {
        expectError(
            [Self.header, #"{"t":1,"ch":"gyro","v":[1,2,3],"temp":20}"#],
            kind: .unknownField, line: 2, field: "temp", message: "gyroscope records have no such field")
    }

    @Test func badHeaders() {
        expectError([], kind: .badHeader, line: 1, field: nil, message: "the file is empty: a trace starts with a header line")
        expectError(
            [Self.good], kind: .badHeader, line: 1, field: "format",
            message: "not a trace: the first line is not a trace header (the first line must be a header with \"format\":\"hal-trace\")")
        expectError(
            [#"{"format":"hal-trace","version":2,"channels":[]}"#], kind: .badHeader, line: 1, field: "version",
            message: "version 2 is not supported (this reader knows 1 to 1)")
        expectError(
            [#"{"format":"hal-trace","version":1,"channels":[{"id":"a","kind":"app","source":"x"},{"id":"a","kind":"app","source":"y"}]}"#],
            kind: .invalidValue, line: 1, field: "channels[1].id", message: "channel id 'a' is used twice")
    }

    @Test func aTruncatedLastLineIsReportedAndEverythingBeforeItIsKept() throws {
        let text = [Self.header, Self.good, #"{"t":20,"ch":"gyro","v":[0.4,0.5,0.6]}"#, #"{"t":30,"ch":"gyro","v":[0.7,0."#].joined(separator: "\n")
        let trace = try Trace.decode(Array(text.utf8), file: "cut.jsonl")
        #expect(trace.records.count == 2)
        #expect(trace.records.last?.timestamp.nanoseconds == 20)
        let truncation = try #require(trace.truncation)
        #expect(truncation.kind == .truncated)
        #expect(truncation.line == 4)
        #expect(truncation.description == "cut.jsonl:4: the last line stops part-way through a record (31 bytes, no newline); the records before it are complete")
    }

    @Test func aCompleteLastLineWithoutNewlineIsARecord() throws {
        let text = [Self.header, Self.good].joined(separator: "\n")
        let trace = try Trace.decode(Array(text.utf8))
        #expect(trace.records.count == 1)
        #expect(trace.truncation == nil)
    }

    @Test func aBadLastLineWithoutNewlineIsStillAnErrorWhenItIsCompleteJSON() {
        do {
            _ = try Trace.decode(Array([Self.header, #"{"t":1,"ch":"nope","v":[1,2,3]}"#].joined(separator: "\n").utf8))
            Issue.record("accepted an unknown channel")
        } catch {
            #expect(error.kind == .unknownChannel)
        }
    }

    @Test func aTruncatedHeaderIsAnError() {
        do {
            _ = try Trace.decode(Array(Self.header.prefix(40).utf8), file: "h.jsonl")
            Issue.record("accepted a cut-off header")
        } catch {
            #expect(error.kind == .truncated)
            #expect(error.description == "h.jsonl:1: the header line is cut off: no record can be read")
        }
    }

    @Test func aMissingFileNamesTheFile() {
        do {
            _ = try Trace.load(path: "/nonexistent/walk.jsonl")
            Issue.record("opened a missing file")
        } catch {
            #expect(error.kind == .io)
            #expect(error.description.hasPrefix("/nonexistent/walk.jsonl: cannot open:"))
        }
    }

    @Test func blankLinesAreSkippedAndLineNumbersStayTrue() {
        expectError(
            [Self.header, "", Self.good, "   ", #"{"t":11,"ch":"gyro"}"#],
            kind: .missingField, line: 5, field: "v", message: "required vector [x, y, z] is missing")
    }
}

/// Inputs built to exhaust memory give errors instead.
@Suite struct ResourceBoundTests {
    @Test func aHundredMegabyteLineIsAnErrorAfterSixteen() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/long.jsonl"
        let header = #"{"format":"hal-trace","version":1,"channels":[{"id":"gyro","kind":"gyroscope","source":"test","units":"rad/s"}]}"#
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        handle.write(Data((header + "\n" + #"{"t":0,"ch":"gyro","v":[0,0,"#).utf8))
        let chunk = Data(repeating: UInt8(ascii: "1"), count: 1 << 20)
        for _ in 0..<100 { handle.write(chunk) }
        handle.write(Data("]}\n".utf8))
        try handle.close()
        do {
            _ = try Trace.load(path: path)
            Issue.record("a 100 MB line was read")
        } catch {
            #expect("\(error)".contains("long.jsonl:2"), "\(error)")
            #expect("\(error)".contains("the line is longer than 16777216 bytes"), "\(error)")
        }
    }

    @Test func aFileThatIsNotATraceSaysWhatItIsNotAndWhatTakesIt() throws {
        let folder = try makeScratchFolder()
        let cases = [
            ("explorer.json", "{\n  \"places\": {}\n}\n", "it looks like an app config: `hal run APP --config"),
            ("walk.run.json", "{\"app\": \"explorer\"}\n", "it looks like a scenario: run it with `hal run APP"),
            ("tour.walk.json", "{\"seed\": 1}\n", "it looks like a GPS walk: `hal gps walk"),
            ("look.motion.json", "{\"rate\": 100}\n", "it looks like a motion script: `hal motion simulate"),
        ]
        for (name, text, hint) in cases {
            try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
            #expect {
                try Trace.load(path: folder + "/" + name)
            } throws: { error in
                let description = "\(error)"
                return description.hasPrefix("\(folder)/\(name):1: ") && description.contains("not a trace: the first line is not a trace header")
                    && description.contains(hint)
            }
        }
    }

    @Test func aScriptCutShortNamesTheLineAndColumnWhereItEnds() throws {
        let folder = try makeScratchFolder()
        try "{\"places\":[\n".write(toFile: folder + "/cut.walk.json", atomically: true, encoding: .utf8)
        #expect {
            try WalkScenario.load(path: folder + "/cut.walk.json")
        } throws: { "\($0)" == "\(folder)/cut.walk.json: line 2, column 1: not JSON: unexpected end of the file, expected a value" }
    }

    @Test func deeplyNestedJSONInAScriptIsAnErrorWithItsPlace() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/deep.motion.json"
        try ("{\"rate\": 100, \"steps\": " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}")
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ScriptError.self) { try MotionScript.load(path: path) }
        do { _ = try MotionScript.load(path: path) } catch {
            #expect("\(error)".contains("deep.motion.json: line 1, column"), "\(error)")
            #expect("\(error)".contains("not JSON: nested deeper than 64 levels"), "\(error)")
        }
        try "{\"rate\": 100,\n \"steps\": x}".write(toFile: path, atomically: true, encoding: .utf8)
        do { _ = try MotionScript.load(path: path) } catch {
            #expect("\(error)" == "\(path): line 2, column 11: not JSON: expected a value", "\(error)")
        }
    }

    /// Scripts that claim a billion samples (a typo away from a real one) are refused before anything is generated.
    @Test func scriptsClaimingABillionRecordsAreRefusedBeforeGenerating() throws {
        let folder = try makeScratchFolder()
        let scripts = [
            ("hold.motion.json", #"{"rate": 1000, "steps": [{"hold": 1e6}]}"#),
            ("swipe.motion.json", #"{"rate": 100, "steps": [{"swipe": {"from": [0, 0], "to": [1, 1], "seconds": 1e9}}]}"#),
            ("face.expressions.json", #"{"rate": 1000, "duration": 86400, "segments": []}"#),
            ("walk.walk.json", #"{"start": "2026-09-08T17:00:00Z", "rate": 100, "seed": 1, "places": {"a": {"lat": 49, "lon": -123}, "b": {"lat": 49.001, "lon": -123}}, "route": [{"at": "a"}, {"to": "b", "duration": 1e9}]}"#),
        ]
        for (name, text) in scripts {
            try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
            do {
                let trace = try Trace.loadInput(path: folder + "/" + name)
                Issue.record("\(name) generated \(trace.records.count) records")
            } catch {
                #expect("\(error)".hasPrefix(folder + "/" + name + ": the script makes "), "\(error)")
                #expect("\(error)".contains("records; at most 10000000"), "\(error)")
            }
        }
    }
}
