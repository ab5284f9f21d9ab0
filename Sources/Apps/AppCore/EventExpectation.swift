public import HAL

/// Which events an expectation is about: a name, and what its attributes must be (``AttributeMatch``).
///
/// A value matches as it prints (`release`, `true`), and a number matches a number of the same value: `"160"` or
/// `160` matches an attribute of 160 whether the event holds it as an integer or as 160.0. Comparisons
/// (`{">": 24.5}`) and a distance from a point (`"position": {"within": 25, "of": [lat, lon]}`) match ranges.
///
/// A name ending in `.*` matches every event under it (`answer.*`). Names with a colon match what the app was fed
/// rather than what it did (``AppInputObservations``): `input:CHANNEL` a reading of that channel, with attributes such
/// as `phase` for a pointer, and `command:ACTION` a user command, with its arguments.
public struct EventMatcher: Sendable, Hashable, Codable {
    /// The event name, such as `place.arrived`.
    public var event: String
    /// What the attributes must be.
    public var with: [String: AttributeMatch]?

    /// Creates a matcher.
    public init(event: String, with: [String: AttributeMatch]? = nil) {
        self.event = event
        self.with = with
    }

    private enum CodingKeys: String, CodingKey { case event, with }

    /// Reads the compact text form (``CompactMatcher``), or the object `{"event": NAME, "with": {…}}` whose name may
    /// carry its attributes in the compact form too.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
            self = try Self.compact(text, codingPath: decoder.codingPath)
            return
        }
        let object = try decoder.container(keyedBy: CodingKeys.self)
        self = try Self.named(object.decode(String.self, forKey: .event), with: object.decodeIfPresent([String: AttributeMatch].self, forKey: .with),
                              codingPath: decoder.codingPath + [CodingKeys.event])
    }

    /// `text` in the compact form, or a decoding error at `codingPath` saying why not.
    static func compact(_ text: String, codingPath: [any CodingKey]) throws -> EventMatcher {
        do throws(CompactMatcher.SyntaxError) {
            return try CompactMatcher.parse(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: error.description))
        }
    }

    /// The matcher of a `name` that may carry attributes (`input:accel{magnitude>24.5}`), with those of `with`; the
    /// same attribute in both is an error at `codingPath`.
    static func named(_ name: String, with: [String: AttributeMatch]?, codingPath: [any CodingKey]) throws -> EventMatcher {
        guard name.contains("{") else { return EventMatcher(event: name, with: with) }
        let inline = try compact(name, codingPath: codingPath)
        var merged = inline.with ?? [:]
        for (key, match) in with ?? [:] {
            guard merged[key] == nil else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "'\(key)' is given both in the name's {…} and in 'with'"))
            }
            merged[key] = match
        }
        return EventMatcher(event: inline.event, with: merged)
    }

    /// Whether `event` matches.
    public func matches(_ event: AppEvent) -> Bool {
        matches(name: event.name) && (with ?? [:]).allSatisfy { key, wanted in wanted.matches(key: key, in: event.attributes) }
    }

    /// Whether an attribute's value is the text `wanted`: as it prints, or as a number of the same value.
    static func value(_ value: AppEventValue, is wanted: String) -> Bool {
        if value.description == wanted { return true }
        switch value {
        // An integer is compared with the text's exact value, never through `Double`: a plain integer's text is read
        // as one at once (the standard library also takes `+2`, which JSON's numbers do not), other forms (`2.0`,
        // `20e-1`) digit by digit.
        case .int(let integer):
            let plain = wanted.utf8.first == UInt8(ascii: "+") ? nil : Int64(wanted)
            return (plain ?? ExactDecimal(wanted)?.scaled(by: 0)) == integer
        case .double(let double): return Double(wanted).map { $0 == double } ?? false
        case .string, .bool: return false
        }
    }

    /// Whether an event named `name` can match: the name part of ``matches(_:)``.
    public func matches(name: String) -> Bool {
        // The last byte first: most names are not patterns, and a byte is cheaper to look at than a suffix.
        event.utf8.last == UInt8(ascii: "*") && event.hasSuffix(".*") ? name.hasPrefix(event.dropLast()) : name == event
    }

    /// Whether the matcher is about inputs (`input:…`, `command:…`) rather than the app's events.
    public var isAboutInputs: Bool { event.contains(":") }

    /// `name{key=value,…}`, or with comparisons `name{magnitude>24.5}`.
    public var description: String {
        let details = (with ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)\($0.value)" }.joined(separator: ",")
        return details.isEmpty ? event : "\(event){\(details)}"
    }
}

