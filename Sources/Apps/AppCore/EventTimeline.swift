public import HAL

/// What a run's expectations are checked against: the app's events and the inputs it was fed, in the order they
/// happened in the run.
///
/// **The order rule.** Entries keep the order of the run, not of their timestamps: an input stands where the app was
/// handed it (after the timers that fired before it, before the events it caused), and an event where the app emitted
/// it. Events at one timestamp therefore keep the order the app emitted them, and every expectation form (`during`,
/// `then`, `without`, counts) follows that order. Times, for windows and response times, come from the timestamps.
///
/// **The instants of an input.** An input carries two times: when it happened at the device (its record's timestamp,
/// ``Entry/event``'s `timestamp`) and when it was delivered to the app (``Entry/delivered``: later under a latency
/// fault, or when a reordered or jittered reading waits for one delivered before it). The app handles it at its
/// delivery, so what it emits in answer is stamped with the delivery time. An app's own event happened when it was
/// delivered. Response checks measure from an input's device time unless the expectation asks for its delivery
/// (``EventExpectation/InputTime``).
public struct EventTimeline: Sendable, Hashable {
    /// One thing that happened in the run.
    public struct Entry: Sendable, Hashable {
        /// The event; for an input (``AppInputObservations``), stamped with the device's time.
        public var event: AppEvent
        /// When the app was handed it: the same as the event's time for what the app emitted.
        public var delivered: Timestamp

        /// Creates an entry.
        public init(event: AppEvent, delivered: Timestamp) {
            self.event = event
            self.delivered = delivered
        }

        /// The entry's time, at the instant `time` names.
        public func time(_ time: EventExpectation.InputTime) -> Timestamp {
            time == .delivery ? delivered : event.timestamp
        }
    }

    /// The entries, in the run's order.
    public private(set) var entries: [Entry]

    /// An empty timeline.
    public init() {
        entries = []
    }

    /// The events in the given order, each delivered at its own time: a run with no input observed.
    public init(_ events: [AppEvent]) {
        entries = events.map { Entry(event: $0, delivered: $0.timestamp) }
    }

    /// Adds what the app emitted.
    public mutating func append(_ events: [AppEvent]) {
        entries += events.lazy.map { Entry(event: $0, delivered: $0.timestamp) }
    }

    /// Adds an input as it was handed to the app: `event` is stamped with the device's time.
    public mutating func append(input event: AppEvent, deliveredAt delivered: Timestamp) {
        entries.append(Entry(event: event, delivered: delivered))
    }

    /// The app's `events` with the `inputs` placed among them: each input before the event at its index in
    /// `events` (the number of events emitted before it was handed to the app), inputs at one index in the given order.
    public init(events: [AppEvent], inputs: [(event: AppEvent, delivered: Timestamp, before: Int)]) {
        entries = []
        entries.reserveCapacity(events.count + inputs.count)
        var next = 0
        for (index, event) in events.enumerated() {
            while next < inputs.count, inputs[next].before <= index {
                entries.append(Entry(event: inputs[next].event, delivered: inputs[next].delivered))
                next += 1
            }
            entries.append(Entry(event: event, delivered: event.timestamp))
        }
        for input in inputs[next...] { entries.append(Entry(event: input.event, delivered: input.delivered)) }
    }
}
