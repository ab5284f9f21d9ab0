import AppCore
import HAL
import Replay
import Session
import Testing
import TraceFormat

/// The expectation rules written a second time, from their specification alone, as plainly as they can be: a check
/// to hold ``EventExpectation/check(_:start:)`` to. It shares no code with the real checker: it never calls
/// `EventMatcher.matches`, `EventExpectation.check`, `spans` or `Entry.time`, and reads only plain data (each entry's
/// name, attributes, device time and delivery; the expectation's fields). Times are whole nanoseconds, never `Double`.
///
/// The rules:
/// 1. Entries are in the run's order (array order). An entry's time is its delivery when the expectation's instant
///    (`inputTime`, `.device` when absent) is `.delivery`, else its device time. Times count from the run's start.
/// 2. A matcher's name matches an entry of that name; a name ending in `.*` matches every name that starts with the
///    name less its `*` (`a.*` matches `a.b`, not `ab` or `a`). Every `with` key must be among the attributes, with a
///    value that prints as the wanted text, or is a number equal to the number the text says (exactly, for integers).
/// 3. `event X` counts the entries that match X, lie within `between` (both ends included) and inside a `during`
///    span. A span opens at an entry matching `from` while none is open (even one that also matches `to`), and closes
///    at the next entry matching `to`; it holds both, and lasts to the end when never closed. It holds with exactly
///    `count` hits when given, else with at least one.
/// 4. `no X` holds with no hit.
/// 5. `each X then Y within w`: every X has a Y after it in the run's order, and the first such Y comes at most w
///    after it. No X: it holds.
/// 6. `never Y without X [within w]`: in the run's order, each Y takes the latest unused X before it (never itself);
///    every Y must find one, at most w before it when `within` is given. No Y: it holds.
struct ReferenceChecker {
    /// The run's entries, in the run's order.
    let entries: [EventTimeline.Entry]
    /// The run's zero, from which relative times count.
    let start: Timestamp

    /// A checker of `timeline`, a run that started at `start`.
    init(_ timeline: EventTimeline, start: Timestamp) {
        entries = timeline.entries
        self.start = start
    }

    // MARK: Verdicts

    /// Whether `expectation` holds.
    func passes(_ expectation: EventExpectation) -> Bool {
        let instant = expectation.inputTime ?? .device
        if let each = expectation.each, let then = expectation.then {
            // Rule 5.
            guard let delays = responseDelays(each: each, then: then, instant: instant) else { return false }
            let limit = expectation.within?.nanoseconds ?? 0
            return delays.allSatisfy { $0 <= limit }
        }
        if let never = expectation.never, let without = expectation.without {
            // Rule 6.
            guard let delays = causeDelays(never: never, without: without, instant: instant) else { return false }
            guard let limit = expectation.within?.nanoseconds else { return true }
            return delays.allSatisfy { $0 <= limit }
        }
        // Rules 3 and 4.
        let found = hitCount(expectation)
        if expectation.no != nil { return found == 0 }
        if let count = expectation.count { return found == count }
        return found >= 1
    }

    /// Rule 3: how many entries an `event` or `no` expectation finds, with its window and span (its count aside).
    func hitCount(_ expectation: EventExpectation) -> Int {
        let name = expectation.event ?? expectation.no ?? ""
        let instant = expectation.inputTime ?? .device
        let inside = expectation.during.map(insideSpans)
        var found = 0
        for index in entries.indices {
            guard Self.matches(name, expectation.with, entries[index].event) else { continue }
            if let between = expectation.between {
                let time = self.time(index, instant)
                guard between[0].nanoseconds <= time, time <= between[1].nanoseconds else { continue }
            }
            if let inside, !inside[index] { continue }
            found += 1
        }
        return found
    }

    /// Rule 5: each X's delay to the first Y after it, in nanoseconds; `nil` when some X has no Y after it.
    func responseDelays(each: EventMatcher, then: EventMatcher, instant: EventExpectation.InputTime) -> [Int64]? {
        let isAnswer = entries.map { Self.matches(then, $0.event) }
        var delays: [Int64] = []
        for cause in entries.indices where Self.matches(each, entries[cause].event) {
            var answer: Int?
            for later in entries.indices where later > cause && isAnswer[later] {
                answer = later
                break
            }
            guard let answer else { return nil }
            delays.append(time(answer, instant) - time(cause, instant))
        }
        return delays
    }

    /// Rule 6: each Y's delay after the X it takes, in nanoseconds; `nil` when some Y finds no X.
    func causeDelays(never: EventMatcher, without: EventMatcher, instant: EventExpectation.InputTime) -> [Int64]? {
        var unused: [Int64] = []
        var delays: [Int64] = []
        for index in entries.indices {
            let time = self.time(index, instant)
            if Self.matches(never, entries[index].event) {
                guard let cause = unused.popLast() else { return nil }
                delays.append(time - cause)
            }
            // Only now, so that an entry that is both is a cause for a later Y, never for itself.
            if Self.matches(without, entries[index].event) { unused.append(time) }
        }
        return delays
    }

    /// Rule 3's spans: whether each entry is inside one.
    func insideSpans(_ span: EventExpectation.Span) -> [Bool] {
        var inside: [Bool] = []
        var open = false
        for entry in entries {
            if !open {
                open = Self.matches(span.from, entry.event)
                inside.append(open)
            } else {
                inside.append(true)
                if Self.matches(span.to, entry.event) { open = false }
            }
        }
        return inside
    }

    /// Rule 1: the entry's time at `instant`, in nanoseconds after the run's start.
    func time(_ index: Int, _ instant: EventExpectation.InputTime) -> Int64 {
        let entry = entries[index]
        let time = instant == .delivery ? entry.delivered : entry.event.timestamp
        return time.nanoseconds - start.nanoseconds
    }

    // MARK: Matching (rule 2)

