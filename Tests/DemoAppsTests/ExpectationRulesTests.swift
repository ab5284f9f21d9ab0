import AppCore
import HAL
import Replay
import Session
import Testing
import TraceFormat

/// One test at the edge of each rule of `docs/apps.md`, "How expectations are checked".
@Suite struct ExpectationRulesTests {
    /// Emits `seen{channel=…}` for each reading it is handed, and `done` at each `done` command.
    struct Echo: AppLogic {
        static let name = "echo"
        static let vocabulary: AppVocabulary? = AppVocabulary(
            events: ["seen", "both", "done"], commands: ["done"], attributes: ["seen": ["channel"], "both": [], "done": []])

        mutating func start(at time: Timestamp, output: inout AppOutput) {}

        mutating func handle(_ input: AppInput, output: inout AppOutput) {
            switch input {
            case .reading(_, let channel): output.emit("seen", at: input.timestamp, ["channel": .string(channel ?? "")])
            case .command(let command) where command.action == "done": output.emit("done", at: input.timestamp)
            default: break
            }
        }

        var nextDeadline: Timestamp? { nil }
        mutating func advance(to time: Timestamp, output: inout AppOutput) {}
    }

    static func tap(_ nanoseconds: Int64) -> TraceRecord {
        TraceRecord(channel: 0, reading: .pointer(PointerEvent(timestamp: Timestamp(nanoseconds: nanoseconds), phase: .release, x: 0.5, y: 0.5)))
    }

    static func sample(_ nanoseconds: Int64) -> TraceRecord {
        TraceRecord(channel: 1, reading: .motion(MotionSample(
            timestamp: Timestamp(nanoseconds: nanoseconds), quantity: .acceleration, value: Vector3(x: 0, y: 0, z: 9.81))))
    }

    /// A touch channel and an accelerometer.
    static func trace(_ records: [TraceRecord]) -> Trace {
        Trace(header: TraceHeader(channels: [
            TraceChannel(id: "touch", kind: .pointer, source: "test:touch"),
            TraceChannel(id: "accel", kind: .accelerometer, source: "test:accel"),
        ]), records: records.sorted { ($0.timestamp, $0.channel) < ($1.timestamp, $1.channel) })
    }

    /// Rule 1: time zero is the first record as recorded. A 1.5 s latency on the channel of the first record used to
    /// move the log's zero to the next channel's first record, shifting every window and command.
    @Test func timeZeroIsTheFirstRecordAsRecorded() async throws {
        let trace = Self.trace([Self.tap(1_000_000_000), Self.sample(1_300_000_000), Self.sample(3_000_000_000)])
        let plan = FaultPlan(seed: 1, faults: [Fault(.latency, channel: "touch", magnitude: 1.5)])
        let session = AppSession(
            Echo(), inputs: trace, commands: [ScriptedCommand(at: 1, action: "done")], faults: plan,
            expectations: [EventExpectation(event: "seen", with: ["channel": "accel"], between: [0.3, 0.3]),
                           EventExpectation(event: "done", between: [1, 1])])
        let result = try await session.run()
        #expect(result.start == Timestamp(nanoseconds: 1_000_000_000))
        #expect(result.passed, "\(result.expectations.map(\.line))")
        #expect(result.logLines.contains("    0.300 seen channel=accel"), "\(result.logLines)")
        #expect(result.logLines.contains("    1.500 seen channel=touch"), "\(result.logLines)")
    }

