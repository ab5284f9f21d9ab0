import HAL
public import Replay
public import TraceFormat
import Synthesis

/// What exploration may vary in a scenario: the faults a variant draws from, how many, and whether the noise of its
/// scripted inputs is reseeded. A scenario names a space file with `"explore": "NAME.space.json"`; without one, the
/// space is ``defaults(for:)`` of its inputs' channels.
///
/// ```json
/// {"count": [1, 3], "reseed": true, "faults": [
///   {"kind": "lostFix", "channel": "gps", "duration": [2, 30]},
///   {"kind": "latency", "channel": "heading", "magnitude": [0.1, 2], "duration": [1, 20]},
///   {"kind": "duplicate", "channel": "touch", "probability": [0.05, 0.3]}
/// ]}
/// ```
public struct FaultSpace: Sendable, Hashable, Codable {
    /// The faults a variant draws from, each with the ranges of its fields.
    public var faults: [Entry]
    /// How many faults a variant has, drawn uniformly from this range (entries may repeat); [1, 3] when absent.
    public var count: Bounds?
    /// Whether each variant reseeds the noise of the scenario's scripted inputs (walks, motion scripts, expression
    /// timelines) with its own seed; true when absent.
    public var reseed: Bool?

    /// Creates a space.
    public init(faults: [Entry], count: Bounds? = nil, reseed: Bool? = nil) {
        self.faults = faults
        self.count = count
        self.reseed = reseed
    }

    /// A closed range of numbers, written `[lower, upper]`.
    public struct Bounds: Sendable, Hashable, Codable {
        /// The least value.
        public var lower: Double
        /// The greatest value.
        public var upper: Double

        /// `[lower, upper]`.
        public init(_ lower: Double, _ upper: Double) {
            self.lower = lower
            self.upper = upper
        }

        /// Reads `[lower, upper]`.
        public init(from decoder: any Decoder) throws {
            var values = try decoder.unkeyedContainer()
            lower = try values.decode(Double.self)
            upper = try values.decode(Double.self)
            guard values.isAtEnd else {
                throw DecodingError.dataCorruptedError(in: values, debugDescription: "expected [lower, upper]: two numbers")
            }
        }

        /// Writes `[lower, upper]`.
        public func encode(to encoder: any Encoder) throws {
            var values = encoder.unkeyedContainer()
            try values.encode(lower)
            try values.encode(upper)
        }

        /// A uniform draw, rounded to `step`.
        func draw(_ random: inout SeededRandom, step: Double) -> Double {
            let value = lower + (upper - lower) * (random.unit() - 0x1p-53)
            // Divided by a whole power of ten, the steps print as short decimals (7.406, not 7.406000000000001).
            let scale = (1 / step).rounded()
            let rounded = step < 1 ? (value * scale).rounded() / scale : (value / step).rounded() * step
            return min(upper, max(lower, rounded))
        }
    }

    /// One fault a variant may have: its kind and channel, and the range each of its fields is drawn from.
    public struct Entry: Sendable, Hashable, Codable {
        /// The fault's kind.
        public var kind: Fault.Kind
        /// Its channel; every channel the kind applies to when absent.
        public var channel: String?
        /// The window's length in seconds, placed uniformly in the run; the whole run when absent.
        public var duration: Bounds?
        /// The magnitude's range (units of the fault's kind, `docs/faults.md`).
        public var magnitude: Bounds?
        /// The per-record probability's range.
        public var probability: Bounds?
        /// The range of records per loss, for drop.
        public var burst: Bounds?
        /// The rate factor's range, for rate.
        public var factor: Bounds?

        /// Creates an entry.
        public init(
            _ kind: Fault.Kind, channel: String? = nil, duration: Bounds? = nil, magnitude: Bounds? = nil,
            probability: Bounds? = nil, burst: Bounds? = nil, factor: Bounds? = nil
        ) {
            self.kind = kind
            self.channel = channel
            self.duration = duration
            self.magnitude = magnitude
            self.probability = probability
            self.burst = burst
            self.factor = factor
        }