    /// Whether `matcher` matches `event`.
    static func matches(_ matcher: EventMatcher, _ event: AppEvent) -> Bool {
        matches(matcher.event, matcher.with, event)
    }

    /// Whether an entry named `name`, with the attributes `with`, matches `event`.
    static func matches(_ name: String, _ with: [String: AttributeMatch]?, _ event: AppEvent) -> Bool {
        guard nameMatches(name, event.name) else { return false }
        for (key, wanted) in with ?? [:] {
            guard let value = event.attributes[key], attributeMatches(value, wanted) else { return false }
        }
        return true
    }

    /// Whether an attribute's value satisfies a wanted value or comparisons. The generated bounds and numbers are
    /// binary fractions (halves), which a `Double` holds exactly, so comparing as `Double`s is exact here.
    static func attributeMatches(_ value: AppEventValue, _ wanted: AttributeMatch) -> Bool {
        switch wanted {
        case .value(let text): return valueMatches(value, text)
        case .within: return false  // never generated; `AttributeMatchTests` checks distances
        case .compare(let comparisons):
            for comparison in comparisons {
                // Not equal: the opposite of a value match.
                if comparison.op == .other {
                    if valueMatches(value, comparison.text) { return false }
                    continue
                }
                let number: Double
                switch value {
                case .int(let integer): number = Double(integer)
                case .double(let double): number = double
                case .string, .bool: return false
                }
                guard let bound = Double(comparison.text) else { return false }
                let holds = switch comparison.op {
                case .above: number > bound
                case .atLeast: number >= bound
                case .below: number < bound
                case .atMost: number <= bound
                case .other: number != bound
                }
                if !holds { return false }
            }
            return true
        }
    }

    /// Whether the name `pattern` matches the name `name`.
    static func nameMatches(_ pattern: String, _ name: String) -> Bool {
        if pattern.hasSuffix(".*") { return name.hasPrefix(String(pattern.dropLast())) }
        return name == pattern
    }

    /// Whether an attribute's value is the wanted text: as it prints, or as a number of the same value.
    static func valueMatches(_ value: AppEventValue, _ wanted: String) -> Bool {
        if value.description == wanted { return true }
        switch value {
        case .int(let integer): return isExactly(integer, wanted)
        case .double(let double): return Double(wanted) == double
        case .string, .bool: return false
        }
    }

    /// Whether the decimal text (`-12`, `2.0`, `20e-1`) says exactly `integer`: compared digit by digit, never
    /// through `Double`.
    static func isExactly(_ integer: Int64, _ text: String) -> Bool {
        guard let number = decimal(text) else { return false }
        // The value is digits × 10^exponent: drop leading zeros, and move trailing zeros into the exponent.
        var digits = Array(number.digits.drop(while: { $0 == "0" }))
        var exponent = number.exponent
        while digits.last == "0" {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty { return integer == 0 }
        guard exponent >= 0, digits.count + exponent <= 19 else { return false }
        let written = String(digits) + String(repeating: "0", count: exponent)
        return written == String(integer.magnitude) && number.negative == (integer < 0)
    }

    /// Decimal text, `-?D+(.D+)?([eE][+-]?D+)?`, taken apart: its sign, its digits (whole part, then fraction) and the
    /// power of ten of the last digit; `nil` when the text is not that.
    static func decimal(_ text: String) -> (negative: Bool, digits: [Character], exponent: Int)? {
        func isDigit(_ character: Character) -> Bool { character.isASCII && character.isWholeNumber }
        var rest = Substring(text)
        let negative = rest.first == "-"
        if negative { rest = rest.dropFirst() }
        let whole = rest.prefix(while: isDigit)
        guard !whole.isEmpty else { return nil }
        rest = rest.dropFirst(whole.count)
        var fraction: Substring = ""
        if rest.first == "." {
            fraction = rest.dropFirst().prefix(while: isDigit)
            guard !fraction.isEmpty else { return nil }
            rest = rest.dropFirst(1 + fraction.count)
        }
        var power = 0
        if rest.first == "e" || rest.first == "E" {
            rest = rest.dropFirst()
            var sign = 1
            if rest.first == "+" || rest.first == "-" {
                sign = rest.first == "-" ? -1 : 1
                rest = rest.dropFirst()
            }
            let digits = rest.prefix(while: isDigit)
            guard !digits.isEmpty, digits.count <= 6, let value = Int(digits) else { return nil }
            power = sign * value
            rest = rest.dropFirst(digits.count)
        }
        guard rest.isEmpty else { return nil }
        return (negative, Array(whole) + Array(fraction), power - fraction.count)
    }
}

/// The real checker held to ``ReferenceChecker`` on 10,000 seeded variants (fixed seeds, the same every run): half
/// timelines built directly, half an app's runs through ``AppSession`` on generated traces with faults, each with
/// expectations of every form whose bounds sit on the timeline's true times, counts and delays and a nanosecond
/// either side. A second test holds the reference itself to the rules at their edges.
@Suite struct ReferenceCheckerTests {
    // MARK: The property

    @Test func agreesWithTheRealChecker() async {
        var tally = Tally()
        for seed in UInt64(1)...10_000 {
            var random = SeededRandom(seed: seed)
            tally.variants += 1
            if seed % 2 == 0 {
                tally.synthetic += 1
                Self.checkSynthetic(seed: seed, random: &random, tally: &tally)
            } else {
                tally.runs += 1
                await Self.checkRun(seed: seed, random: &random, tally: &tally)
            }
        }
        let sources = "\(tally.synthetic) built, \(tally.runs) session runs"
        let verdicts = "\(tally.verdicts) verdicts, \(tally.passes) pass, \(tally.fails) fail, \(tally.exact) with a bound exactly on the truth"
        print("ReferenceChecker: \(tally.variants) variants (\(sources)), \(verdicts), \(tally.disagreements) disagreements")
        #expect(tally.problems.isEmpty, "\(tally.problems.count) runs could not be compared:\n\(tally.problems.prefix(5).joined(separator: "\n"))")
        #expect(tally.disagreements == 0, "\(tally.disagreements) disagreements; the first:\n\(tally.reports.joined(separator: "\n\n"))")
        #expect(tally.verdicts >= 100_000)
        #expect(tally.passes * 10 >= tally.verdicts, "only \(tally.passes) of \(tally.verdicts) verdicts pass")
        #expect(tally.fails * 10 >= tally.verdicts, "only \(tally.fails) of \(tally.verdicts) verdicts fail")
        #expect(tally.exact * 10 >= tally.verdicts, "only \(tally.exact) of \(tally.verdicts) have a bound on the truth")
    }