/// A QA expectation about a run's events, such as "arrive at the Rose Garden between 120 s and
/// 180 s", "no message notification inside Koerner Library" or "narration spoken twice".
///
/// In JSON: `{"event": NAME}` (at least once) or `{"no": NAME}` (never), with optional `with` (attributes
/// that must match), `between: [from, to]` (seconds after the run's start), `during: {"from": MATCHER,
/// "to": MATCHER}` (only while a span lasts: from each `from` event to the next `to` event, or the end),
/// and `count` (exactly that many).
///
/// Response times: `{"each": X, "then": Y, "within": S}` says every X is followed by a Y within S seconds (the first
/// Y after X); `{"never": Y, "without": X}` says no Y comes without an X before it (never itself), each X answering
/// at most one Y (the latest one not yet used), and with `"within": S` no more than S seconds before it. Both report
/// the worst case found. Every bound is inclusive and exact: times are whole nanoseconds, and so are the bounds
/// (`Seconds`). When what a form is about never happens (no X for `each`, no Y for `never`, nothing in a window or
/// span for `no`), it holds and says so; forms that say something must happen (`event`, `count`) fail.
/// `docs/apps.md` ("How expectations are checked") has the rules, each with a test at its edge. X and Y are matchers, so they may name inputs: `{"event": "input:touch", "with":
/// {"phase": "release"}}` is a tap.
///
/// Every form follows the run's order (``EventTimeline``): a span runs from its `from` entry to the next `to` entry in
/// that order, the Y that follows an X is the first one after it in the order, and the X before a Y is one before it
/// in the order, even at one timestamp. An input's time is when it happened at the device, so a response time is
/// what a person would feel, latency included; `"inputTime": "delivery"` measures from when the app was handed it.
public struct EventExpectation: Sendable, Hashable, Codable {
    /// An event that must happen.
    public var event: String?
    /// An event that must not happen.
    public var no: String?
    /// What the attributes must be.
    public var with: [String: AttributeMatch]?
    /// The window, in seconds after the run's start (both ends included, compared in whole nanoseconds).
    public var between: [Seconds]?
    /// Only inside these spans.
    public var during: Span?
    /// Exactly this many matching events.
    public var count: Int?
    /// Response time: every one of these…
    public var each: EventMatcher?
    /// …is followed by one of these…
    public var then: EventMatcher?
    /// …within this many seconds, this bound included (also the limit of `never`/`without`).
    public var within: Seconds?
    /// Response time: none of these…
    public var never: EventMatcher?
    /// …without one of these before it.
    public var without: EventMatcher?
    /// Which instant of an input the expectation's times use: when it happened at the device (when absent) or when
    /// it was delivered to the app.
    public var inputTime: InputTime?

    /// An instant of an input (``EventTimeline``).
    public enum InputTime: String, Sendable, Hashable, Codable {
        /// When it happened at the device: its record's timestamp.
        case device
        /// When it was delivered to the app, after latency and after the inputs delivered before it.
        case delivery
    }

    /// From an event to another.
    public struct Span: Sendable, Hashable, Codable {
        /// The event that opens the span.
        public var from: EventMatcher
        /// The event that closes it.
        public var to: EventMatcher

        /// Creates a span.
        public init(from: EventMatcher, to: EventMatcher) {
            self.from = from
            self.to = to
        }
    }

    private enum CodingKeys: String, CodingKey {
        case event, no, with, between, during, count, each, then, within, never, without, inputTime
    }

