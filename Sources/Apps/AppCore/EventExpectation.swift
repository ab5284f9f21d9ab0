public import HAL

/// Which events an expectation is about: a name, and attribute values that must match.
///
/// A value matches as it prints (`release`, `true`), and a number matches a number of the same value: `"160"`
/// matches an attribute of 160 whether the event holds it as an integer or as 160.0.
///
/// A name ending in `.*` matches every event under it (`answer.*`). Names with a colon match what the app was fed
/// rather than what it did (``AppInputObservations``): `input:CHANNEL` a reading of that channel, with attributes such
/// as `phase` for a pointer, and `command:ACTION` a user command, with its arguments.
public struct EventMatcher: Sendable, Hashable, Codable {
    /// The event name, such as `place.arrived`.
    public var event: String
    /// Attributes that must be present with these values, compared as they print.
    public var with: [String: String]?

    /// Creates a matcher.
    public init(event: String, with: [String: String]? = nil) {
        self.event = event
        self.with = with
    }

    /// Whether `event` matches.
    public func matches(_ event: AppEvent) -> Bool {
        matches(name: event.name) && (with ?? [:]).allSatisfy { key, wanted in event.attributes[key].map { Self.value($0, is: wanted) } ?? false }
    }

    /// Whether an attribute's value is the text `wanted`: as it prints, or as a number of the same value.
    static func value(_ value: AppEventValue, is wanted: String) -> Bool {
        if value.description == wanted { return true }
        let number: Double
        switch value {
        case .int(let integer): number = Double(integer)
        case .double(let double): number = double
        case .string, .bool: return false
        }
        return Double(wanted).map { $0 == number } ?? false
    }

    /// Whether an event named `name` can match: the name part of ``matches(_:)``.
    public func matches(name: String) -> Bool {
        // The last byte first: most names are not patterns, and a byte is cheaper to look at than a suffix.
        event.utf8.last == UInt8(ascii: "*") && event.hasSuffix(".*") ? name.hasPrefix(event.dropLast()) : name == event
    }

    /// Whether the matcher is about inputs (`input:…`, `command:…`) rather than the app's events.
    public var isAboutInputs: Bool { event.contains(":") }