    /// A timeline built directly, with a dozen expectations checked by both.
    static func checkSynthetic(seed: UInt64, random: inout SeededRandom, tally: inout Tally) {
        let (timeline, start) = syntheticTimeline(&random)
        let reference = ReferenceChecker(timeline, start: start)
        let maker = ExpectationMaker(reference: reference, vocabulary: .synthetic)
        for index in 0..<12 {
            let generated = maker.make(form: index % 5, random: &random)
            let real = generated.expectation.check(timeline, start: start)
            tally.record(
                generated, real: real, reference: reference.passes(generated.expectation),
                context: "seed \(seed) (built timeline), start \(start)\n\(Self.render(timeline, start: start))")
        }
    }

    /// A run of ``Echo`` through the session: a first run to learn its timeline, then a second with expectations
    /// written from that timeline, whose verdicts are compared with the reference's on it.
    static func checkRun(seed: UInt64, random: inout SeededRandom, tally: inout Tally) async {
        let run = Run.generated(seed: seed, random: &random)
        // Each observed channel is named by a probe, so that both runs observe the same inputs.
        let probes = run.observed.map { EventExpectation(event: "input:\($0)") }
        let first: SessionResult
        do {
            first = try await run.session(probes).run()
        } catch {
            tally.problems.append("seed \(seed): the first run threw \(error)")
            return
        }
        guard let timeline = run.rebuiltTimeline(events: first.events, start: first.start) else {
            tally.problems.append("seed \(seed): the session's timeline could not be rebuilt from its events; \(run)")
            return
        }
        let reference = ReferenceChecker(timeline, start: first.start)
        let maker = ExpectationMaker(reference: reference, vocabulary: .run(observing: run.observed))
        var generated = probes.map { Generated(expectation: $0, exact: false) }
        for index in 0..<12 { generated.append(maker.make(form: index % 5, random: &random)) }
        let second: SessionResult
        do {
            second = try await run.session(generated.map(\.expectation)).run()
        } catch {
            tally.problems.append("seed \(seed): the second run threw \(error)")
            return
        }
        guard second.events == first.events, second.start == first.start, second.expectations.count == generated.count else {
            tally.problems.append("seed \(seed): the second run differs from the first; \(run)")
            return
        }
        for (item, real) in zip(generated, second.expectations) {
            tally.record(
                item, real: real, reference: reference.passes(item.expectation),
                context: "seed \(seed) (session run: \(run)), start \(first.start)\n\(Self.render(timeline, start: first.start))")
        }
    }

    // MARK: The reference at the rules' edges

