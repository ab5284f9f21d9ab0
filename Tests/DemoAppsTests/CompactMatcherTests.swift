import AppCore
import HAL
import Testing
import TraceFormat

/// The compact text form of a matcher (`input:accel{magnitude>24.5}`): the same matchers as the JSON form, read back
/// from what messages print, and refused with the clause named where it cannot be read.
@Suite struct CompactMatcherTests {
    static func expectation(_ json: String) throws -> EventExpectation {
        try ScriptFile.decode(Array(json.utf8), file: "x.run.json")
    }

    /// Each compact form gives the matcher its JSON form gives.
    @Test func everyFormIsTheJSONFormsMatcher() throws {
        let pairs: [(String, String)] = [
            (#""input:accel{magnitude>24.5}""#, #"{"event": "input:accel", "with": {"magnitude": {">": 24.5}}}"#),
            (#""place.arrived{place=clock-tower}""#, #"{"event": "place.arrived", "with": {"place": "clock-tower"}}"#),
            (#""input:attitude{heading>=89,<=91}""#, #"{"event": "input:attitude", "with": {"heading": {">=": 89, "<=": 91}}}"#),
            (#""input:attitude{ heading >= 89 , heading <= 91 }""#, #"{"event": "input:attitude", "with": {"heading": {">=": 89, "<=": 91}}}"#),
            (#""a{n!=0,s!=off,x<-3.25}""#, #"{"event": "a", "with": {"n": {"!=": 0}, "s": {"!=": "off"}, "x": {"<": -3.25}}}"#),
            (#""input:gps{position within 25 m of 49.2606,-123.246}""#,
             #"{"event": "input:gps", "with": {"position": {"within": 25, "of": [49.2606, -123.246]}}}"#),
            (#""answer.*""#, #"{"event": "answer.*"}"#),
            (#""narration.spoken{text=Which face is happy?}""#, #"{"event": "narration.spoken", "with": {"text": "Which face is happy?"}}"#),
        ]
        for (compact, object) in pairs {
            let fromText = try Self.expectation(#"{"each": \#(compact), "then": "b", "within": 1}"#)
            let fromObject = try Self.expectation(#"{"each": \#(object), "then": {"event": "b"}, "within": 1}"#)
            #expect(fromText == fromObject, "\(compact)")
            // In a span and as `event`'s name, too.
            let span = try Self.expectation(#"{"event": "x", "during": {"from": \#(compact), "to": "y"}}"#)
            #expect(span.during?.from == fromObject.each, "\(compact)")
            let named = try Self.expectation(#"{"event": \#(compact)}"#)
            #expect(EventMatcher(event: named.event!, with: named.with) == fromObject.each, "\(compact)")
        }
    }

    /// What a message prints reads back as the same matcher, for generated matchers of every form.
    @Test func whatMessagesPrintReadsBack() throws {
        var random = SeededRandom(seed: 47)
        let keys = ["x", "magnitude", "place", "bpm", "text"]
        let operators = AttributeMatch.Comparison.Operator.allCases
        for _ in 0..<2_000 {
            var with: [String: AttributeMatch] = [:]
            for key in keys where random.next() % 2 == 0 {
                switch random.next() % 4 {
                case 0: with[key] = .value(["release", "clock tower", "160", "-2.5", "Which face?"][Int(random.next() % 5)])
                case 1, 2:
                    let count = 1 + Int(random.next() % 3)
                    with[key] = .compare((0..<count).map { _ in
                        let number = ExactDecimal("\(Int64(random.next() % 20_001) - 10_000)e-\(random.next() % 4)")!
                        return AttributeMatch.Comparison(operators[Int(random.next() % UInt64(operators.count))], number)
                    }.sorted { $0.op.rawValue < $1.op.rawValue })  // the order both forms read them in
                default: with[key] = .compare([AttributeMatch.Comparison(notText: "off")])
                }
            }
            if random.next() % 5 == 0 {
                with[AttributeMatch.positionKey] = .within(
                    metres: DecimalBound(ExactDecimal("\(random.next() % 1_000).\(random.next() % 10)")!),
                    of: GeoCoordinate(latitude: Double(Int64(random.next() % 180_000) - 90_000) / 1_000, longitude: Double(Int64(random.next() % 360_000) - 180_000) / 1_000))
            }
            let matcher = EventMatcher(event: "input:accel", with: with.isEmpty ? nil : with)
            #expect(try CompactMatcher.parse(matcher.description) == matcher, "\(matcher)")
        }
    }

    /// The compact form decides the verdict the JSON form does, at the bound and just past it.
    @Test func theVerdictFlipsAtTheBound() throws {
        let check = try Self.expectation(#"{"event": "reading{magnitude>24.5,<=30}"}"#)
        for (value, passes) in [(24.5, false), (24.500000000000004, true), (30, true), (30.000000000000004, false)] {
            let event = AppEvent(timestamp: .zero, name: "reading", attributes: ["magnitude": .double(value)])
            #expect(check.check([event], start: .zero).passed == passes, "\(value)")
        }
    }

    /// Text that is not a matcher is refused with the file, line, column, field and the clause.
    @Test func badTextIsRefusedNamingTheClause() {
        for (json, message) in [
            (#"{"each": "input:accel{magnitude>}", "then": "b", "within": 1}"#, "each: 'magnitude>' in 'input:accel{magnitude>}': expected KEY=VALUE"),
            (#"{"each": "{x=1}", "then": "b", "within": 1}"#, "each: '{x=1}': the event's name comes before '{'"),
            (#"{"each": "a{x=1", "then": "b", "within": 1}"#, "each: 'a{x=1': expected '}' at the end"),
            (#"{"each": "a{x~1}", "then": "b", "within": 1}"#, "each: 'x~1' in 'a{x~1}': expected KEY=VALUE"),
            (#"{"each": "a{x>abc}", "then": "b", "within": 1}"#, "each: 'x>abc' in 'a{x>abc}': 'abc' is not a number; '>' compares numbers"),
            (#"{"each": "a{x=>3}", "then": "b", "within": 1}"#, "each: 'x=>3' in 'a{x=>3}': '=>' is not an operator"),
            (#"{"each": "a{x=1,x=2}", "then": "b", "within": 1}"#, "each: 'x=2' in 'a{x=1,x=2}': 'x' is given twice"),
            (#"{"each": "a{position within 25 m of 91,0}", "then": "b", "within": 1}"#, "expected 'position within METRES m of LAT,LON'"),
            (#"{"event": "a{x=1}", "with": {"x": 2}}"#, "event: 'x' is given both in the name's {…} and in 'with'"),
        ] {
            #expect {
                try Self.expectation(json)
            } throws: { error in
                "\(error)".hasPrefix("x.run.json: line 1, column ") && "\(error)".contains(message)
            }
        }
    }
}
