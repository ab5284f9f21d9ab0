public import HAL
public import TraceFormat
/// One seeded fault to inject into a replay, described in a scenario or a trace URI's fault file.
///
/// ```json
/// {"kind": "drop", "channel": "gyro", "probability": 0.05, "burst": 10, "from": 2, "to": 8}
/// ```
/// `from` and `to` are seconds after the trace's first record; the fault applies to records in that
/// window (the whole trace when absent), on `channel` (every channel the kind applies to when absent).
/// `docs/faults.md` says what each kind does and which fields it takes.
public struct Fault: Sendable, Hashable, Codable {
    /// What goes wrong.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// Records lost: each record starts a loss with `probability`, `burst` records long (1 by default).
        case drop
        /// The value freezes at the window's first record: motion values, attitude, scores, or a GPS position.
        case stuck
        /// With `probability`, a record's value is thrown off by `magnitude`: added to each motion axis, or a
        /// GPS position moved that many metres on a seeded bearing (an outlier).
        case spike
        /// From the window's start, `magnitude` is added to every motion axis.
        case bias
        /// Timestamps move by seeded Gaussian noise of σ = `magnitude` seconds (delivery order stays).
        case jitter
        /// With `probability`, a record is delivered after the one that follows it.
        case reorder
        /// With `probability`, a record is delivered twice.
        case duplicate
        /// Records are delivered `magnitude` seconds late: after the records of that later time, with their
        /// own timestamps.
        case latency
        /// The channel's rate changes by `factor`: 0.5 keeps every other record, 2 repeats each record
        /// halfway to the next.
        case rate
        /// The device is gone for the window: no records, then records again. On channel ``Fault/speakerChannel``
        /// the app's speaker goes at `from`, mid-clip if one is playing, and does not come back in the run.
        case disconnect
        /// A GPS receiver loses its fix: fixes in the window have mode `none` and no position.
        case lostFix
        /// A GPS position jumps `magnitude` metres towards `bearing` (degrees; seeded when absent).
        case jump
        /// Camera frames corrupted with `probability`: their bytes cut short, as a broken transfer leaves them.
        case corruptFrame