    @Test func theReferenceFollowsTheRulesAtTheirEdges() {
        let s: Int64 = 1_000_000_000
        func input(_ name: String, device: Int64, delivered: Int64, _ attributes: [String: AppEventValue] = [:]) -> EventTimeline.Entry {
            let event = AppEvent(timestamp: Timestamp(nanoseconds: device), name: name, attributes: attributes)
            return EventTimeline.Entry(event: event, delivered: Timestamp(nanoseconds: delivered))
        }
        func app(_ name: String, _ time: Int64, _ attributes: [String: AppEventValue] = [:]) -> EventTimeline.Entry {
            input(name, device: time, delivered: time, attributes)
        }
        func holds(_ entries: [EventTimeline.Entry], _ expectation: EventExpectation) -> Bool {
            var timeline = EventTimeline()
            for entry in entries { timeline.append(input: entry.event, deliveredAt: entry.delivered) }
            return ReferenceChecker(timeline, start: .zero).passes(expectation)
        }
        func ns(_ nanoseconds: Int64) -> Seconds { Seconds(nanoseconds: nanoseconds) }
        func m(_ name: String, _ with: [String: AttributeMatch]? = nil) -> EventMatcher { EventMatcher(event: name, with: with) }
        func delivery(_ expectation: EventExpectation) -> EventExpectation {
            var expectation = expectation
            expectation.inputTime = .delivery
            return expectation
        }

        // A window's ends are included, to the nanosecond.
        let one = [app("a", s)]
        #expect(holds(one, EventExpectation(event: "a", between: [1, 2])))
        #expect(holds(one, EventExpectation(event: "a", between: [0, 1])))
        #expect(holds(one, EventExpectation(event: "a", between: [1, 1])))
        #expect(!holds(one, EventExpectation(event: "a", between: [ns(s + 1), 2])))
        #expect(!holds(one, EventExpectation(event: "a", between: [0, ns(s - 1)])))
        #expect(!holds(one, EventExpectation(no: "a", between: [1, 1])))
        #expect(holds(one, EventExpectation(no: "a", between: [ns(s + 1), 2])))

        // A delay exactly at the bound holds; measured from the device's time unless the delivery is asked for.
        let release = m("input:touch", ["phase": "release"])
        let tap = [input("input:touch", device: s, delivered: 1_200_000_000, ["phase": "release"]), app("c", 1_500_000_000)]
        #expect(holds(tap, .response(each: release, then: m("c"), within: ns(500_000_000))))
        #expect(!holds(tap, .response(each: release, then: m("c"), within: ns(499_999_999))))
        #expect(holds(tap, delivery(.response(each: release, then: m("c"), within: ns(300_000_000)))))
        #expect(!holds(tap, delivery(.response(each: release, then: m("c"), within: ns(299_999_999)))))
        #expect(holds(tap, .cause(never: m("c"), without: release, within: ns(500_000_000))))
        #expect(!holds(tap, .cause(never: m("c"), without: release, within: ns(499_999_999))))
        #expect(holds(tap, delivery(.cause(never: m("c"), without: release, within: ns(300_000_000)))))
        #expect(!holds(tap, EventExpectation(event: "input:touch", between: [ns(1_200_000_000), ns(1_200_000_000)])))
        #expect(holds(tap, delivery(EventExpectation(event: "input:touch", between: [ns(1_200_000_000), ns(1_200_000_000)]))))

        // An entry that is both X and Y causes a later Y, never itself.
        let both = EventExpectation.cause(never: m("a.x"), without: m("a.*"))
        #expect(!holds([app("a.x", 0)], both))
        #expect(!holds([app("a.x", 0), app("a.x", 0)], both))
        #expect(holds([app("a.y", 0), app("a.x", 0), app("a.x", 0)], both))
        #expect(holds([app("a.y", 0), app("a.x", s)], .cause(never: m("a.x"), without: m("a.*"), within: 1)))
        #expect(!holds([app("a.y", 0), app("a.x", s)], .cause(never: m("a.x"), without: m("a.*"), within: ns(s - 1))))
        // Each Y takes the latest unused X: the second `c` is left the `a` at 0, 1.05 s before it.
        let causes = [app("a", 0), app("a", 600_000_000), app("c", s), app("c", 1_050_000_000)]
        #expect(!holds(causes, .cause(never: m("c"), without: m("a"), within: ns(500_000_000))))
        #expect(holds(causes, .cause(never: m("c"), without: m("a"), within: ns(1_050_000_000))))
        #expect(!holds(causes + [app("c", 2 * s)], .cause(never: m("c"), without: m("a"))))

        // What a form is about never happens: `each`, `never` and `no` hold; `event` does not.
        #expect(holds([app("b", 0), app("c", 0)], .response(each: m("a"), then: m("b"), within: 0)))
        #expect(holds([], .response(each: m("a"), then: m("b"), within: 0)))
        #expect(holds([app("b", 0)], .cause(never: m("a"), without: m("b"))))
        #expect(holds([app("b", 0)], EventExpectation(no: "a")))
        #expect(!holds([app("b", 0)], EventExpectation(event: "a")))
        #expect(holds([app("b", 0)], EventExpectation(event: "a", count: 0)))
        // An X with no Y after it fails, however near a Y before it.
        #expect(!holds([app("b", 0), app("a", s)], .response(each: m("a"), then: m("b"), within: 10)))

        // A span that never opens holds nothing.
        let unopened = EventExpectation.Span(from: m("c"), to: m("b"))
        let ab = [app("a", 0), app("b", s)]
        #expect(holds(ab, EventExpectation(no: "a", during: unopened)))
        #expect(!holds(ab, EventExpectation(event: "a", during: unopened)))
        #expect(holds(ab, EventExpectation(event: "a", during: unopened, count: 0)))
        // An entry that matches `from` and `to` with no span open only opens one; the next `to` closes it; both in it.
        let selfClosing = EventExpectation.Span(from: m("a.*"), to: m("a.x"))
        let spanned = [app("a.x", 0), app("c", 0), app("a.x", 0), app("c", 0)]
        #expect(holds(spanned, EventExpectation(event: "c", during: selfClosing, count: 1)))
        #expect(holds(spanned, EventExpectation(event: "a.x", during: selfClosing, count: 2)))
        // A `from` inside an open span does nothing; a span never closed lasts to the end.
        let bc = EventExpectation.Span(from: m("b"), to: m("c"))
        let reopened = [app("b", 0), app("b", 0), app("c", 0), app("a", 0), app("b", 0), app("a", 0)]
        #expect(holds(reopened, EventExpectation(event: "a", during: bc, count: 1)))
        #expect(holds(reopened, EventExpectation(event: "b", during: bc, count: 3)))
        #expect(holds(reopened, EventExpectation(event: "c", during: bc, count: 1)))

        // Equal timestamps keep the run's order.
        let tied = [app("b", s), app("a", s), app("c", s)]
        #expect(!holds(tied, .response(each: m("a"), then: m("b"), within: 1)))
        #expect(holds(tied, .response(each: m("b"), then: m("a"), within: 0)))
        #expect(!holds(tied, .cause(never: m("b"), without: m("a"))))
        #expect(holds(tied, .cause(never: m("c"), without: m("a"), within: 0)))
        let ac = EventExpectation.Span(from: m("a"), to: m("c"))
        #expect(holds(tied, EventExpectation(no: "b", during: ac)))
        #expect(holds(tied, EventExpectation(event: "c", during: ac, count: 1)))
        // The Y after an X is the next in the run's order, even when it is stamped earlier: its delay is negative.
        #expect(holds([app("a", 2 * s), app("b", s)], .response(each: m("a"), then: m("b"), within: 0)))

        // Names and values.
        let valued = [app("a.x", 0, ["k": 2]), app("ab", 0, ["k": "2"]), app("a", 0, ["k": 2.5]), app("c", 0, ["k": .int(9_007_199_254_740_993)])]
        #expect(holds(valued, EventExpectation(event: "a.*", count: 1)))
        for wanted in ["2", "2.0", "20e-1", "0.2e1", "2.000", "2E0"] {
            #expect(holds(valued, EventExpectation(event: "a.x", with: ["k": .value(wanted)])), "\(wanted)")
        }
        for wanted in ["2.5", "-2", "3", "x", "2e-1", "2.", ".2e1", "+2"] {
            #expect(!holds(valued, EventExpectation(event: "a.x", with: ["k": .value(wanted)])), "\(wanted)")
        }
        #expect(holds(valued, EventExpectation(event: "ab", with: ["k": "2"])))
        #expect(!holds(valued, EventExpectation(event: "ab", with: ["k": "2.0"])))
        #expect(holds(valued, EventExpectation(event: "a", with: ["k": "2.50"])))
        #expect(!holds(valued, EventExpectation(event: "a", with: ["k": "2"])))
        #expect(!holds(valued, EventExpectation(event: "a", with: ["z": "2.5"])))
        #expect(holds(valued, EventExpectation(event: "c", with: ["k": "9007199254740993"])))
        #expect(!holds(valued, EventExpectation(event: "c", with: ["k": "9007199254740992"])))
        #expect(!holds(valued, EventExpectation(event: "c", with: ["k": "9007199254740992.0"])))
    }