    /// Reads an expectation; `event` and `no` may carry their attributes in the compact form
    /// (`"event": "input:accel{magnitude>24.5}"`), as the matchers may (``CompactMatcher``).
    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        let with = try object.decodeIfPresent([String: AttributeMatch].self, forKey: .with)
        let event = try object.decodeIfPresent(String.self, forKey: .event)
            .map { try EventMatcher.named($0, with: with, codingPath: object.codingPath + [CodingKeys.event]) }
        let no = try object.decodeIfPresent(String.self, forKey: .no)
            .map { try EventMatcher.named($0, with: with, codingPath: object.codingPath + [CodingKeys.no]) }
        self.init(event: event?.event, no: no?.event, with: (event ?? no)?.with ?? with,
                  between: try object.decodeIfPresent([Seconds].self, forKey: .between),
                  during: try object.decodeIfPresent(Span.self, forKey: .during), count: try object.decodeIfPresent(Int.self, forKey: .count))
        each = try object.decodeIfPresent(EventMatcher.self, forKey: .each)
        then = try object.decodeIfPresent(EventMatcher.self, forKey: .then)
        within = try object.decodeIfPresent(Seconds.self, forKey: .within)
        never = try object.decodeIfPresent(EventMatcher.self, forKey: .never)
        without = try object.decodeIfPresent(EventMatcher.self, forKey: .without)
        inputTime = try object.decodeIfPresent(InputTime.self, forKey: .inputTime)
    }

    /// Creates an expectation.
    public init(
        event: String? = nil, no: String? = nil, with: [String: AttributeMatch]? = nil,
        between: [Seconds]? = nil, during: Span? = nil, count: Int? = nil
    ) {
        self.event = event
        self.no = no
        self.with = with
        self.between = between
        self.during = during
        self.count = count
    }

    /// Every `each` followed by a `then` within `within` seconds.
    public static func response(each: EventMatcher, then: EventMatcher, within: Seconds) -> EventExpectation {
        var expectation = EventExpectation()
        expectation.each = each
        expectation.then = then
        expectation.within = within
        return expectation
    }

    /// No `never` without a `without` before it, within `within` seconds when given.
    public static func cause(never: EventMatcher, without: EventMatcher, within: Seconds? = nil) -> EventExpectation {
        var expectation = EventExpectation()
        expectation.never = never
        expectation.without = without
        expectation.within = within
        return expectation
    }

    /// The instant of an input that the times use.
    var instant: InputTime { inputTime ?? .device }

    /// The matchers the expectation uses.
    public var matchers: [EventMatcher] {
        [event.map { EventMatcher(event: $0, with: with) }, no.map { EventMatcher(event: $0, with: with) }, each, then, never, without,
         during?.from, during?.to].compactMap { $0 }
    }

    /// Checks the expectation's fields; `field` names it in errors, such as `expect[2]`.
    public func validate(field: String) throws(AppConfigError) {
        let forms = [event != nil || no != nil, each != nil || then != nil, never != nil || without != nil].filter { $0 }.count
        guard forms == 1 else {
            throw AppConfigError(field: field, "give one of 'event', 'no', 'each' with 'then' and 'within', or 'never' with 'without'")
        }
        if let within, within < .zero { throw AppConfigError(field: "\(field).within", "\(within); expected 0 or more seconds") }
        if each != nil || then != nil || never != nil || without != nil {
            if each != nil, then == nil { throw AppConfigError(field: "\(field).then", "'each' needs 'then'") }
            if then != nil, each == nil { throw AppConfigError(field: "\(field).each", "'then' needs 'each'") }
            if each != nil, within == nil { throw AppConfigError(field: "\(field).within", "'each' … 'then' needs 'within' seconds") }
            if never != nil, without == nil { throw AppConfigError(field: "\(field).without", "'never' needs 'without'") }
            if without != nil, never == nil { throw AppConfigError(field: "\(field).never", "'without' needs 'never'") }
            if with != nil || between != nil || during != nil || count != nil {
                throw AppConfigError(field: field, "response-time expectations take their attributes inside their matchers")
            }
            return
        }
        if within != nil { throw AppConfigError(field: "\(field).within", "'within' goes with 'each' or 'never'") }
        if (event == nil) == (no == nil) { throw AppConfigError(field: field, "give exactly one of 'event' and 'no'") }
        if let between, between.count != 2 || !(between[0] <= between[1]) {
            throw AppConfigError(field: "\(field).between", "expected [from, to] in seconds with from ≤ to")
        }
        if let count, count < 0 { throw AppConfigError(field: "\(field).count", "\(count); expected 0 or more") }
        if no != nil, count != nil { throw AppConfigError(field: field, "'count' goes with 'event', not 'no'") }
    }

    /// What the expectation says, in words.
    public var summary: String {
        let measured = instant == .delivery ? " (inputs as delivered)" : ""
        if let each, let then {
            return "every \(each.description) followed by \(then.description) within \((within ?? .zero).message)\(measured)"
        }
        if let never, let without {
            return "no \(never.description) without \(without.description) before it" + (within.map { " within \($0.message)" } ?? "") + measured
        }
        let matcher = EventMatcher(event: event ?? no ?? "", with: with).description
        var text = no != nil ? "no \(matcher)" : (count.map { "\(matcher) exactly \($0)×" } ?? matcher)
        if let between { text += " between \(between[0].message) and \(between[1].message)" }
        if let during { text += " during \(during.from.description) … \(during.to.description)" }
        return text + measured
    }

    /// Checks the app's events of a run that started at `start`, in the order given (``EventTimeline/init(_:)``).
    public func check(_ events: [AppEvent], start: Timestamp) -> EventExpectationResult {
        check(EventTimeline(events), start: start)
    }

    /// Checks a run that started at `start`: its events, and the inputs it was fed for matchers that name inputs,
    /// in the run's order (``EventTimeline``).
    public func check(_ timeline: EventTimeline, start: Timestamp) -> EventExpectationResult {
        let entries = timeline.entries
        if let each, let then { return checkResponse(each, then, within ?? .zero, entries, start) }
        if let never, let without { return checkCause(never, without, within, entries, start) }
        let matcher = EventMatcher(event: event ?? no ?? "", with: with)
        let spans = during.map { Self.spans(of: $0, in: entries) }
        var hits: [Int] = [], all: [Int] = []
        var span = 0
        for (position, entry) in entries.enumerated() where matcher.matches(entry.event) {
            all.append(position)
            if let between {
                let offset = start.seconds(to: entry.time(instant))
                guard between[0] <= offset, offset <= between[1] else { continue }
            }
            if let spans {
                while span < spans.count, spans[span].upperBound < position { span += 1 }
                guard span < spans.count, spans[span].contains(position) else { continue }
            }
            hits.append(position)
        }
        func times(_ positions: [Int]) -> String {
            positions.prefix(3).map { Self.at(entries[$0].time(instant), start) }.joined(separator: ", ") + (positions.count > 3 ? ", …" : "")
        }
        func failure(_ kind: ExpectationFailure.Kind, _ positions: [Int]) -> ExpectationFailure {
            ExpectationFailure(kind: kind, events: positions.map { ExpectationFailure.identity(of: entries[$0].event) })
        }
        if no != nil {
            if hits.isEmpty { return .passed(summary + (all.isEmpty ? ": none happened" : "")) }
            return .failed(summary, "found \(hits.count), at \(times(hits))", failure(.forbidden, hits))
        }
        if let count {
            if hits.count == count { return .passed(summary) }
            return .failed(
                summary, "found \(hits.count)\(hits.isEmpty ? "" : ", at \(times(hits))")",
                failure(hits.count < count ? .tooFew : .tooMany, hits))
        }
        if !hits.isEmpty { return .passed(summary) }
        if all.isEmpty { return .failed(summary, "never happened", failure(.neverHappened, [])) }
        let outside = between != nil ? "outside the window" : "outside the span"
        return .failed(summary, "happened only \(outside), at \(times(all))", failure(.outside, all))
    }

    private func checkResponse(
        _ cause: EventMatcher, _ effect: EventMatcher, _ limit: Seconds, _ entries: [EventTimeline.Entry], _ start: Timestamp
    ) -> EventExpectationResult {
        // The effects' positions in the run's order: the Y that follows an X is the first one after it.
        let effects = entries.indices.filter { effect.matches(entries[$0].event) }
        var worst: (delay: Seconds, at: Timestamp)?
        var late: [Int] = []
        var total = 0
        var next = 0
        for (position, entry) in entries.enumerated() where cause.matches(entry.event) {
            total += 1
            let time = entry.time(instant)
            while next < effects.count, effects[next] <= position { next += 1 }
            guard next < effects.count else {
                return .failed(
                    summary, "\(cause.description) at \(Self.at(time, start)) was never followed by \(effect.description)",
                    ExpectationFailure(kind: .unanswered, events: [ExpectationFailure.identity(of: entry.event)]))
            }
            let delay = time.seconds(to: entries[effects[next]].time(instant))
            if delay > limit { late.append(position) }
            if worst.map({ delay > $0.delay }) ?? true { worst = (delay, time) }
        }
        guard let worst else { return .passed(summary + ": none happened") }
        let found = "worst \(Self.delay(worst.delay)) after the one at \(Self.at(worst.at, start)), of \(total)"
        if late.isEmpty { return .passed(summary + ": " + found) }
        return .failed(
            summary, "\(late.count) of \(total) too late; " + found,
            ExpectationFailure(kind: .late, events: late.map { ExpectationFailure.identity(of: entries[$0].event) }))
    }

    private func checkCause(
        _ effect: EventMatcher, _ cause: EventMatcher, _ limit: Seconds?, _ entries: [EventTimeline.Entry], _ start: Timestamp
    ) -> EventExpectationResult {
        // In the run's order: each Y takes the latest X before it not yet used. An entry that is both is an X for a
        // later Y, never its own.
        var unused: [Timestamp] = []
        var worst: (delay: Seconds, at: Timestamp)?
        var count = 0
        for entry in entries {
            let isCause = cause.matches(entry.event), isEffect = effect.matches(entry.event)
            let time = entry.time(instant)
            if isEffect {
                count += 1
                let identity = [ExpectationFailure.identity(of: entry.event)]
                guard let before = unused.popLast() else {
                    return .failed(
                        summary, "\(effect.description) at \(Self.at(time, start)) had no \(cause.description) before it",
                        ExpectationFailure(kind: .uncaused, events: identity))
                }
                let delay = before.seconds(to: time)
                if worst.map({ delay > $0.delay }) ?? true { worst = (delay, time) }
                if let limit, delay > limit {
                    return .failed(
                        summary, "\(effect.description) at \(Self.at(time, start)) came \(Self.delay(delay)) after its \(cause.description)",
                        ExpectationFailure(kind: .late, events: identity))
                }
            }
            if isCause { unused.append(time) }
        }
        guard let worst else { return .passed(summary + ": none happened") }
        return .passed(summary + ": worst \(Self.delay(worst.delay)), at \(Self.at(worst.at, start)), of \(count)")
    }

    /// A time in the run, exactly: `12.400 s`, `1.118000001 s`.
    private static func at(_ time: Timestamp, _ start: Timestamp) -> String { start.seconds(to: time).message }

    /// A delay for a message, exactly (`Seconds.millisecondsMessage`).
    private static func delay(_ delay: Seconds) -> String { delay.millisecondsMessage }

    /// The spans' positions in the run's order: from each `from` entry to the next `to` entry after it, both
    /// included, or to the end. An entry that matches both while no span is open opens one.
    static func spans(of span: Span, in entries: [EventTimeline.Entry]) -> [ClosedRange<Int>] {
        var spans: [ClosedRange<Int>] = []
        var open: Int?
        for (position, entry) in entries.enumerated() {
            if open == nil, span.from.matches(entry.event) {
                open = position
            } else if let start = open, span.to.matches(entry.event) {
                spans.append(start...position)
                open = nil
            }
        }
        if let open { spans.append(open...Int.max) }
        return spans
    }
}