    /// `name{key=value,…}`.
    public var description: String {
        let details = (with ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
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
/// Y at or after X); `{"never": Y, "without": X}` says no Y comes without an X at or before it, each X answering at
/// most one Y (the latest one not yet used), and with `"within": S` no more than S seconds before it. Both report
/// the worst case found. X and Y are matchers, so they may name inputs: `{"event": "input:touch", "with":
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
    /// Attributes that must match.
    public var with: [String: String]?
    /// The window, in seconds after the run's start.
    public var between: [Double]?
    /// Only inside these spans.
    public var during: Span?
    /// Exactly this many matching events.
    public var count: Int?
    /// Response time: every one of these…
    public var each: EventMatcher?
    /// …is followed by one of these…
    public var then: EventMatcher?
    /// …within this many seconds (also the limit of `never`/`without`).
    public var within: Double?
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

    /// Creates an expectation.
    public init(
        event: String? = nil, no: String? = nil, with: [String: String]? = nil,
        between: [Double]? = nil, during: Span? = nil, count: Int? = nil
    ) {
        self.event = event
        self.no = no
        self.with = with
        self.between = between
        self.during = during
        self.count = count
    }

    /// Every `each` followed by a `then` within `within` seconds.
    public static func response(each: EventMatcher, then: EventMatcher, within: Double) -> EventExpectation {
        var expectation = EventExpectation()
        expectation.each = each
        expectation.then = then
        expectation.within = within
        return expectation
    }

    /// No `never` without a `without` before it, within `within` seconds when given.
    public static func cause(never: EventMatcher, without: EventMatcher, within: Double? = nil) -> EventExpectation {
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
        if let within, !(within >= 0 && within.isFinite) { throw AppConfigError(field: "\(field).within", "\(within); expected 0 or more seconds") }
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
            return "every \(each.description) followed by \(then.description) within \(Self.seconds(within ?? 0))\(measured)"
        }
        if let never, let without {
            return "no \(never.description) without \(without.description) before it" + (within.map { " within \(Self.seconds($0))" } ?? "") + measured
        }
        let matcher = EventMatcher(event: event ?? no ?? "", with: with).description
        var text = no != nil ? "no \(matcher)" : (count.map { "\(matcher) exactly \($0)×" } ?? matcher)
        if let between { text += " between \(Self.seconds(between[0])) and \(Self.seconds(between[1]))" }
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
        if let each, let then { return checkResponse(each, then, within ?? 0, entries, start) }
        if let never, let without { return checkCause(never, without, within, entries, start) }
        let matcher = EventMatcher(event: event ?? no ?? "", with: with)
        let spans = during.map { Self.spans(of: $0, in: entries) }
        var hits: [Timestamp] = [], all: [Timestamp] = []
        var span = 0
        for (position, entry) in entries.enumerated() where matcher.matches(entry.event) {
            let time = entry.time(instant)
            all.append(time)
            if let between, !(between[0]...between[1]).contains(start.duration(to: time).seconds) { continue }
            if let spans {
                while span < spans.count, spans[span].upperBound < position { span += 1 }
                guard span < spans.count, spans[span].contains(position) else { continue }
            }
            hits.append(time)
        }
        let times = hits.prefix(3).map { Self.at($0, start) }.joined(separator: ", ")
        if no != nil {
            return hits.isEmpty
                ? .passed(summary)
                : .failed(summary, "found \(hits.count), at \(times)\(hits.count > 3 ? ", …" : "")")
        }
        if let count {
            return hits.count == count ? .passed(summary) : .failed(summary, "found \(hits.count)\(hits.isEmpty ? "" : ", at \(times)")")
        }
        if !hits.isEmpty { return .passed(summary) }
        if all.isEmpty { return .failed(summary, "never happened") }
        let outside = all.prefix(3).map { Self.at($0, start) }.joined(separator: ", ")
        return .failed(summary, "happened only outside the window, at \(outside)")
    }

    private func checkResponse(
        _ cause: EventMatcher, _ effect: EventMatcher, _ limit: Double, _ entries: [EventTimeline.Entry], _ start: Timestamp
    ) -> EventExpectationResult {
        // The effects' positions in the run's order: the Y that follows an X is the first one after it.
        let effects = entries.indices.filter { effect.matches(entries[$0].event) }
        var worst: (delay: Double, at: Timestamp)?
        var late = 0, total = 0
        var next = 0
        for (position, entry) in entries.enumerated() where cause.matches(entry.event) {
            total += 1
            let time = entry.time(instant)
            while next < effects.count, effects[next] <= position { next += 1 }
            guard next < effects.count else {
                return .failed(summary, "\(cause.description) at \(Self.at(time, start)) was never followed by \(effect.description)")
            }
            let delay = time.duration(to: entries[effects[next]].time(instant)).seconds
            if delay > limit { late += 1 }
            if delay > (worst?.delay ?? -.infinity) { worst = (delay, time) }
        }
        guard let worst else { return .failed(summary, "no \(cause.description) happened") }
        let found = "worst \(Self.milliseconds(worst.delay)) after the one at \(Self.at(worst.at, start)), of \(total)"
        return late == 0 ? .passed(summary + ": " + found) : .failed(summary, "\(late) of \(total) too late; " + found)
    }

    private func checkCause(
        _ effect: EventMatcher, _ cause: EventMatcher, _ limit: Double?, _ entries: [EventTimeline.Entry], _ start: Timestamp
    ) -> EventExpectationResult {
        // In the run's order: each Y takes the latest X before it not yet used (an entry that is both is its own X).
        var unused: [Timestamp] = []
        var worst: (delay: Double, at: Timestamp)?
        var count = 0
        for entry in entries {
            let isCause = cause.matches(entry.event), isEffect = effect.matches(entry.event)
            let time = entry.time(instant)
            if isCause { unused.append(time) }
            guard isEffect else { continue }
            count += 1
            guard let cause = unused.popLast() else {
                return .failed(summary, "\(effect.description) at \(Self.at(time, start)) had no \(cause.description) before it")
            }
            let delay = cause.duration(to: time).seconds
            if delay > (worst?.delay ?? -.infinity) { worst = (delay, time) }
            if let limit, delay > limit {
                return .failed(summary, "\(effect.description) at \(Self.at(time, start)) came \(Self.milliseconds(delay)) after its \(self.without!.description)")
            }
        }
        guard let worst else { return .passed(summary + ": none happened") }
        return .passed(summary + ": worst \(Self.milliseconds(worst.delay)), at \(Self.at(worst.at, start)), of \(count)")
    }

    private static func at(_ time: Timestamp, _ start: Timestamp) -> String { seconds(start.duration(to: time).seconds) }

    private static func milliseconds(_ value: Double) -> String { "\(Int((value * 1000).rounded())) ms" }

    /// The spans' positions in the run's order: from each `from` entry to the next `to` entry after it, both
    /// included, or to the end.
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

    static func seconds(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return "\(tenths) s"
    }
}

/// The outcome of one ``EventExpectation``.
public enum EventExpectationResult: Sendable, Hashable {
    /// It held.
    case passed(String)
    /// It did not: what was expected, and what happened.
    case failed(String, String)

    /// Whether it held.
    public var passed: Bool {
        if case .passed = self { return true }
        return false
    }

    /// A report line: `PASS …` or `FAIL …: what happened`.
    public var line: String {
        switch self {
        case .passed(let summary): "PASS \(summary)"
        case .failed(let summary, let found): "FAIL \(summary): \(found)"
        }
    }
}