    // MARK: Generated timelines

    /// 1 to 40 entries named from a small set, on a 1 ms grid (so many times are equal), some a nanosecond off;
    /// inputs delivered at or after their device time, app events at their own. A quarter of the timelines have
    /// times in no order at all.
    static func syntheticTimeline(_ random: inout SeededRandom) -> (EventTimeline, Timestamp) {
        let ms: Int64 = 1_000_000
        let start = Timestamp(nanoseconds: Int64(random.inRange(0...5)) * 1_000 * ms)
        let inOrder = random.chance(75)
        var clock: Int64 = 0
        var timeline = EventTimeline()
        for _ in 0..<random.inRange(1...40) {
            let name = random.pick(["a", "a", "b", "b", "c", "a.x", "ab", "input:touch", "input:touch"])
            clock = inOrder ? clock + random.pick([0, 0, 0, 1, 2, 5] as [Int64]) * ms : Int64(random.inRange(0...50)) * ms
            let delivered = start.nanoseconds + clock + (random.chance(15) ? random.pick([-1, 1] as [Int64]) : 0)
            var attributes: [String: AppEventValue] = [:]
            if random.chance(55) {
                let values: [AppEventValue] = [.int(1), .int(2), .int(3), .int(2), .string("2"), .string("x"), .double(2), .double(2.5)]
                attributes["k"] = random.pick(values)
            }
            if random.chance(25) { attributes["m"] = random.pick([.bool(true), .string("y"), .int(1), .double(1)] as [AppEventValue]) }
            if name.hasPrefix("input:") {
                attributes["phase"] = .string(random.pick(["press", "release"]))
                let device = delivered - random.pick([0, 0, 1, ms, 3 * ms, 10 * ms] as [Int64])
                timeline.append(
                    input: AppEvent(timestamp: Timestamp(nanoseconds: device), name: name, attributes: attributes),
                    deliveredAt: Timestamp(nanoseconds: delivered))
            } else {
                timeline.append([AppEvent(timestamp: Timestamp(nanoseconds: delivered), name: name, attributes: attributes)])
            }
        }
        return (timeline, start)
    }

    /// The app of the session runs: it marks every reading it is handed with `got` (its channel in `ch`), first, so
    /// that the checked timeline can be rebuilt from its events; answers a press with `a`, a release with `a.x`, `b`
    /// and a `c` after `delay`; and a motion sample now and then with `b` or `ab`.
    struct Echo: AppLogic {
        static let name = "echo"
        var delay: Duration
        var presses = 0
        var samples = 0
        var pending: [Timestamp] = []

        mutating func start(at time: Timestamp, output: inout AppOutput) {}

        mutating func handle(_ input: AppInput, output: inout AppOutput) {
            guard case .reading(let reading, let channel?) = input else { return }
            let time = input.timestamp
            output.emit("got", at: time, ["ch": .string(channel)])
            switch reading {
            case .pointer(let event) where event.phase == .press:
                presses += 1
                output.emit("a", at: time, ["k": .int(Int64(presses % 3 + 1))])
            case .pointer(let event) where event.phase == .release:
                output.emit("a.x", at: time)
                output.emit("b", at: time, ["k": .string(String(presses % 2 + 1))])
                if delay == .zero {
                    output.emit("c", at: time, ["k": 3])
                } else {
                    pending.append(time + delay)
                }
            case .motion:
                samples += 1
                if samples % 3 == 0 { output.emit("b", at: time, ["k": 2]) }
                if samples % 4 == 1 { output.emit("ab", at: time) }
            default:
                break
            }
        }

        var nextDeadline: Timestamp? { pending.first }

        mutating func advance(to time: Timestamp, output: inout AppOutput) {
            while let first = pending.first, first <= time {
                pending.removeFirst()
                output.emit("c", at: first, ["k": 3])
            }
        }
    }

    /// One generated session run: a trace of taps and up to two motion channels, a fault plan of 1 to 4 faults, the
    /// app's answer delay, and the channels the expectations name.
    struct Run: CustomStringConvertible {
        var trace: Trace
        var plan: FaultPlan
        var delay: Duration
        /// The channels whose inputs the expectations name, so the session observes them.
        var observed: [String]

        var description: String {
            let channels = trace.header.channels.map { channel in channel.id + (channel.rate.map { rate in "@\(Int(rate)) Hz" } ?? "") }
            let faults = plan.faults.map { fault in
                let size = fault.magnitude.map { " \($0) s" } ?? fault.probability.map { " p=\($0)" } ?? ""
                return "\(fault.kind.rawValue)@\(fault.channel ?? "all")\(size)"
            }
            return "channels \(channels), \(trace.records.count) records, faults \(faults) (seed \(plan.seed)), delay \(delay), observing \(observed)"
        }