/// Why an expectation failed, by the events it failed on: what a shrink must keep (``EventExpectationResult/failure``).
/// Events are told apart by their name and attributes, not by their times, which a shrink moves.
public struct ExpectationFailure: Sendable, Hashable {
    /// How it failed.
    public enum Kind: String, Sendable, Hashable {
        /// An `event` that never happened at all.
        case neverHappened
        /// An `event` that happened only outside its window or span.
        case outside
        /// Fewer than `count`.
        case tooFew
        /// More than `count`.
        case tooMany
        /// A `no` event that happened.
        case forbidden
        /// An `each` X never followed by a Y.
        case unanswered
        /// An X answered too late, or a Y too long after its X.
        case late
        /// A `never` Y with no X before it.
        case uncaused
    }

    /// How it failed.
    public var kind: Kind
    /// The events it failed on (``identity(of:)``): the late Xs, the forbidden events, the Y without a cause…
    public var events: [String]

    /// Creates a failure.
    public init(kind: Kind, events: [String]) {
        self.kind = kind
        self.events = events
    }

    /// An event's identity: its name and attributes, `name{key=value,…}`, without its time.
    public static func identity(of event: AppEvent) -> String {
        let attributes = event.attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.description)" }
        return attributes.isEmpty ? event.name : "\(event.name){\(attributes.joined(separator: ","))}"
    }

    /// Whether `other` is this failure again: the same kind, on events that all were among this one's (a shrink may
    /// leave out some of them, never add others).
    public func isKept(by other: ExpectationFailure) -> Bool {
        guard kind == other.kind else { return false }
        if events.isEmpty || other.events.isEmpty { return events.isEmpty == other.events.isEmpty }
        let mine = Set(events)
        return other.events.allSatisfy(mine.contains)
    }
}

/// The outcome of one ``EventExpectation``.
public struct EventExpectationResult: Sendable, Hashable {
    /// What the expectation says, with what was found when it held.
    public var summary: String
    /// What happened instead, when it did not hold.
    public var found: String?
    /// Why it failed, by the events it failed on.
    public var failure: ExpectationFailure?

    /// It held.
    public static func passed(_ summary: String) -> EventExpectationResult {
        EventExpectationResult(summary: summary, found: nil, failure: nil)
    }

    /// It did not: what was expected, what happened, and on which events.
    public static func failed(_ summary: String, _ found: String, _ failure: ExpectationFailure) -> EventExpectationResult {
        EventExpectationResult(summary: summary, found: found, failure: failure)
    }

    /// Whether it held.
    public var passed: Bool { failure == nil }

    /// A report line: `PASS …` or `FAIL …: what happened`.
    public var line: String {
        guard let found else { return "PASS \(summary)" }
        return "FAIL \(summary): \(found)"
    }
}
