public import HAL

/// Which events an expectation is about: a name, and attribute values that must match as text.
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
        event.name == self.event && (with ?? [:]).allSatisfy { event.attributes[$0.key]?.description == $0.value }
    }

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

    /// Checks the expectation's fields; `field` names it in errors, such as `expect[2]`.
    public func validate(field: String) throws(AppConfigError) {
        if (event == nil) == (no == nil) { throw AppConfigError(field: field, "give exactly one of 'event' and 'no'") }
        if let between, between.count != 2 || !(between[0] <= between[1]) {
            throw AppConfigError(field: "\(field).between", "expected [from, to] in seconds with from ≤ to")
        }
        if let count, count < 0 { throw AppConfigError(field: "\(field).count", "\(count); expected 0 or more") }
        if no != nil, count != nil { throw AppConfigError(field: field, "'count' goes with 'event', not 'no'") }
    }

    /// What the expectation says, in words.
    public var summary: String {
        let matcher = EventMatcher(event: event ?? no ?? "", with: with).description
        var text = no != nil ? "no \(matcher)" : (count.map { "\(matcher) exactly \($0)×" } ?? matcher)
        if let between { text += " between \(Self.seconds(between[0])) and \(Self.seconds(between[1]))" }
        if let during { text += " during \(during.from.description) … \(during.to.description)" }
        return text
    }

    /// Checks the events of a run that started at `start`.
    public func check(_ events: [AppEvent], start: Timestamp) -> EventExpectationResult {
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