        /// 1 to 4 taps, 20 to 120 ms long, on a 1 ms grid; 0 to 2 motion channels at 5 to 20 Hz for half a second;
        /// 1 to 4 latency, jitter, reorder, duplicate and drop faults on one channel or all.
        static func generated(seed: UInt64, random: inout SeededRandom) -> Run {
            let ms: Int64 = 1_000_000
            let base: Int64 = 2_000_000_000
            var channels = [TraceChannel(id: "touch", kind: .pointer, source: "test:touch")]
            var motions: [(quantity: MotionQuantity, rate: Int)] = []
            let motionChannels: [(id: String, quantity: MotionQuantity, kind: DeviceKind)] = [
                ("accel", .acceleration, .accelerometer), ("gyro", .angularVelocity, .gyroscope),
            ]
            for motion in motionChannels where random.chance(50) {
                let rate = random.pick([5, 10, 20])
                channels.append(TraceChannel(id: motion.id, kind: motion.kind, source: "test:\(motion.id)", rate: Double(rate)))
                motions.append((quantity: motion.quantity, rate: rate))
            }
            var records: [TraceRecord] = []
            var time = Int64(random.inRange(0...60)) * ms
            for _ in 0..<random.inRange(1...4) {
                let release = time + Int64(random.pick([20, 50, 80, 120])) * ms
                let x = random.pick([0.5, 0.25] as [Double])
                for (at, phase) in [(time, PointerPhase.press), (release, .release)] {
                    let event = PointerEvent(timestamp: Timestamp(nanoseconds: base + at), phase: phase, x: x, y: 0.5)
                    records.append(TraceRecord(channel: 0, reading: .pointer(event)))
                }
                time = release + Int64(random.inRange(10...150)) * ms
            }
            for (index, motion) in motions.enumerated() {
                let period = Int64(1_000 / motion.rate) * ms
                var at = Int64(random.inRange(0...(1_000 / motion.rate - 1))) * ms
                while at <= 500 * ms {
                    let value = Vector3(x: random.pick([0, 1, 0.5] as [Double]), y: 0, z: 9.81)
                    let sample = MotionSample(timestamp: Timestamp(nanoseconds: base + at), quantity: motion.quantity, value: value)
                    records.append(TraceRecord(channel: index + 1, motion: sample))
                    at += period
                }
            }
            records.sort { ($0.timestamp, $0.channel) < ($1.timestamp, $1.channel) }
            let ids = channels.map(\.id)
            var faults: [Fault] = []
            for _ in 0..<random.inRange(1...4) {
                let channel: String? = random.chance(20) ? nil : random.pick(ids)
                switch random.pick([Fault.Kind.latency, .jitter, .reorder, .duplicate, .drop]) {
                case .latency: faults.append(Fault(.latency, channel: channel, magnitude: random.pick([0.001, 0.005, 0.02, 0.05, 0.1] as [Double])))
                case .jitter: faults.append(Fault(.jitter, channel: channel, magnitude: random.pick([0.0005, 0.002, 0.01] as [Double])))
                case let kind: faults.append(Fault(kind, channel: channel, probability: random.pick([0.1, 0.25, 0.4] as [Double])))
                }
            }
            var observed = ["touch"]
            for id in ids.dropFirst() where random.chance(50) { observed.append(id) }
            let delay = random.pick([.zero, .milliseconds(3), .milliseconds(20), .milliseconds(37)] as [Duration])
            return Run(
                trace: Trace(header: TraceHeader(channels: channels), records: records), plan: FaultPlan(seed: seed, faults: faults),
                delay: delay, observed: observed)
        }

        /// The session, checking `expectations`.
        func session(_ expectations: [EventExpectation]) -> AppSession<Echo> {
            AppSession(Echo(delay: delay), inputs: trace, faults: plan, expectations: expectations)
        }

        /// The timeline the session checked, rebuilt from its events: each `got` marks where a reading was handed to
        /// the app, so the observed reading stands just before it, with the device's time from the fault plan's
        /// deliveries and its delivery at the latest arrival so far (never before the start). `nil` when a marker
        /// disagrees with the deliveries (its channel or its time) or their numbers differ.
        func rebuiltTimeline(events: [AppEvent], start: Timestamp) -> EventTimeline? {
            let deliveries = FaultInjector(plan: plan, header: trace.header).deliveries(of: trace.records)
            var timeline = EventTimeline()
            var next = 0
            var now = start
            for event in events {
                if event.name == "got" {
                    guard next < deliveries.count else { return nil }
                    let delivery = deliveries[next]
                    next += 1
                    let channel = trace.header.channels[delivery.record.channel].id
                    now = max(now, delivery.arrival)
                    guard event.timestamp == now, event.attributes["ch"] == AppEventValue.string(channel) else { return nil }
                    if observed.contains(channel) {
                        guard let input = AppInputObservations.event(for: .reading(delivery.record.reading, channel: channel)) else { return nil }
                        timeline.append(input: input, deliveredAt: now)
                    }
                }
                timeline.append([event])
            }
            return next == deliveries.count ? timeline : nil
        }
    }

    // MARK: Generated expectations

    /// The names a generated expectation may use, and the attribute values it may ask of each.
    struct Vocabulary {
        var names: [String]
        var attributes: [String: [(key: String, value: String)]]

        /// Wanted values of the app events' `k` (integers, strings and doubles), and of a key no event carries.
        static let appValues: [(key: String, value: String)] = [
            ("k", "1"), ("k", "2"), ("k", "3"), ("k", "2.0"), ("k", "20e-1"), ("k", "2.5"), ("k", "2.50"), ("k", "x"), ("k", "-1"),
            ("z", "1"),
        ]

        /// For built timelines.
        static var synthetic: Vocabulary {
            let values = appValues + [("m", "true"), ("m", "y"), ("m", "1"), ("m", "1.0")]
            var attributes: [String: [(key: String, value: String)]] = [:]
            for name in ["a", "b", "c", "a.x", "a.*", "ab", "b.*"] { attributes[name] = values }
            attributes["input:touch"] = [("phase", "press"), ("phase", "release"), ("phase", "release"), ("k", "2")]
            return Vocabulary(
                names: ["a", "a", "b", "b", "c", "a.x", "a.*", "ab", "b.*", "input:touch", "input:touch"], attributes: attributes)
        }

