import TraceFormat
import LibC
import HAL

/// A scripted walk-through of a handheld device: hold still, turn, tap, swipe, walk, fall, climb.
///
/// The script is JSON (see `docs/motion-scripts.md`):
///
/// ```json
/// {"title": "Lobby look-around", "rate": 100, "steps": [
///   {"hold": 2},
///   {"turn": {"yaw": 360, "degreesPerSecond": 30}},
///   {"tap": {"x": 0.5, "y": 0.45}},
///   {"swipe": {"from": [0.8, 0.5], "to": [0.2, 0.5], "seconds": 0.4}}
/// ]}
/// ```
///
/// ``generate(source:only:)`` turns it into a trace of gyroscope, accelerometer and
/// pointer channels, plus a magnetometer and the true attitude when asked, whose
/// motion is physically consistent: the gyroscope is the exact body rate of the
/// scripted attitude, the accelerometer is the specific force (the body's acceleration
/// plus gravity's reaction) and the magnetometer the local field, seen in the device
/// frame. Noise, when given, is seeded. The same script always gives the same trace,
/// byte for byte. With ``channels`` the trace has only the channels declared and those
/// its steps need (``emittedChannels``).
public struct MotionScript: Sendable, Hashable, Codable {
    /// A name for the walk-through, copied into the trace's metadata.
    public var title: String?
    /// The motion sample rate in hertz.
    public var rate: Double
    /// The compass heading the device starts at, degrees clockwise from north.
    public var heading: Double?
    /// The earth's field where the walk-through happens; adds a `mag` channel.
    public var magneticField: MagneticField?
    /// Whether to add a `truth` channel with the true attitude (ENU).
    public var groundTruth: Bool?
    /// Sensor errors; without it the readings are exact.
    public var noise: Noise?
    /// The steps, played one after another.
    public var steps: [Step]
    /// Single-quantity sensors of the simulated board (a barometer, a thermometer…), each a channel of its own.
    public var environment: [EnvironmentChannel]?
    /// The channels the trace should have, by id; the steps add those they need (``emittedChannels``). Without it,
    /// the trace has every channel the script can make (``availableChannels``).
    public var channels: [String]?

    /// A single-quantity sensor: a value that starts at ``value``, drifts by ``drift`` per second, changes by a step
    /// at given times, and is measured with seeded white noise of ``noise`` (one standard deviation).
    ///
    /// ```json
    /// {"id": "baro", "kind": "pressure", "rate": 10, "value": 101325, "drift": -0.5, "noise": 3, "seed": 7,
    ///  "steps": [{"at": 4, "by": -12}]}
    /// ```
    public struct EnvironmentChannel: Sendable, Hashable, Codable {
        /// The channel id, unique in the script (`gyro`, `accel`, `mag`, `touch` and `truth` are taken).
        public var id: String
        /// Any registered kind whose readings are ``HAL/ScalarSample``s: `pressure`, `temperature`, `humidity`,
        /// `illuminance`, `proximity`, or one a program registers with ``HAL/KindDescription/scalar(_:summary:units:)``.
        public var kind: String
        /// Samples per second.
        public var rate: Double
        /// The value at time 0, in the kind's units.
        public var value: Double
        /// Change per second.
        public var drift: Double?
        /// The noise's standard deviation, in the kind's units.
        public var noise: Double?
        /// The noise's seed; 0 by default.
        public var seed: UInt64?
        /// Sudden changes: at `at` seconds the value moves by `by`.
        public var steps: [ValueStep]?

        /// A sudden change of an environment channel's value.
        public struct ValueStep: Sendable, Hashable, Codable {
            /// Seconds from the start.
            public var at: Double
            /// How much the value moves.
            public var by: Double
        }
    }

    /// The local magnetic field.
    public struct MagneticField: Sendable, Hashable, Codable {
        /// Total field strength in µT.
        public var strength: Double
        /// Inclination in degrees, positive when the field points down (northern hemisphere).
        public var dip: Double
        /// Declination in degrees east of true north.
        public var declination: Double?
    }

    /// Seeded sensor errors: a named preset and/or a model per sensor.
    public struct Noise: Sendable, Hashable, Codable {
        /// The seed; the same seed gives the same errors.
        public var seed: UInt64
        /// `phone` or `hobby` (see ``IMUNoisePreset``), for every sensor not given below.
        public var preset: String?
        /// The gyroscope's model, rad/s.
        public var gyroscope: IMUNoiseModel?
        /// The accelerometer's model, m/s².
        public var accelerometer: IMUNoiseModel?
        /// The magnetometer's model, µT.
        public var magnetometer: IMUNoiseModel?
    }