        /// Reads a kind's name; a name that is not one is refused with the kinds it could have meant.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            let name = try container.decode(String.self)
            guard let kind = Kind(rawValue: name) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "no fault kind '\(name)'" + NameSuggestions.hint(name, among: Kind.allCases.map(\.rawValue), kind: "kinds"))
            }
            self = kind
        }
    }

    /// What goes wrong.
    public var kind: Kind
    /// The channel id, or every channel the kind applies to.
    public var channel: String?
    /// The window's start, seconds after the first record (included).
    public var from: Seconds?
    /// The window's end, seconds after the first record (not included).
    public var to: Seconds?
    /// Per-record probability, 0…1, for drop, spike, reorder, duplicate and corruptFrame.
    public var probability: Double?
    /// Records per loss, for drop.
    public var burst: Int?
    /// Size: units of the channel for spike and bias, seconds for jitter and latency, metres for jump.
    public var magnitude: Double?
    /// Degrees from north, for jump.
    public var bearing: Double?
    /// Rate factor, for rate.
    public var factor: Double?

    /// Creates a fault.
    public init(
        _ kind: Kind, channel: String? = nil, from: Seconds? = nil, to: Seconds? = nil, probability: Double? = nil,
        burst: Int? = nil, magnitude: Double? = nil, bearing: Double? = nil, factor: Double? = nil
    ) {
        self.kind = kind
        self.channel = channel
        self.from = from
        self.to = to
        self.probability = probability
        self.burst = burst
        self.magnitude = magnitude
        self.bearing = bearing
        self.factor = factor
    }

    /// The channel name that means the app's speaker in `hal run` and scenarios: an output, so not a trace channel.
    public static let speakerChannel = "speaker"
    /// The channel name that means the app's video screen in `hal run` and scenarios: an output, like the speaker.
    public static let screenChannel = "screen"
    /// The longest a `latency` or `jitter` fault's magnitude may be, in seconds: a day.
    public static let longestDelay: Double = 86_400
    /// The furthest a window's `from` or `to` may be from the first record (about 31 years).
    public static let furthestTime: Seconds = 1_000_000_000

    /// What is wrong with the fault's fields, naming them; `nil` when it is usable.
    public func problem() -> String? {
        if channel == Self.speakerChannel {
            switch kind {
            case .disconnect:
                guard from != nil, to == nil else { return "a speaker disconnect needs from, and no to: the speaker does not come back" }
            case .latency, .jitter:
                guard from == nil, to == nil else { return "a speaker \(kind.rawValue) lasts the whole run: no from or to" }
            default:
                return "the speaker takes disconnect, latency and jitter, not \(kind.rawValue)"
            }
        }
        if channel == Self.screenChannel {
            guard kind == .latency else { return "the screen takes latency, not \(kind.rawValue)" }
            guard from == nil, to == nil else { return "a screen latency lasts the whole run: no from or to" }
        }
        let needsProbability: Set<Kind> = [.drop, .spike, .reorder, .duplicate, .corruptFrame]
        let needsMagnitude: Set<Kind> = [.spike, .bias, .jitter, .latency, .jump]
        if let probability, !(0...1).contains(probability) { return "probability: \(probability) is not within 0 to 1" }
        if needsProbability.contains(kind), probability == nil, kind != .drop { return "\(kind.rawValue) needs a probability" }
        if needsMagnitude.contains(kind), magnitude == nil { return "\(kind.rawValue) needs a magnitude" }
        if let magnitude, !magnitude.isFinite || ((kind == .jitter || kind == .latency || kind == .jump) && magnitude < 0) {
            return "magnitude: \(magnitude) is out of range"
        }
        if let magnitude, kind == .jitter || kind == .latency, magnitude > Self.longestDelay {
            return "magnitude: \(magnitude) s is out of range; a \(kind.rawValue) takes at most \(Int(Self.longestDelay)) s"
        }
        if let burst, burst < 1 { return "burst: \(burst); expected 1 or more" }
        if kind == .rate, !((factor ?? 0) > 0 && (factor ?? 0) <= 100) { return "rate needs a factor above 0 and at most 100" }
        for (name, time) in [("from", from), ("to", to)] {
            if let time, !(abs(time.nanoseconds) <= Self.furthestTime.nanoseconds) {
                return "\(name): \(time) s is out of range; at most \(Self.furthestTime) s either way"
            }
        }
        if let magnitude, kind == .latency, Seconds(rounding: magnitude).double != magnitude {
            return "magnitude: \(magnitude) s is not a whole number of nanoseconds"
        }
        if let from, let to, !(from <= to) { return "from \(from) is after to \(to)" }
        if kind == .drop, probability == nil, from == nil, to == nil { return "drop needs a probability or a window (from, to)" }
        return nil
    }
}

/// Faults and the seed that makes them the same every run.
public struct FaultPlan: Sendable, Hashable, Codable {
    /// The seed: the same seed, trace and faults give the same records.
    public var seed: UInt64
    /// The faults, applied in order.
    public var faults: [Fault]
    /// The file the plan was read from (``load(path:)``), for errors found later, such as a channel the run lacks;
    /// not part of the plan's JSON.
    public var file: String?

    private enum CodingKeys: String, CodingKey {
        case seed, faults
    }

    /// Creates a plan.
    public init(seed: UInt64, faults: [Fault]) {
        self.seed = seed
        self.faults = faults
    }

    /// Reads and checks a plan file (`{"seed": N, "faults": [...]}`); errors name the file and the fault.
    public static func load(path: String) throws -> FaultPlan {
        var plan: FaultPlan = try ScriptFile.decode(path: path)
        try plan.validate(file: path)
        plan.file = path
        return plan
    }

    /// When the app's speaker goes, seconds after the first record: the earliest `disconnect` on
    /// ``Fault/speakerChannel``, or `nil`.
    public var speakerDisconnect: Seconds? {
        faults.filter { $0.kind == .disconnect && $0.channel == Fault.speakerChannel }.compactMap(\.from).min()
    }