        /// For ``Echo``'s runs, with the inputs of the `observed` channels: only names and attributes the session
        /// accepts (an input's attributes are its kind's).
        static func run(observing observed: [String]) -> Vocabulary {
            var attributes: [String: [(key: String, value: String)]] = [:]
            for name in ["a", "b", "c", "a.x", "a.*", "ab"] { attributes[name] = appValues }
            attributes["got"] = [("ch", "touch"), ("ch", "accel"), ("ch", "gyro")]
            attributes["input:touch"] = [
                ("phase", "press"), ("phase", "release"), ("phase", "release"), ("pointer", "0"), ("pointer", "0.0"), ("pointer", "1"),
                ("x", "0.5"), ("x", "5e-1"), ("x", "0.25"),
            ]
            let motion: [(key: String, value: String)] = [("x", "0"), ("x", "0.0"), ("x", "1"), ("x", "1e0"), ("x", "0.5"), ("z", "9.81")]
            var names = ["a", "a", "b", "c", "c", "a.x", "a.*", "ab", "got", "input:touch", "input:touch"]
            for channel in observed where channel != "touch" {
                attributes["input:\(channel)"] = motion
                names.append("input:\(channel)")
            }
            return Vocabulary(names: names, attributes: attributes)
        }
    }

    /// A generated expectation, and whether one of its bounds (a window's end, a count, a `within`) is exactly the
    /// true value it was drawn from.
    struct Generated {
        var expectation: EventExpectation
        var exact: Bool
    }

    /// Writes expectations about one timeline, their bounds drawn from its true times, counts and delays (worked out
    /// by the reference), exactly or a nanosecond (or one) either side.
    struct ExpectationMaker {
        let reference: ReferenceChecker
        let vocabulary: Vocabulary
        /// The latest relative time in the timeline, at least 1 ms: the scale of bounds drawn at random.
        let horizon: Int64

        init(reference: ReferenceChecker, vocabulary: Vocabulary) {
            self.reference = reference
            self.vocabulary = vocabulary
            var latest: Int64 = 1_000_000
            for index in reference.entries.indices {
                latest = max(latest, reference.time(index, .device), reference.time(index, .delivery))
            }
            horizon = latest
        }

        static let nudges: [Int64] = [-1, 0, 0, 1]

        /// An expectation of form `form`: 0 `event`, 1 `event` with `count`, 2 `no`, 3 `each`/`then`, 4 `never`/`without`.
        func make(form: Int, random: inout SeededRandom) -> Generated {
            switch form {
            case 0: eventForm(no: false, counted: false, &random)
            case 1: eventForm(no: false, counted: true, &random)
            case 2: eventForm(no: true, counted: false, &random)
            case 3: responseForm(&random)
            default: causeForm(&random)
            }
        }

        func instant(_ random: inout SeededRandom) -> EventExpectation.InputTime? {
            random.pick([nil, .device, .delivery] as [EventExpectation.InputTime?])
        }

        func attributes(for name: String, _ random: inout SeededRandom) -> [String: AttributeMatch]? {
            guard let choices = vocabulary.attributes[name], !choices.isEmpty, random.chance(45) else { return nil }
            var with: [String: AttributeMatch] = [:]
            for _ in 0..<(random.chance(20) ? 2 : 1) {
                let choice = random.pick(choices)
                with[choice.key] = .value(choice.value)
            }
            // Comparisons on `k`, with bounds on and between its values (halves: exact as Doubles).
            if random.chance(30), choices.contains(where: { $0.key == "k" }) {
                let bounds = ["0.5", "1", "1.5", "2", "2.5", "3", "3.5"]
                var comparisons: [AttributeMatch.Comparison] = []
                for _ in 0..<(random.chance(30) ? 2 : 1) {
                    let op = random.pick(AttributeMatch.Comparison.Operator.allCases)
                    comparisons.append(op == .other && random.chance(20)
                        ? AttributeMatch.Comparison(notText: "x") : AttributeMatch.Comparison(op, ExactDecimal(random.pick(bounds))!))
                }
                with["k"] = .compare(comparisons)
            }
            return with
        }

        func matcher(_ random: inout SeededRandom) -> EventMatcher {
            let name = random.pick(vocabulary.names)
            return EventMatcher(event: name, with: attributes(for: name, &random))
        }

        func eventForm(no: Bool, counted: Bool, _ random: inout SeededRandom) -> Generated {
            let name = random.pick(vocabulary.names)
            let with = attributes(for: name, &random)
            var expectation = no ? EventExpectation(no: name, with: with) : EventExpectation(event: name, with: with)
            expectation.inputTime = instant(&random)
            var exact = false
            if random.chance(counted ? 35 : 55) {
                let at = expectation.inputTime ?? .device
                let truth = reference.entries.indices
                    .filter { ReferenceChecker.matches(name, with, reference.entries[$0].event) }
                    .map { reference.time($0, at) }
                let (from, to) = window(around: truth, &random)
                expectation.between = [Seconds(nanoseconds: from), Seconds(nanoseconds: to)]
                exact = truth.contains(from) || truth.contains(to)
            }
            if random.chance(35) { expectation.during = EventExpectation.Span(from: matcher(&random), to: matcher(&random)) }
            if counted {
                let truth = reference.hitCount(expectation)
                let count = max(0, truth + random.pick([-1, 0, 0, 1]))
                expectation.count = count
                exact = exact || count == truth
            }
            return Generated(expectation: expectation, exact: exact)
        }

        /// A window with its ends on true times, or a nanosecond off them; now and then one at random, or open-ended.
        func window(around truth: [Int64], _ random: inout SeededRandom) -> (Int64, Int64) {
            if truth.isEmpty || random.chance(15) {
                let from = Int64(random.inRange(-1...100)) * horizon / 100
                return (from, from + Int64(random.inRange(0...60)) * horizon / 100)
            }
            var from = random.pick(truth) + random.pick(Self.nudges)
            var to = random.chance(25) ? from : random.pick(truth) + random.pick(Self.nudges)
            if from > to { swap(&from, &to) }
            if random.chance(15) { to += 10_000_000_000 }
            return (from, to)
        }