        /// A fault drawn from the entry for a run of `length` seconds.
        func draw(_ random: inout SeededRandom, length: Double) -> Fault {
            var fault = Fault(kind, channel: channel)
            if let duration {
                let upper = min(duration.upper, max(0, length))
                let span = Bounds(min(duration.lower, upper), upper).draw(&random, step: 0.001)
                let from = Bounds(0, max(0, length - span)).draw(&random, step: 0.001)
                // On the millisecond grid the draws are made on, exactly.
                fault.from = .milliseconds(Int((from * 1000).rounded()))
                fault.to = .milliseconds(Int(((from + span) * 1000).rounded()))
            }
            fault.magnitude = magnitude?.draw(&random, step: 0.001)
            fault.probability = probability?.draw(&random, step: 0.001)
            fault.burst = burst.map { Int($0.draw(&random, step: 1)) }
            fault.factor = factor?.draw(&random, step: 0.01)
            return fault
        }

        /// What is wrong with the entry, naming the field; `nil` when every fault it draws is usable.
        func problem() -> String? {
            for (name, bounds) in [("duration", duration), ("magnitude", magnitude), ("probability", probability), ("burst", burst), ("factor", factor)] {
                guard let bounds else { continue }
                guard bounds.lower.isFinite, bounds.upper.isFinite, bounds.lower <= bounds.upper else {
                    return "\(name): [\(bounds.lower), \(bounds.upper)] is not a range from low to high"
                }
                if name == "duration", bounds.lower < 0 { return "duration: \(bounds.lower) s is below 0" }
            }
            // The extremes of each range must make a usable fault.
            for pick in [\Bounds.lower, \Bounds.upper] {
                var fault = Fault(kind, channel: channel)
                if let duration { fault.from = .zero; fault.to = Seconds(rounding: duration[keyPath: pick]) }
                fault.magnitude = magnitude?[keyPath: pick]
                fault.probability = probability?[keyPath: pick]
                fault.burst = burst.map { Int($0[keyPath: pick]) }
                fault.factor = factor?[keyPath: pick]
                if let problem = fault.problem() { return problem }
            }
            return nil
        }
    }

    /// Reads and checks a space file; errors name the file, and the entry and field.
    public static func load(path: String) throws -> FaultSpace {
        let space: FaultSpace = try ScriptFile.decode(path: path)
        try space.validate(file: path)
        return space
    }

    /// Checks every entry and the count, naming the first bad one.
    public func validate(file: String? = nil) throws {
        if faults.isEmpty { throw ScriptError.located(file: file, "faults: give at least one fault a variant may have") }
        for (index, entry) in faults.enumerated() {
            if let problem = entry.problem() { throw ScriptError.located(file: file, "faults[\(index)]: \(problem)") }
        }
        if let count, !(count.lower >= 0 && count.lower <= count.upper && count.upper <= 1000) {
            throw ScriptError.located(file: file, "count: [\(count.lower), \(count.upper)]; expected 0 ≤ lower ≤ upper ≤ 1000")
        }
    }

    /// The faults of one variant: a count drawn from ``count``, then that many entries drawn uniformly, each with
    /// its fields drawn from its ranges, for a run of `length` seconds. The same seed gives the same faults.
    public func draw(seed: UInt64, length: Double) -> [Fault] {
        var random = SeededRandom(seed: seed)
        let bounds = count ?? Bounds(1, 3)
        let number = Int(bounds.draw(&random, step: 1))
        return (0..<number).map { _ in
            let entry = faults[Int(random.next() % UInt64(faults.count))]
            return entry.draw(&random, length: length)
        }
    }

    /// The space exploration uses when a scenario declares none: for each input channel, the faults its kind suffers
    /// on a real device, at the sizes real devices show (`docs/exploring.md` lists them), and, where the run has the
    /// app's simulated speaker (`speaker`; a program's run plays through its own), a slow one. It varies how and when
    /// inputs arrive, not what the user did: touches and keys are delayed and jittered, never lost, doubled or
    /// swapped, which would be another user's session rather than a fault to cope with.
    public static func defaults(for header: TraceHeader, speaker: Bool = true) -> FaultSpace {
        var entries: [Entry] = []
        for channel in header.channels {
            entries += defaultEntries(kind: channel.kind, channel: channel.id)
        }
        if speaker { entries.append(Entry(.latency, channel: Fault.speakerChannel, magnitude: Bounds(0.01, 0.2))) }
        return FaultSpace(faults: entries)
    }

