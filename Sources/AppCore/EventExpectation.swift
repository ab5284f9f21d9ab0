public import HAL

/// Which events an expectation is about: a name, and attribute values that must match as text.
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
        matches(name: event.name) && (with ?? [:]).allSatisfy { event.attributes[$0.key]?.description == $0.value }
    }

    /// Whether an event named `name` can match: the name part of ``matches(_:)``.
    public func matches(name: String) -> Bool {
        self.event.hasSuffix(".*") ? name.hasPrefix(self.event.dropLast()) : name == self.event
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
        if let each, let then {
            return "every \(each.description) followed by \(then.description) within \(Self.seconds(within ?? 0))"
        }
        if let never, let without {
            return "no \(never.description) without \(without.description) before it" + (within.map { " within \(Self.seconds($0))" } ?? "")
        }
        let matcher = EventMatcher(event: event ?? no ?? "", with: with).description
        var text = no != nil ? "no \(matcher)" : (count.map { "\(matcher) exactly \($0)×" } ?? matcher)
        if let between { text += " between \(Self.seconds(between[0])) and \(Self.seconds(between[1]))" }
        if let during { text += " during \(during.from.description) … \(during.to.description)" }
        return text
    }

    /// Checks the events of a run that started at `start`. `events` may hold the run's inputs too, as
    /// ``AppInputObservations`` makes them, for matchers that name inputs; all in time order.
    public func check(_ events: [AppEvent], start: Timestamp) -> EventExpectationResult {
        if let each, let then { return checkResponse(each, then, within ?? 0, events, start) }
        if let never, let without { return checkCause(never, without, within, events, start) }
        let matcher = EventMatcher(event: event ?? no ?? "", with: with)
        let spans = during.map { Self.spans(of: $0, in: events) }
        let hits = events.filter { event in
            guard matcher.matches(event) else { return false }
            let offset = start.duration(to: event.timestamp).seconds
            if let between, !(between[0]...between[1]).contains(offset) { return false }
            if let spans, !spans.contains(where: { $0.contains(event.timestamp) }) { return false }
            return true
        }
        let times = hits.prefix(3).map { Self.seconds(start.duration(to: $0.timestamp).seconds) }.joined(separator: ", ")
        let all = events.filter { matcher.matches($0) }
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
        let outside = all.prefix(3).map { Self.seconds(start.duration(to: $0.timestamp).seconds) }.joined(separator: ", ")
        return .failed(summary, "happened only outside the window, at \(outside)")
    }

    private func checkResponse(
        _ cause: EventMatcher, _ effect: EventMatcher, _ limit: Double, _ events: [AppEvent], _ start: Timestamp
    ) -> EventExpectationResult {
        let effects = events.filter { effect.matches($0) }.map(\.timestamp)
        var worst: (delay: Double, at: Timestamp)?
        var late = 0, total = 0
        var next = 0
        for event in events where cause.matches(event) {
            total += 1
            while next < effects.count, effects[next] < event.timestamp { next += 1 }
            guard next < effects.count else {
                return .failed(summary, "\(cause.description) at \(Self.at(event.timestamp, start)) was never followed by \(effect.description)")
            }
            let delay = event.timestamp.duration(to: effects[next]).seconds
            if delay > limit { late += 1 }
            if delay > (worst?.delay ?? -1) { worst = (delay, event.timestamp) }
        }
        guard let worst else { return .failed(summary, "no \(cause.description) happened") }
        let found = "worst \(Self.milliseconds(worst.delay)) after the one at \(Self.at(worst.at, start)), of \(total)"
        return late == 0 ? .passed(summary + ": " + found) : .failed(summary, "\(late) of \(total) too late; " + found)
    }

    private func checkCause(
        _ effect: EventMatcher, _ cause: EventMatcher, _ limit: Double?, _ events: [AppEvent], _ start: Timestamp
    ) -> EventExpectationResult {
        var unused: [Timestamp] = []
        var worst: (delay: Double, at: Timestamp)?
        var count = 0
        // Only causes and effects matter; at one time, causes come before effects.
        let relevant = events.enumerated().compactMap { offset, event -> (event: AppEvent, isCause: Bool, isEffect: Bool, offset: Int)? in
            let isCause = cause.matches(event), isEffect = effect.matches(event)
            return isCause || isEffect ? (event, isCause, isEffect, offset) : nil
        }
        let ordered = relevant.sorted { ($0.event.timestamp, $0.isCause ? 0 : 1, $0.offset) < ($1.event.timestamp, $1.isCause ? 0 : 1, $1.offset) }
        for (event, isCause, isEffect, _) in ordered {
            if isCause { unused.append(event.timestamp) }
            guard isEffect else { continue }
            count += 1
            guard let cause = unused.popLast() else {
                return .failed(summary, "\(effect.description) at \(Self.at(event.timestamp, start)) had no \(cause.description) before it")
            }
            let delay = cause.duration(to: event.timestamp).seconds
            if delay > (worst?.delay ?? -1) { worst = (delay, event.timestamp) }
            if let limit, delay > limit {
                return .failed(summary, "\(effect.description) at \(Self.at(event.timestamp, start)) came \(Self.milliseconds(delay)) after its \(self.without!.description)")
            }
        }
        guard let worst else { return .passed(summary + ": none happened") }
        return .passed(summary + ": worst \(Self.milliseconds(worst.delay)), at \(Self.at(worst.at, start)), of \(count)")
    }

    private static func at(_ time: Timestamp, _ start: Timestamp) -> String { seconds(start.duration(to: time).seconds) }

    private static func milliseconds(_ value: Double) -> String { "\(Int((value * 1000).rounded())) ms" }

    static func spans(of span: Span, in events: [AppEvent]) -> [ClosedRange<Timestamp>] {
        var spans: [ClosedRange<Timestamp>] = []
        var open: Timestamp?
        for event in events {
            if open == nil, span.from.matches(event) {
                open = event.timestamp
            } else if let start = open, span.to.matches(event) {
                spans.append(start...max(start, event.timestamp))
                open = nil
            }
        }
        if let open { spans.append(open...Timestamp(nanoseconds: .max)) }
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