        /// A bound on delays: the worst, or a nanosecond either side, or another of them; at random when no delay is known.
        func limit(_ delays: [Int64]?, _ random: inout SeededRandom) -> (limit: Int64, exact: Bool) {
            guard let delays, let worst = delays.max(), random.chance(85) else {
                return (Int64(random.inRange(0...20)) * horizon / 20, false)
            }
            let limit = max(0, random.chance(15) ? random.pick(delays) : worst + random.pick(Self.nudges))
            return (limit, limit == worst)
        }

        func responseForm(_ random: inout SeededRandom) -> Generated {
            let each = matcher(&random), then = matcher(&random)
            let inputTime = instant(&random)
            let (limit, exact) = self.limit(reference.responseDelays(each: each, then: then, instant: inputTime ?? .device), &random)
            var expectation = EventExpectation.response(each: each, then: then, within: Seconds(nanoseconds: limit))
            expectation.inputTime = inputTime
            return Generated(expectation: expectation, exact: exact)
        }

        func causeForm(_ random: inout SeededRandom) -> Generated {
            let never = matcher(&random), without = matcher(&random)
            let inputTime = instant(&random)
            var expectation = EventExpectation.cause(never: never, without: without)
            expectation.inputTime = inputTime
            guard random.chance(75) else { return Generated(expectation: expectation, exact: false) }
            let (limit, exact) = self.limit(reference.causeDelays(never: never, without: without, instant: inputTime ?? .device), &random)
            expectation.within = Seconds(nanoseconds: limit)
            return Generated(expectation: expectation, exact: exact)
        }
    }

    // MARK: Bookkeeping

    /// What the property test saw: verdicts by the reference's answer, bounds on the truth, and the disagreements.
    struct Tally {
        var variants = 0, synthetic = 0, runs = 0
        var verdicts = 0, passes = 0, fails = 0, exact = 0
        var disagreements = 0
        /// The first disagreements, readable.
        var reports: [String] = []
        /// Runs that could not be compared (the session threw, or its timeline could not be rebuilt).
        var problems: [String] = []

        mutating func record(_ generated: Generated, real: EventExpectationResult, reference: Bool, context: @autoclosure () -> String) {
            verdicts += 1
            if reference { passes += 1 } else { fails += 1 }
            if generated.exact { exact += 1 }
            guard real.passed != reference else { return }
            disagreements += 1
            if reports.count < 3 {
                let expectation = ReferenceCheckerTests.describe(generated.expectation)
                reports.append("\(expectation)\n  real: \(real.line)\n  reference: \(reference ? "PASS" : "FAIL")\n\(context())")
            }
        }
    }

    // MARK: Dumps

    /// The timeline, one entry a line, with times relative to `start`.
    static func render(_ timeline: EventTimeline, start: Timestamp) -> String {
        timeline.entries.enumerated().map { index, entry in
            let device = entry.event.timestamp.nanoseconds - start.nanoseconds
            let delivered = entry.delivered.nanoseconds - start.nanoseconds
            let time = device == delivered
                ? "at \(Seconds(nanoseconds: device)) s"
                : "device \(Seconds(nanoseconds: device)) s, delivered \(Seconds(nanoseconds: delivered)) s"
            return "  #\(index) \(identity(entry.event)) \(time)"
        }.joined(separator: "\n")
    }

    /// `name{key=value,…}`, strings quoted so that `"2"` and `2` are told apart.
    static func identity(_ event: AppEvent) -> String {
        let attributes = event.attributes.sorted { $0.key < $1.key }.map { key, value in
            if case .string(let text) = value { return "\(key)=\"\(text)\"" }
            if case .double(let number) = value { return "\(key)=\(number)d" }
            return "\(key)=\(value.description)"
        }
        return attributes.isEmpty ? event.name : "\(event.name){\(attributes.joined(separator: ","))}"
    }

    static func describe(_ matcher: EventMatcher) -> String {
        describe(matcher.event, matcher.with)
    }

    static func describe(_ name: String, _ with: [String: AttributeMatch]?) -> String {
        let attributes = (with ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)\($0.value)" }
        return attributes.isEmpty ? name : "\(name){\(attributes.joined(separator: ","))}"
    }

    /// Every field the expectation sets.
    static func describe(_ expectation: EventExpectation) -> String {
        var parts: [String] = []
        if let event = expectation.event { parts.append("event \(describe(event, expectation.with))") }
        if let no = expectation.no { parts.append("no \(describe(no, expectation.with))") }
        if let between = expectation.between { parts.append("between [\(between.map { "\($0) s" }.joined(separator: ", "))]") }
        if let during = expectation.during { parts.append("during \(describe(during.from)) … \(describe(during.to))") }
        if let count = expectation.count { parts.append("count \(count)") }
        if let each = expectation.each { parts.append("each \(describe(each))") }
        if let then = expectation.then { parts.append("then \(describe(then))") }
        if let never = expectation.never { parts.append("never \(describe(never))") }
        if let without = expectation.without { parts.append("without \(describe(without))") }
        if let within = expectation.within { parts.append("within \(within) s") }
        if let inputTime = expectation.inputTime { parts.append("inputTime \(inputTime.rawValue)") }
        return parts.joined(separator: ", ")
    }
}

/// Draws for the generator, on HAL's seeded generator, so that every run of the suite draws the same variants.
extension SeededRandom {
    /// 0 ..< `bound`.
    fileprivate mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    fileprivate mutating func inRange(_ range: ClosedRange<Int>) -> Int { range.lowerBound + below(range.count) }
    fileprivate mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    fileprivate mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }
}
