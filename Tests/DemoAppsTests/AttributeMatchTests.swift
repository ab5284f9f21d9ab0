import AppCore
import HAL
import Replay
import Session
import Synthesis
import TestSupport
import Testing
import TraceFormat

/// Comparisons and distances in `with`: read from a scenario's text, exact at their bounds, and refused before the
/// run where they can never hold.
@Suite struct AttributeMatchTests {
    static func expectation(_ json: String) throws -> EventExpectation {
        try ScriptFile.decode(Array(json.utf8), file: "x.run.json")
    }

    static func event(_ attributes: [String: AppEventValue]) -> AppEvent {
        AppEvent(timestamp: .zero, name: "reading", attributes: attributes)
    }

    static func holds(_ json: String, _ attributes: [String: AppEventValue]) throws -> Bool {
        try expectation(json).check([event(attributes)], start: .zero).passed
    }

    /// Every form, as a scenario writes it; a plain number where a string of digits was needed.
    @Test func everyFormReadsFromTheScenariosText() throws {
        let cases: [(String, [String: AppEventValue], Bool)] = [
            (#"{"event": "reading", "with": {"bpm": 160}}"#, ["bpm": .int(160)], true),
            (#"{"event": "reading", "with": {"bpm": 160}}"#, ["bpm": .double(160)], true),
            (#"{"event": "reading", "with": {"bpm": "160"}}"#, ["bpm": .int(160)], true),
            (#"{"event": "reading", "with": {"bpm": 160.5}}"#, ["bpm": .int(160)], false),
            (#"{"event": "reading", "with": {"on": true}}"#, ["on": .bool(true)], true),
            (#"{"event": "reading", "with": {"magnitude": {">": 24.5}}}"#, ["magnitude": .double(24.6)], true),
            (#"{"event": "reading", "with": {"magnitude": {">": 24.5}}}"#, ["magnitude": .double(24.5)], false),
            (#"{"event": "reading", "with": {"magnitude": {">=": 24.5}}}"#, ["magnitude": .double(24.5)], true),
            (#"{"event": "reading", "with": {"yaw": {">=": 89, "<=": 91}}}"#, ["yaw": .double(91)], true),
            (#"{"event": "reading", "with": {"yaw": {">=": 89, "<=": 91}}}"#, ["yaw": .double(91.000001)], false),
            (#"{"event": "reading", "with": {"n": {"<": 3}}}"#, ["n": .int(2)], true),
            (#"{"event": "reading", "with": {"n": {"!=": 3}}}"#, ["n": .double(3)], false),
            (#"{"event": "reading", "with": {"n": {"!=": "x"}}}"#, ["n": .string("y")], true),
            (#"{"event": "reading", "with": {"n": {"<": 3}}}"#, ["n": .string("2")], false),  // text is not a number
            (#"{"event": "reading", "with": {"n": {"<": 3}}}"#, [:], false),
        ]
        for (json, attributes, passes) in cases {
            #expect(try Self.holds(json, attributes) == passes, "\(json) on \(attributes)")
        }
        // Messages write the comparison.
        let line = try Self.expectation(#"{"event": "reading", "with": {"magnitude": {">": 24.5}}}"#).check([], start: .zero).line
        #expect(line == "FAIL reading{magnitude>24.5}: never happened")
    }

    /// Bounds compare exactly with a reading's binary value: the `Double` written 0.1 is above the decimal 0.1, and
    /// an integer beyond 2^53 is compared digit by digit.
    @Test func boundsCompareExactly() throws {
        #expect(try Self.holds(#"{"event": "reading", "with": {"v": {">": 0.1}}}"#, ["v": .double(0.1)]))
        let exact = "0.1000000000000000055511151231257827021181583404541015625"  // the Double 0.1, exactly
        #expect(try Self.holds(#"{"event": "reading", "with": {"v": {">=": \#(exact), "<=": \#(exact)}}}"#, ["v": .double(0.1)]))
        #expect(try !Self.holds(#"{"event": "reading", "with": {"v": {"<": \#(exact)}}}"#, ["v": .double(0.1)]))
        #expect(try Self.holds(#"{"event": "reading", "with": {"v": {">": 9007199254740992}}}"#, ["v": .int(9_007_199_254_740_993)]))
        #expect(try !Self.holds(#"{"event": "reading", "with": {"v": {">": 9007199254740993}}}"#, ["v": .int(9_007_199_254_740_993)]))
        // The exact expansion of a Double, which the bounds use.
        #expect(ExactDecimal(exactly: 0.1)?.description == exact)
        #expect(ExactDecimal(exactly: -2.5)?.description == "-2.5")
        #expect(ExactDecimal(exactly: 1e20)?.description == "100000000000000000000")
        #expect(ExactDecimal(exactly: .leastNonzeroMagnitude).map { $0.digits.count + $0.exponent } == -323)
    }

    /// A distance from a point reads a fix's `lat` and `lon`, on the ellipsoid, its bound included.
    @Test func aDistanceFromAPointReadsTheFixesPosition() async throws {
        let point = GeoCoordinate(latitude: 49.2606, longitude: -123.2460)
        let away = point.destination(distance: 20, bearing: 45)
        let trace = Trace(header: TraceHeader(channels: [TraceChannel(id: "gps", kind: .location, source: "test:gps")]), records: [
            TraceRecord(channel: 0, reading: .location(LocationFix(
                timestamp: .zero, mode: .threeDimensional, coordinate: away, altitude: 80, horizontalAccuracy: 3, speed: 1.4))),
        ])
        func verdict(_ with: String) async throws -> Bool {
            let expectation = try Self.expectation(#"{"event": "input:gps", "with": \#(with)}"#)
            return try await AppSession(ExpectationRulesTests.Echo(), inputs: trace, expectations: [expectation]).run().passed
        }
        // The distance on the ellipsoid (the bearing's destination is on the sphere: about 20 m).
        let metres = away.distance(to: point)
        #expect(abs(metres - 20) < 0.2)
        let over = (metres * 1000).rounded(.up) / 1000, under = (metres * 1000).rounded(.down) / 1000
        #expect(try await verdict(#"{"position": {"within": \#(over), "of": [49.2606, -123.2460]}}"#))
        #expect(try await !verdict(#"{"position": {"within": \#(under), "of": [49.2606, -123.2460]}}"#))
        #expect(try await verdict(#"{"alt": {">": 79}, "speed": {"<": 1.5}, "mode": "3d"}"#))
        #expect(try await verdict(#"{"lat": {">": 49.2606}, "lon": {">": -123.2460}}"#))
    }

    /// "Each fall then an alert within 0.3 s" on the shipped scripted walk with a 1 m fall
    /// (`traces/walk-and-fall.motion.json`): the impact is the only reading above 24.5 m/s² (a step peaks at 1.4 g), an
    /// alert 0.3 s after it passes on the bound and one 0.31 s after it fails, in the compact form and the object form
    /// alike; no exact sample needs to be planted in the trace.
    @Test func aFallAlertIsTimedFromAReadingAboveAThreshold() async throws {
        struct FallAlert: AppLogic {
            static let name = "fall"
            static let vocabulary: AppVocabulary? = AppVocabulary(events: ["alert.fall"], attributes: ["alert.fall": []])
            var delay: Duration
            var due: Timestamp?
            var alerted = false
            mutating func start(at time: Timestamp, output: inout AppOutput) {}
            mutating func handle(_ input: AppInput, output: inout AppOutput) {
                if case .reading(.motion(let sample), "accel") = input, sample.value.magnitude > 24.5, !alerted {
                    due = input.timestamp + delay
                    alerted = true
                }
            }
            var nextDeadline: Timestamp? { due }
            mutating func advance(to time: Timestamp, output: inout AppOutput) {
                if let due, due <= time {
                    output.emit("alert.fall", at: due)
                    self.due = nil
                }
            }
        }
        let trace = try Trace.loadInput(path: packageRoot + "/traces/walk-and-fall.motion.json")
        let accel = try #require(trace.header.channels.firstIndex { $0.id == "accel" })
        let impacts = trace.records.filter { record in
            guard record.channel == accel, case .motion(let sample) = record.reading else { return false }
            return sample.value.magnitude > 24.5
        }
        #expect(!impacts.isEmpty && impacts.allSatisfy { $0.timestamp.nanoseconds >= 12_900_000_000 }, "the impact ends the fall, after 12.9 s")
        for json in [#"{"each": "input:accel{magnitude>24.5}", "then": "alert.fall", "within": 0.3}"#,
                     #"{"each": {"event": "input:accel", "with": {"magnitude": {">": 24.5}}}, "then": {"event": "alert.fall"}, "within": 0.3}"#] {
            let check = try Self.expectation(json)
            for (delay, passes) in [(Duration.milliseconds(300), true), (.milliseconds(310), false)] {
                let result = try await AppSession(FallAlert(delay: delay), inputs: trace, expectations: [check]).run()
                #expect(result.passed == passes, "\(json), \(delay): \(result.expectations.map(\.line))")
            }
        }
    }

    /// Before the run: a comparison on a value that is not a number, a distance on a channel with no position, and
    /// a key that is not a comparison are refused, naming the field.
    @Test func comparisonsThatCanNeverHoldAreRefusedBeforeTheRun() async throws {
        let trace = ExpectationRulesTests.trace([ExpectationRulesTests.tap(0), ExpectationRulesTests.sample(0)])
        for (json, message) in [
            (#"{"event": "input:touch", "with": {"phase": {">": 1}}}"#, "expect[0].with.phase: input:touch events' 'phase' is not a number; a comparison needs one"),
            (#"{"event": "input:accel", "with": {"position": {"within": 5, "of": [49, -123]}}}"#, "expect[0].with.position: input:accel events carry no lat and lon to measure a distance from"),
        ] {
            let expectation = try Self.expectation(json)
            await #expect {
                _ = try await AppSession(ExpectationRulesTests.Echo(), inputs: trace, expectations: [expectation]).run()
            } throws: { error in
                "\(error)" == message
            }
        }
        #expect {
            try Self.expectation(#"{"event": "input:accel",\#n "with": {"magnitude": {"=>": 1}}}"#)
        } throws: { error in
            "\(error)".contains("line 2, column 31: with.magnitude.=>: '=>' is not a comparison; use >, >=, <, <=, !=")
        }
    }
}