    /// One step of a script.
    public enum Step: Sendable, Hashable, Codable {
        /// Hold the device still for a number of seconds.
        case hold(Double)
        /// Turn the device.
        case turn(Turn)
        /// Tap the screen.
        case tap(Tap)
        /// Drag a finger across the screen.
        case swipe(Swipe)
        /// Sway the device sinusoidally about all three axes.
        case sweep(Sweep)
        /// Walk forward the way the device faces, with each step's bounce.
        case walk(Walk)
        /// Drop the device: free fall, then an impact.
        case fall(Fall)
        /// Carry the device up or down at a steady pace.
        case climb(Climb)

        private enum CodingKeys: String, CodingKey { case hold, turn, tap, swipe, sweep, walk, fall, climb }

        /// How long the step takes, seconds.
        public var seconds: Double {
            switch self {
            case .hold(let seconds): seconds
            case .tap(let tap): tap.seconds ?? 0.5
            case .swipe(let swipe): swipe.seconds ?? 0.3
            case .turn(let turn): turn.seconds ?? [turn.yaw, turn.pitch, turn.roll].map { abs($0 ?? 0) }.max()! / turn.degreesPerSecond!
            case .sweep(let sweep): sweep.seconds
            case .walk(let walk): Double(walk.steps) / walk.cadence
            case .fall(let fall): fall.freeFallSeconds + Fall.impactSeconds
            case .climb(let climb): climb.seconds
            }
        }

        /// The channels the step needs: touch for taps and swipes, gyro and accel for steps that move the device,
        /// none for `hold` and `climb` (a climb needs every pressure channel, which ``MotionScript`` adds).
        public var neededChannels: [String] {
            switch self {
            case .hold, .climb: []
            case .tap, .swipe: ["touch"]
            case .turn, .sweep, .walk, .fall: ["gyro", "accel"]
            }
        }