    /// The default entries of a channel of `kind`.
    static func defaultEntries(kind: DeviceKind, channel: String) -> [Entry] {
        let short = Bounds(0.5, 5), medium = Bounds(2, 30)
        switch kind {
        case .location:
            return [
                Entry(.lostFix, channel: channel, duration: Bounds(5, 60)),
                Entry(.jump, channel: channel, duration: Bounds(1, 10), magnitude: Bounds(20, 200)),
                Entry(.drop, channel: channel, duration: Bounds(5, 60), probability: Bounds(0.2, 1)),
                Entry(.latency, channel: channel, duration: Bounds(10, 120), magnitude: Bounds(0.5, 5)),
                Entry(.stuck, channel: channel, duration: Bounds(5, 60)),
            ]
        case .gyroscope, .accelerometer, .magnetometer:
            let (spike, bias): (Bounds, Bounds) = switch kind {
            case .gyroscope: (Bounds(0.5, 3), Bounds(0.002, 0.02))
            case .accelerometer: (Bounds(2, 20), Bounds(0.05, 0.5))
            default: (Bounds(10, 50), Bounds(1, 10))
            }
            return [
                Entry(.drop, channel: channel, duration: medium, probability: Bounds(0.01, 0.2), burst: Bounds(1, 20)),
                Entry(.spike, channel: channel, duration: medium, magnitude: spike, probability: Bounds(0.001, 0.05)),
                Entry(.bias, channel: channel, duration: medium, magnitude: bias),
                Entry(.latency, channel: channel, duration: medium, magnitude: Bounds(0.01, 0.1)),
                Entry(.jitter, channel: channel, duration: medium, magnitude: Bounds(0.001, 0.01)),
                Entry(.stuck, channel: channel, duration: short),
            ]
        case .pointer, .keys:
            return [
                Entry(.latency, channel: channel, duration: medium, magnitude: Bounds(0.01, 0.1)),
                Entry(.jitter, channel: channel, duration: medium, magnitude: Bounds(0.001, 0.01)),
            ]
        case .camera:
            return [
                Entry(.drop, channel: channel, duration: medium, probability: Bounds(0.05, 0.5)),
                Entry(.corruptFrame, channel: channel, duration: medium, probability: Bounds(0.05, 0.5)),
            ]
        case .speaker, .app:
            return []
        default:
            // Attitude, expressions and registered kinds: lost, late, or frozen where the kind can freeze.
            var entries = [
                Entry(.drop, channel: channel, duration: medium, probability: Bounds(0.05, 0.5)),
                Entry(.latency, channel: channel, duration: medium, magnitude: Bounds(0.01, 0.2)),
            ]
            if kind.kindDescription.faults.freeze != nil { entries.append(Entry(.stuck, channel: channel, duration: short)) }
            return entries
        }
    }
}

extension FaultSpace {
    /// What an explorer of `inputs` draws from: `given`, else the space file at `spacePath`, else `defaults`; the span
    /// windows are drawn in (the run: the first input to the last, or to the scenario's `end` when that comes first);
    /// and whether variants reseed a script's noise. A space
    /// entry on a channel the inputs lack would draw faults that do nothing: refused as a plan's would be, naming the
    /// space file's line (its entries sit under `faults` as a plan's do).
    static func frame(
        inputs: Trace, inputPaths: [String], end: Seconds?, spacePath: String?, given: FaultSpace?, defaults: @autoclosure () -> FaultSpace
    ) throws -> (space: FaultSpace, length: Double, reseeds: Bool) {
        let space = try given ?? spacePath.map { try FaultSpace.load(path: $0) } ?? defaults()
        var entries = FaultPlan(seed: 0, faults: space.faults.map { Fault($0.kind, channel: $0.channel) })
        entries.file = given == nil ? spacePath : nil
        try entries.check(against: inputs.header)
        let times = inputs.records.map(\.timestamp)
        var length = times.min().flatMap { first in times.max().map { first.duration(to: $0).seconds } } ?? 0
        // A window that opens after the run has ended changes nothing: such variants would pass by construction.
        if let end { length = min(length, end.double) }
        return (space, length, (space.reseed ?? true) && inputPaths.contains(where: Trace.isReseedable))
    }
}