    /// How slow the app's speaker is: the `latency` faults on ``Fault/speakerChannel`` add up to the delay from a
    /// request to the first sample, and a `jitter` there adds seeded Gaussian jitter of σ = its magnitude (the
    /// plan's seed); `nil` when the plan has neither.
    public var speakerLatency: SpeakerLatency? {
        let faults = faults.filter { $0.channel == Fault.speakerChannel }
        let delays = faults.filter { $0.kind == .latency }.compactMap(\.magnitude)
        let jitters = faults.filter { $0.kind == .jitter }.compactMap(\.magnitude)
        guard !delays.isEmpty || !jitters.isEmpty else { return nil }
        let sigma = jitters.map { $0 * $0 }.reduce(0, +).squareRoot()
        let base = delays.map { Seconds(rounding: $0) }.reduce(.zero, +)
        return SpeakerLatency(base: base.duration, jitter: Seconds(rounding: sigma).duration, seed: seed)
    }

    /// How slow the app's video screen is to show an opened video's first frame: the `latency` faults on
    /// ``Fault/screenChannel`` added up; `nil` when the plan has none.
    public var screenDelay: Duration? {
        let delays = faults.filter { $0.channel == Fault.screenChannel && $0.kind == .latency }.compactMap(\.magnitude)
        return delays.isEmpty ? nil : delays.map { Seconds(rounding: $0) }.reduce(.zero, +).duration
    }

    /// Checks every fault, naming the first bad one.
    public func validate(file: String? = nil) throws {
        for (index, fault) in faults.enumerated() {
            if let problem = fault.problem() { throw ScriptError.located(file: file, "faults[\(index)]: \(problem)") }
        }
    }

    /// Refuses a fault that would do nothing, which a test of it would pass untested: one on a channel the run does
    /// not have (a misspelled `"wirst"`), or one whose kind does nothing to its channel (a `lostFix` on a gyroscope,
    /// or with no channel, on every channel of the run). The speaker and the screen are always there. Errors name the
    /// plan's ``file``, the line, column and field, and what it could have meant. Every replay with a plan makes
    /// this check (`TraceReplay`).
    public func check(against header: TraceHeader) throws(ScriptError) {
        let ids = header.channels.map(\.id)
        let known = ids + [Fault.speakerChannel, Fault.screenChannel]
        for (index, fault) in faults.enumerated() {
            if let channel = fault.channel {
                guard known.contains(channel) else {
                    throw ScriptError.located(
                        file: file, "faults[\(index)].channel: the run has no channel '\(channel)'" + NameSuggestions.hint(channel, among: known, kind: "channels"))
                }
                guard let kind = header.channels.first(where: { $0.id == channel })?.kind else { continue }
                guard fault.acts(on: kind) else {
                    let takers = header.channels.filter { fault.acts(on: $0.kind) }.map(\.id)
                    throw ScriptError.located(
                        file: file, "faults[\(index)].kind: \(fault.kind.rawValue) does nothing to '\(channel)', a \(kind) channel"
                            + (takers.isEmpty ? "; no channel of this run takes it" : "; the channels it acts on are \(takers.joined(separator: ", "))"))
                }
            } else if !header.channels.isEmpty, !header.channels.contains(where: { fault.acts(on: $0.kind) }) {
                throw ScriptError.located(file: file, "faults[\(index)].kind: \(fault.kind.rawValue) does nothing to any channel of this run")
            }
        }
    }
}

extension Fault {
    /// Whether the fault can change a channel of `kind`: the faults on delivery act on every kind, the value faults
    /// on the kinds that say how (`KindFaults`), and `lostFix`, `jump` and `corruptFrame` on GPS and cameras.
    public func acts(on kind: DeviceKind) -> Bool {
        let faults = kind.kindDescription.faults
        switch self.kind {
        case .drop, .reorder, .duplicate, .latency, .rate, .disconnect, .jitter: return true
        case .stuck: return faults.freeze != nil
        case .spike: return faults.spike != nil
        case .bias: return faults.bias != nil
        case .lostFix, .jump: return kind == .location
        case .corruptFrame: return kind == .camera
        }
    }
}
