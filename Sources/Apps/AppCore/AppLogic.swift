public import HAL

/// A user action that does not come from a device: signing in, typing a message, a settings switch.
///
/// On a board these come from the app's UI; in a QA scenario they are scripted at a time.
public struct AppCommand: Sendable, Hashable, Codable {
    /// When the user acted.
    public var timestamp: Timestamp
    /// What the user did, such as `signIn` or `leaveMessage`.
    public var action: String
    /// The action's details, such as `user` or `text`.
    public var arguments: [String: String]

    /// Creates a command.
    public init(timestamp: Timestamp, action: String, arguments: [String: String] = [:]) {
        self.timestamp = timestamp
        self.action = action
        self.arguments = arguments
    }
}

/// One thing an app is fed, in time order.
public enum AppInput: Sendable, Hashable {
    /// A device reading, with the id of the channel it came from (a trace channel's id, or the name a live
    /// session gives a device), so that an app can tell two sources of one kind apart. `nil` where no channel
    /// is known, as in a test that builds inputs by hand.
    case reading(Reading, channel: String? = nil)
    /// A user action from the UI or a scenario.
    case command(AppCommand)
    /// Time passing with nothing else to deliver: lets timers fire on a live clock.
    case tick(Timestamp)
    /// The speaker went away (unplugged, or its output failed), with why. The ``AppRunner`` reports it as
    /// `speaker.failed` and hands it on, so that an app stops counting on a clip it started.
    case speakerFailed(Timestamp, reason: String)

    /// When the input happened. Setting it moves the input in time.
    public var timestamp: Timestamp {
        get {
            switch self {
            case .reading(let reading, _): reading.timestamp
            case .command(let command): command.timestamp
            case .tick(let time): time
            case .speakerFailed(let time, _): time
            }
        }
        set {
            switch self {
            case .reading(var reading, let channel): reading.timestamp = newValue; self = .reading(reading, channel: channel)
            case .command(var command): command.timestamp = newValue; self = .command(command)
            case .tick: self = .tick(newValue)
            case .speakerFailed(_, let reason): self = .speakerFailed(newValue, reason: reason)
            }
        }
    }
}

/// An app's logic: a state machine fed device readings, user commands and time, that emits
/// `AppEvent`s (what a screen would show) and `SpeakerRequest`s (what to play or speak).
///
/// It has no clock and does no I/O. Time comes from its inputs and from ``advance(to:output:)``,
/// which the ``AppRunner`` calls for every timer (``nextDeadline``) before delivering a later input.
/// The same inputs therefore give the same events, at any replay rate.
public protocol AppLogic: Sendable {
    /// The name `hal run` knows the app by, such as `explorer`.
    static var name: String { get }
    /// Starts the app at `time`.
    mutating func start(at time: Timestamp, output: inout AppOutput)
    /// Takes one input. Readings of kinds the app does not use are ignored.
    ///
    /// The input's ``AppInput/timestamp`` is when the runner handed it to the app (its delivery), which is the app's
    /// "now". An app that needs a reading's own time too (to ignore a stale fix) implements
    /// ``handle(_:delivery:output:)``, which the runner calls.
    mutating func handle(_ input: AppInput, output: inout AppOutput)
    /// Takes one input, with when it happened at its device and when it was delivered.
    ///
    /// This is what the ``AppRunner`` calls. The default hands the input to ``handle(_:output:)``; an app that
    /// implements this one can make ``handle(_:output:)`` call it with ``InputDelivery/init(_:)``.
    mutating func handle(_ input: AppInput, delivery: InputDelivery, output: inout AppOutput)
    /// The earliest time a timer of the app fires, if any is set.
    var nextDeadline: Timestamp? { get }
    /// Fires every timer due at or before `time`.
    mutating func advance(to time: Timestamp, output: inout AppOutput)
    /// Reads what an earlier run stored, before ``start(at:output:)``. Errors name the file and the field.
    mutating func restore(from storage: any AppStorage) throws
    /// The events the app emits and the commands it takes, so that a scenario naming others is refused before the
    /// run; `nil` (the default) takes a scenario's names on trust.
    static var vocabulary: AppVocabulary? { get }
}

/// The two instants of an input an app is handed: when it happened at its device and when it reached the app.
///
/// They differ when the input was late: a `latency` fault delivers a record its delay after its timestamp, and a
/// reordered or jittered reading older than what the app has already seen is delivered at the app's "now". Both are
/// the same for a command, a tick and what the runner's own speaker and screen report.
public struct InputDelivery: Sendable, Hashable {
    /// When the input happened: a reading's timestamp as its device (or the trace's record) gave it, a command's
    /// scripted time.
    public var deviceTime: Timestamp
    /// When the runner handed the input to the app: the input's ``AppInput/timestamp`` as the app sees it, never
    /// before anything handed earlier.
    public var deliveredAt: Timestamp

    /// Creates a delivery.
    public init(deviceTime: Timestamp, deliveredAt: Timestamp) {
        self.deviceTime = deviceTime
        self.deliveredAt = deliveredAt
    }

    /// An input delivered as it happened, at its own timestamp.
    public init(_ input: AppInput) {
        self.init(deviceTime: input.timestamp, deliveredAt: input.timestamp)
    }

    /// How long the input took to reach the app, in nanoseconds: zero when it was on time.
    public var delayNanoseconds: Int64 { deliveredAt.nanoseconds &- deviceTime.nanoseconds }
}

extension AppLogic {
    /// Hands the input to ``handle(_:output:)``: an app that does not ask when its inputs happened.
    public mutating func handle(_ input: AppInput, delivery: InputDelivery, output: inout AppOutput) {
        handle(input, output: &output)
    }
    /// No timers.
    public var nextDeadline: Timestamp? { nil }
    /// No timers to fire.
    public mutating func advance(to time: Timestamp, output: inout AppOutput) {}
    /// Nothing stored.
    public mutating func restore(from storage: any AppStorage) throws {}
    /// No vocabulary: names are taken on trust.
    public static var vocabulary: AppVocabulary? { nil }
}

extension Timestamp {
    /// The earliest of the times given, or `nil` when none is: what ``AppLogic/nextDeadline`` returns for an app with
    /// several timers. The runner asks for it before every input, so it builds no array.
    public static func earliest(_ first: Timestamp?, _ second: Timestamp?, _ third: Timestamp? = nil) -> Timestamp? {
        func earlier(_ a: Timestamp?, _ b: Timestamp?) -> Timestamp? {
            guard let a else { return b }
            guard let b else { return a }
            return min(a, b)
        }
        return earlier(earlier(first, second), third)
    }
}