    /// Rules 2 and 3: bounds read from the scenario's text, inclusive, exact: 1.118, 1.128 and 3.28 failed on the bound.
    @Test func boundsFromTheTextAreInclusiveAndExact() throws {
        func expectation(_ json: String) throws -> EventExpectation { try ScriptFile.decode(Array(json.utf8), file: "x.run.json") }
        let events = [AppEvent(timestamp: Timestamp(nanoseconds: 1_118_000_000), name: "a"), AppEvent(timestamp: Timestamp(nanoseconds: 2_246_000_000), name: "b"),
                      AppEvent(timestamp: Timestamp(nanoseconds: 3_280_000_000), name: "a")]
        for (json, passes) in [(#"{"event": "a", "between": [1.118, 2]}"#, true), (#"{"event": "a", "between": [3.28, 3.28]}"#, true),
                               (#"{"event": "a", "between": [1.118000001, 3.279999999]}"#, false),
                               (#"{"each": {"event": "a"}, "then": {"event": "b"}, "within": 1.128}"#, false),  // the second a has no b
                               (#"{"never": {"event": "b"}, "without": {"event": "a"}, "within": 1.128}"#, true),
                               (#"{"never": {"event": "b"}, "without": {"event": "a"}, "within": 1.127999999}"#, false)] {
            let result = try expectation(json).check(events, start: .zero)
            #expect(result.passed == passes, "\(json): \(result.line)")
        }
        let late = try expectation(#"{"never": {"event": "b"}, "without": {"event": "a"}, "within": 1.127999999}"#).check(events, start: .zero)
        #expect(late.line.hasSuffix("b at 2.246 s came 1128 ms after its a"), "\(late.line)")
    }

    /// Rule 5: `inputTime: delivery` times every input the expectation names, in `between` too.
    @Test func theInstantAppliesToWindowsToo() async throws {
        let trace = Self.trace([Self.sample(0), Self.tap(1_000_000_000)])
        let plan = FaultPlan(seed: 1, faults: [Fault(.latency, channel: "touch", magnitude: 0.25)])
        var delivered = EventExpectation(event: "input:touch", between: [1.25, 1.25])
        delivered.inputTime = .delivery
        let results = try await AppSession(
            Echo(), inputs: trace, faults: plan,
            expectations: [EventExpectation(event: "input:touch", between: [1, 1]), delivered,
                           EventExpectation(no: "input:touch", between: [1.25, 1.25])]).run().expectations
        #expect(results.map(\.passed) == [true, true, true], "\(results.map(\.line))")
    }

    /// Rule 6: a span includes its `from` and `to` events; one that opens and never closes lasts to the end.
    @Test func spansIncludeTheirEnds() {
        let events = ["x", "open", "x", "close", "x"].enumerated().map { AppEvent(timestamp: Timestamp(nanoseconds: Int64($0.offset)), name: $0.element) }
        let span = EventExpectation.Span(from: EventMatcher(event: "open"), to: EventMatcher(event: "close"))
        #expect(EventExpectation(event: "open", during: span, count: 1).check(events, start: .zero).passed)
        #expect(EventExpectation(event: "close", during: span, count: 1).check(events, start: .zero).passed)
        #expect(EventExpectation(event: "x", during: span, count: 1).check(events, start: .zero).passed)
        let unclosed = EventExpectation.Span(from: EventMatcher(event: "open"), to: EventMatcher(event: "never"))
        #expect(EventExpectation(event: "x", during: unclosed, count: 2).check(events, start: .zero).passed)
    }

    /// Rules 7 and 8: an entry is never its own answer or its own cause.
    @Test func anEventIsNeverItsOwnAnswerOrCause() {
        let both = EventMatcher(event: "both")
        let alone = [AppEvent(timestamp: .zero, name: "both")]
        let cause = EventExpectation.cause(never: both, without: both).check(alone, start: .zero)
        #expect(!cause.passed && cause.line.hasSuffix("both at 0.000 s had no both before it"), "\(cause.line)")
        #expect(!EventExpectation.response(each: both, then: both, within: 1).check(alone, start: .zero).passed)
        // Two: the first causes the second, and the second answers the first; the last has no answer.
        let two = [AppEvent(timestamp: .zero, name: "both"), AppEvent(timestamp: Timestamp(nanoseconds: 5), name: "both")]
        #expect(EventExpectation.cause(never: both, without: both).check(two, start: .zero).passed == false)  // the first has no cause
        #expect(!EventExpectation.response(each: both, then: both, within: 1).check(two, start: .zero).passed)
    }

    /// Rule 9: when nothing happened, forms about every X or what must not happen hold and say so; forms that say
    /// something must happen fail. Before, `each` with no X failed while `no` in a span that never opened passed.
    @Test func nothingHappenedMeansTheSameInEveryForm() {
        let events = [AppEvent(timestamp: .zero, name: "other")]
        let neverOpens = EventExpectation.Span(from: EventMatcher(event: "open"), to: EventMatcher(event: "close"))
        let each = EventExpectation.response(each: EventMatcher(event: "x"), then: EventMatcher(event: "y"), within: 1).check(events, start: .zero)
        #expect(each.passed && each.line.hasSuffix(": none happened"), "\(each.line)")
        let never = EventExpectation.cause(never: EventMatcher(event: "y"), without: EventMatcher(event: "x")).check(events, start: .zero)
        #expect(never.passed && never.line.hasSuffix(": none happened"), "\(never.line)")
        let no = EventExpectation(no: "other", during: neverOpens).check(events, start: .zero)
        #expect(no.passed, "\(no.line)")
        let must = EventExpectation(event: "other", during: neverOpens).check(events, start: .zero)
        #expect(must.line == "FAIL other during open … close: happened only outside the span, at 0.000 s", "\(must.line)")
        #expect(EventExpectation(event: "x").check(events, start: .zero).line == "FAIL x: never happened")
        #expect(!EventExpectation(event: "x", count: 1).check(events, start: .zero).passed)
        #expect(EventExpectation(event: "x", count: 0).check(events, start: .zero).passed)
    }

    /// Rule 11: a misspelled attribute of an app event is refused before the run, in `no` and `never` too, naming the
    /// field and what it could have meant.
    @Test func aMisspelledAttributeIsRefusedBeforeTheRun() async throws {
        let trace = Self.trace([Self.sample(0)])
        for (expectation, field) in [
            (EventExpectation(no: "seen", with: ["chanel": "accel"]), "expect[0].with.chanel"),
            (EventExpectation.cause(never: EventMatcher(event: "seen", with: ["chanel": "accel"]), without: EventMatcher(event: "done")), "expect[0].never.with.chanel"),
            (EventExpectation(event: "done", with: ["channel": "accel"]), "expect[0].with.channel"),
        ] {
            await #expect {
                _ = try await AppSession(Echo(), inputs: trace, expectations: [expectation]).run()
            } throws: { error in
                "\(error)".hasPrefix("\(field): ") && "\(error)".contains("never carry")
            }
        }
        // Declared attributes pass.
        let fine = try await AppSession(Echo(), inputs: trace, expectations: [EventExpectation(event: "seen", with: ["channel": "accel"])]).run()
        #expect(fine.passed)
    }
}