        /// Decodes a step from an object with exactly one of `hold`, `turn`, `tap`, `swipe`, `sweep`, `walk`, `fall`,
        /// `climb`.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard container.allKeys.count == 1, let key = container.allKeys.first else {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: decoder.codingPath,
                    debugDescription: "a step is an object with exactly one of hold, turn, tap, swipe, sweep, walk, fall, climb"))
            }
            switch key {
            case .hold: self = .hold(try container.decode(Double.self, forKey: .hold))
            case .turn: self = .turn(try container.decode(Turn.self, forKey: .turn))
            case .tap: self = .tap(try container.decode(Tap.self, forKey: .tap))
            case .swipe: self = .swipe(try container.decode(Swipe.self, forKey: .swipe))
            case .sweep: self = .sweep(try container.decode(Sweep.self, forKey: .sweep))
            case .walk: self = .walk(try container.decode(Walk.self, forKey: .walk))
            case .fall: self = .fall(try container.decode(Fall.self, forKey: .fall))
            case .climb: self = .climb(try container.decode(Climb.self, forKey: .climb))
            }
        }

        /// Encodes the step as an object with one key.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .hold(let seconds): try container.encode(seconds, forKey: .hold)
            case .turn(let turn): try container.encode(turn, forKey: .turn)
            case .tap(let tap): try container.encode(tap, forKey: .tap)
            case .swipe(let swipe): try container.encode(swipe, forKey: .swipe)
            case .sweep(let sweep): try container.encode(sweep, forKey: .sweep)
            case .walk(let walk): try container.encode(walk, forKey: .walk)
            case .fall(let fall): try container.encode(fall, forKey: .fall)
            case .climb(let climb): try container.encode(climb, forKey: .climb)
            }
        }
    }

    /// A smooth turn: the rate rises and falls as a raised cosine, so it starts and ends at rest.
    public struct Turn: Sendable, Hashable, Codable {
        /// Degrees to turn right (clockwise seen from above); negative turns left.
        public var yaw: Double?
        /// Degrees to tilt the camera up; negative tilts down.
        public var pitch: Double?
        /// Degrees to roll the device clockwise in the plane of its screen, as its user sees it.
        public var roll: Double?
        /// How long the turn takes.
        public var seconds: Double?
        /// The average rate of the largest angle, instead of `seconds`.
        public var degreesPerSecond: Double?
    }

    /// A tap: press and release at one point, then hold still for the rest of `seconds`.
    public struct Tap: Sendable, Hashable, Codable {
        /// Horizontal position, 0 (left) to 1 (right).
        public var x: Double
        /// Vertical position, 0 (top) to 1 (bottom).
        public var y: Double
        /// How long the step takes, 0.5 s by default; the finger is down for 80 ms.
        public var seconds: Double?
    }

    /// A swipe from one point to another, with moves at 60 Hz.
    public struct Swipe: Sendable, Hashable, Codable {
        /// Where the finger goes down, `[x, y]`.
        public var from: [Double]
        /// Where it lifts, `[x, y]`.
        public var to: [Double]
        /// How long the finger is down, 0.3 s by default.
        public var seconds: Double?
    }

    /// A sway about all three axes, each angle `amplitude · sin(2π t / period) · fade(t)`
    /// around the pose the step starts from. The fade rises and falls as a raised cosine over
    /// ``fade`` seconds at each end, so the sweep starts and ends at rest, where it began.
    public struct Sweep: Sendable, Hashable, Codable {
        /// How long it lasts.
        public var seconds: Double
        /// Seconds of fade-in and of fade-out, 1 by default.
        public var fade: Double?
        /// Yaw amplitude, degrees.
        public var yaw: Double?
        /// Pitch amplitude, degrees.
        public var pitch: Double?
        /// Roll amplitude, degrees.
        public var roll: Double?
        /// Yaw period, seconds.
        public var yawPeriod: Double?
        /// Pitch period, seconds.
        public var pitchPeriod: Double?
        /// Roll period, seconds.
        public var rollPeriod: Double?
    }

    /// Walking: `steps` steps at `cadence` steps a second, forward the way the device faces (its yaw when the walk
    /// starts). Each step is one period of a vertical bounce, `−bounce · g · cos(2π · cadence · t)` upwards (the
    /// accelerometer reads 1.4 g at mid-step and 0.6 g between steps), and of a forward surge
    /// `speedSwing · stride · cadence · 2π · cadence · sin(2π · cadence · t)`: the forward speed swings by 15 % around
    /// `stride · cadence`. The device sways by ``rollSway`` at half the cadence and ``pitchSway`` at the cadence.
    public struct Walk: Sendable, Hashable, Codable {
        /// How many steps; the accelerometer peaks once per step.
        public var steps: Int
        /// Steps a second.
        public var cadence: Double
        /// Metres a step, 0.7 by default: scales the forward surge (there is no position in a motion script).
        public var stride: Double?

        /// The vertical bounce's amplitude, in g.
        public static let bounce = 0.4
        /// The forward speed's swing about its mean, as a fraction of it.
        public static let speedSwing = 0.15
        /// The stride when none is given, metres.
        public static let defaultStride = 0.7
        /// The roll sway's amplitude, radians (1.5°): one sway left and right every two steps.
        public static let rollSway = 1.5 * Double.pi / 180
        /// The pitch sway's amplitude, radians (0.75°): one nod a step.
        public static let pitchSway = 0.75 * Double.pi / 180
    }

    /// A drop from `height` metres: free fall (the accelerometer reads 0) for `sqrt(2 · height / g)` seconds, then an
    /// impact that stops the device in ``impactSeconds``: a half-sine pulse of deceleration peaking at
    /// `π · v / (2 · impactSeconds)`, with `v = sqrt(2 · g · height)`. The device keeps its attitude; the pressure
    /// channels follow the free fall's altitude, ending `height` lower.
    public struct Fall: Sendable, Hashable, Codable {
        /// Metres fallen.
        public var height: Double

        /// How long the impact lasts, seconds.
        public static let impactSeconds = 0.05
        /// How long the free fall lasts, seconds.
        public var freeFallSeconds: Double { (2 * height / MotionScript.standardGravity).squareRoot() }
        /// The speed at impact, m/s.
        public var impactSpeed: Double { (2 * MotionScript.standardGravity * height).squareRoot() }
        /// The impact's peak deceleration, m/s².
        public var impactPeak: Double { Double.pi * impactSpeed / (2 * Self.impactSeconds) }
    }

    /// A climb (or, with negative `metres`, a descent) at a steady pace: the altitude changes linearly over `seconds`,
    /// and every pressure channel with it (``MotionScript/pressure(_:metresUp:)``). The device is held still.
    public struct Climb: Sendable, Hashable, Codable {
        /// Metres up; negative goes down.
        public var metres: Double
        /// How long it takes.
        public var seconds: Double
    }

    /// The pressure `metres` above a place where it is `pressure`, by the barometric formula of the standard
    /// atmosphere: `pressure · (1 − 2.25577e-5 · metres)^5.25588`.
    public static func pressure(_ pressure: Double, metresUp metres: Double) -> Double {
        pressure * pow(1 - 2.25577e-5 * metres, 5.25588)
    }

    /// Every channel the script can make, in the trace's order: `gyro`, `accel`, `mag` (with ``magneticField``),
    /// `touch`, `truth` (with ``groundTruth``), then the environment channels.
    public var availableChannels: [String] {
        ["gyro", "accel"] + (magneticField == nil ? [] : ["mag"]) + ["touch"] + (groundTruth == true ? ["truth"] : [])
            + (environment ?? []).map(\.id)
    }

    /// The channels the trace has, in its order. Without ``channels``, every one the script can make (so a script
    /// that declares none gives the trace it always gave); with it, those it declares and those its steps need:
    /// `touch` for taps and swipes, `gyro` and `accel` for turns, sweeps, walks and falls, every pressure channel for
    /// a climb.
    public var emittedChannels: [String] {
        guard let channels else { return availableChannels }
        var wanted = Set(channels)
        for step in steps {
            wanted.formUnion(step.neededChannels)
            if case .climb = step {
                wanted.formUnion((environment ?? []).filter { DeviceKind($0.kind) == .pressure }.map(\.id))
            }
        }
        return availableChannels.filter(wanted.contains)
    }

    /// Reads a script file, refusing unknown fields.
    public static func load(path: String) throws -> MotionScript {
        let script: MotionScript = try ScriptFile.decode(path: path)
        try script.validate(file: path)
        return script
    }

    /// Checks the script's numbers.
    public func validate(file: String? = nil) throws {
        guard rate > 0, rate <= 10_000 else { throw ScriptError.located(file: file, "rate: \(rate) is not within 0 to 10000 Hz") }
        var ids: Set<String> = ["gyro", "accel", "mag", "touch", "truth"]
        for (index, channel) in (environment ?? []).enumerated() {
            let place = "environment[\(index)]"
            guard TraceChannel.isValidID(channel.id), ids.insert(channel.id).inserted else {
                throw ScriptError.located(file: file, "\(place).id: '\(channel.id)' is not a valid channel id, or is taken")
            }
            guard let kind = DeviceKind(rawValue: channel.kind), ObjectIdentifier(kind.readingType) == ObjectIdentifier(ScalarSample.self) else {
                let scalars = DeviceKind.allCases.filter { ObjectIdentifier($0.readingType) == ObjectIdentifier(ScalarSample.self) }.map(\.rawValue)
                throw ScriptError.located(file: file, "\(place).kind: '\(channel.kind)' is not one of \(scalars.joined(separator: ", "))")
            }
            guard channel.rate > 0, channel.rate <= 10_000 else {
                throw ScriptError.located(file: file, "\(place).rate: \(channel.rate) is not within 0 to 10000 Hz")
            }
            let numbers = [channel.value, channel.drift ?? 0, channel.noise ?? 0] + (channel.steps ?? []).flatMap { [$0.at, $0.by] }
            guard numbers.allSatisfy(\.isFinite), (channel.noise ?? 0) >= 0, (channel.steps ?? []).allSatisfy({ $0.at >= 0 }) else {
                throw ScriptError.located(file: file, "\(place): value, drift, noise (0 or more) and steps (at 0 s or later) are finite numbers")
            }
        }
        if let field = magneticField, !(field.strength > 0 && abs(field.dip) <= 90) {
            throw ScriptError.located(file: file, "magneticField: strength must be positive and dip within -90...90")
        }
        let available = availableChannels
        for (index, id) in (channels ?? []).enumerated() where !available.contains(id) {
            throw ScriptError.located(file: file, "channels[\(index)]: '\(id)' is not a channel of this script (\(available.joined(separator: ", ")))")
        }
        if let preset = noise?.preset, IMUNoisePreset.named[preset] == nil {
            throw ScriptError.located(file: file, "noise.preset: '\(preset)' is not one of \(IMUNoisePreset.named.keys.sorted().joined(separator: ", "))")
        }
        var altitude = 0.0
        for (index, step) in steps.enumerated() {
            let place = "steps[\(index)]"
            switch step {
            case .hold(let seconds):
                guard seconds >= 0, seconds.isFinite else { throw ScriptError.located(file: file, "\(place).hold: \(seconds) is not a duration") }
            case .turn(let turn):
                guard turn.yaw != nil || turn.pitch != nil || turn.roll != nil else {
                    throw ScriptError.located(file: file, "\(place).turn: give yaw, pitch or roll")
                }
                guard (turn.seconds == nil) != (turn.degreesPerSecond == nil) else {
                    throw ScriptError.located(file: file, "\(place).turn: give seconds or degreesPerSecond, one of them")
                }
                guard (turn.seconds ?? turn.degreesPerSecond!) > 0 else { throw ScriptError.located(file: file, "\(place).turn: the pace must be positive") }
            case .tap(let tap):
                guard (0...1).contains(tap.x), (0...1).contains(tap.y) else { throw ScriptError.located(file: file, "\(place).tap: x and y are within 0...1") }
                guard (tap.seconds ?? 0.5) >= 0.08 else { throw ScriptError.located(file: file, "\(place).tap: a tap takes at least 0.08 s") }
            case .swipe(let swipe):
                guard swipe.from.count == 2, swipe.to.count == 2, (swipe.from + swipe.to).allSatisfy({ (0...1).contains($0) }) else {
                    throw ScriptError.located(file: file, "\(place).swipe: from and to are [x, y] within 0...1")
                }
                guard (swipe.seconds ?? 0.3) > 0 else { throw ScriptError.located(file: file, "\(place).swipe: seconds must be positive") }
            case .sweep(let sweep):
                guard sweep.seconds > 0 else { throw ScriptError.located(file: file, "\(place).sweep: seconds must be positive") }
                guard (0...(sweep.seconds / 2)).contains(sweep.fade ?? 1) else {
                    throw ScriptError.located(file: file, "\(place).sweep: fade is within 0 and half of seconds")
                }
                for (amplitude, period, name) in [(sweep.yaw, sweep.yawPeriod, "yaw"), (sweep.pitch, sweep.pitchPeriod, "pitch"), (sweep.roll, sweep.rollPeriod, "roll")]
                where amplitude != nil && !((period ?? 0) > 0) {
                    throw ScriptError.located(file: file, "\(place).sweep: \(name) needs a positive \(name)Period")
                }
            case .walk(let walk):
                guard walk.steps > 0 else { throw ScriptError.located(file: file, "\(place).walk.steps: \(walk.steps) is not a positive number of steps") }
                guard walk.cadence > 0, walk.cadence <= 5 else {
                    throw ScriptError.located(file: file, "\(place).walk.cadence: \(walk.cadence) is not within 0 and 5 steps a second")
                }
                if let stride = walk.stride, !(stride > 0 && stride <= 3) {
                    throw ScriptError.located(file: file, "\(place).walk.stride: \(stride) is not within 0 and 3 metres")
                }
            case .fall(let fall):
                guard fall.height > 0, fall.height <= 100 else {
                    throw ScriptError.located(file: file, "\(place).fall.height: \(fall.height) is not within 0 and 100 metres")
                }
                altitude -= fall.height
            case .climb(let climb):
                guard climb.seconds > 0, climb.seconds.isFinite else {
                    throw ScriptError.located(file: file, "\(place).climb.seconds: \(climb.seconds) is not a positive duration")
                }
                guard climb.metres.isFinite else { throw ScriptError.located(file: file, "\(place).climb.metres: \(climb.metres) is not a number of metres") }
                altitude += climb.metres
            }
            guard abs(altitude) <= 10_000 else {
                throw ScriptError.located(file: file, "\(place): the device would be \(altitude) m from where it started; it stays within 10000 m")
            }
        }
        try ScriptFile.checkRecordCount(recordEstimate, file: file)
    }

    /// About how many records the script makes: samples on every channel at its rate, a swipe's 60 pointer moves a
    /// second, and the environment channels at theirs (counting only the channels it emits).
    public var recordEstimate: Double {
        let emitted = Set(emittedChannels)
        let seconds = steps.map(\.seconds).reduce(0, +)
        let swipes = steps.map { step -> Double in if case .swipe = step { step.seconds * 60 + 2 } else { 2 } }.reduce(0, +)
        // The touch channel counts as one at the rate, as it always has: a bound, not a count.
        let channels = Double(["gyro", "accel", "mag", "touch", "truth"].filter(emitted.contains).count)
        let environment = (environment ?? []).filter { emitted.contains($0.id) }.map { seconds * $0.rate + 1 }.reduce(0, +)
        return seconds * rate * channels + swipes + environment
    }
}
