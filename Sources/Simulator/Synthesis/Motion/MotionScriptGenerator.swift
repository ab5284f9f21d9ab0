public import TraceFormat
import FoundationEssentials
import LibC
import HAL

extension MotionScript {
    /// Standard gravity in m/s².
    public static let standardGravity = 9.80665

    /// Generates the script's trace, starting at timestamp 0.
    ///
    /// Channels (``emittedChannels``, or those of them in `selection` when it is given): `gyro` (rad/s) and `accel`
    /// (m/s²) at the script's rate, `mag` (µT) when the script has a magnetic field, `touch` (pointer events), `truth`
    /// (the true attitude, ENU) when the script asks for ground truth, and the environment channels. Leaving a channel
    /// out changes no other channel's values: each sensor's noise has a stream of its own.
    ///
    /// Device axes follow Android's: x to the right of the screen, y up the screen, z
    /// out of the screen towards the user. The earth frame is ENU. The device starts
    /// upright in portrait with its back camera facing ``heading`` (north by default).
    /// Its attitude is `Rz(−yaw) · R₀ · Rx(pitch) · Rz(roll)`, where R₀ takes the device's
    /// axes to east, up and south: yaw turns about the vertical, pitch tilts the camera
    /// up about the device's x axis, roll turns the screen in its own plane.
    ///
    /// During a walk or a fall the accelerometer adds the body's acceleration to gravity's reaction (a free fall
    /// reads 0), and the pressure channels follow the device's altitude.
    public func generate(source: String = "sim:script", only selection: [String]? = nil) -> Trace {
        let period = Int64((1e9 / rate).rounded())
        let header = header(source: source, only: selection)
        let (gyro, accel) = (header.channelIndex(of: "gyro"), header.channelIndex(of: "accel"))
        let mag = header.channelIndex(of: "mag")
        let truth = header.channelIndex(of: "truth")
        let (segments, pointer, end) = timeline()
        let sampled = gyro != nil || accel != nil || mag != nil || truth != nil

        var noise = noise.map { NoiseProcesses($0, rate: rate) }
        let field = magneticField.map { field -> Vector3 in
            let dip = field.dip * .pi / 180
            let declination = (field.declination ?? 0) * .pi / 180
            return Vector3(x: sin(declination) * cos(dip), y: cos(declination) * cos(dip), z: -sin(dip)) * field.strength
        }

        var records: [TraceRecord] = []
        records.reserveCapacity(Int(end / period + 1) * header.channels.count + pointer.count)
        var cursor = SegmentCursor(segments: segments)
        var sampleTime: Int64 = 0
        while sampled, sampleTime <= end {
            let pose = cursor.pose(at: sampleTime)
            let timestamp = Timestamp(nanoseconds: sampleTime)
            let (cosRoll, sinRoll) = (cos(pose.roll), sin(pose.roll))
            let (cosPitch, sinPitch) = (cos(pose.pitch), sin(pose.pitch))
            // Body rate: Rz(roll)ᵀ · ((θ̇, −ψ̇ cos θ, ψ̇ sin θ)) + (0, 0, φ̇). Adding 0 turns
            // IEEE negative zeros into plain zeros, so still samples read 0.0.
            let v = Vector3(x: pose.pitchRate, y: -pose.yawRate * cosPitch, z: pose.yawRate * sinPitch)
            var rate = Vector3(
                x: cosRoll * v.x + sinRoll * v.y + 0, y: -sinRoll * v.x + cosRoll * v.y + 0, z: v.z + pose.rollRate + 0)
            // Gravity's reaction (0, 0, g) in ENU, seen in the device frame; with the body accelerating, the specific
            // force a + (0, 0, g) turned into the device frame.
            let upright = Self.standardGravity * cosPitch
            var force = Vector3(x: sinRoll * upright + 0, y: cosRoll * upright + 0, z: -Self.standardGravity * sinPitch + 0)
            let attitude = pose.quaternion
            if pose.linear != .zero {
                force = attitude.conjugate.rotate(pose.linear + Vector3(x: 0, y: 0, z: Self.standardGravity))
            }
            if let gyro {
                if noise != nil { rate = noise!.gyroscope.measure(rate) }
                records.append(TraceRecord(channel: gyro, motion: MotionSample(timestamp: timestamp, quantity: .angularVelocity, value: rate)))
            }
            if let accel {
                if noise != nil { force = noise!.accelerometer.measure(force) }
                records.append(TraceRecord(channel: accel, motion: MotionSample(timestamp: timestamp, quantity: .acceleration, value: force)))
            }
            if let field, let mag {
                var measured = attitude.conjugate.rotate(field)
                if noise != nil { measured = noise!.magnetometer.measure(measured) }
                records.append(TraceRecord(channel: mag, motion: MotionSample(timestamp: timestamp, quantity: .magneticField, value: measured)))
            }
            if let truth {
                records.append(TraceRecord(channel: truth, reading: .attitude(AttitudeSample(timestamp: timestamp, quaternion: attitude, frame: .enu))))
            }
            sampleTime += period
        }
        if let touch = header.channelIndex(of: "touch") {
            records += pointer.map { TraceRecord(channel: touch, reading: .pointer($0)) }
        }
        for environment in environment ?? [] {
            guard let channel = header.channelIndex(of: environment.id) else { continue }
            var cursor = SegmentCursor(segments: segments)
            let altitude = DeviceKind(environment.kind) == .pressure ? { cursor.pose(at: $0).altitude } : nil
            records += environment.samples(until: end, altitude: altitude).map { TraceRecord(channel: channel, reading: $0.reading) }
        }
        records.sort { ($0.timestamp, $0.channel) < ($1.timestamp, $1.channel) }
        return Trace(header: header, records: records)
    }

    /// The header of the generated trace: its channels (``emittedChannels``, or those of them in `selection`) and
    /// metadata.
    public func header(source: String, only selection: [String]? = nil) -> TraceHeader {
        var channels = [
            TraceChannel(id: "gyro", kind: .gyroscope, source: source + "#gyro", rate: rate, name: "Scripted gyroscope", backend: "sim"),
            TraceChannel(id: "accel", kind: .accelerometer, source: source + "#accel", rate: rate, name: "Scripted accelerometer", backend: "sim"),
        ]
        if magneticField != nil {
            channels.append(TraceChannel(id: "mag", kind: .magnetometer, source: source + "#mag", rate: rate, name: "Scripted magnetometer", backend: "sim"))
        }
        channels.append(TraceChannel(id: "touch", kind: .pointer, source: source + "#touch", name: "Scripted touchscreen", backend: "sim"))
        if groundTruth == true {
            channels.append(TraceChannel(id: "truth", kind: .attitude, source: source + "#truth", rate: rate, name: "True attitude", backend: "sim", frame: .enu))
        }
        for environment in environment ?? [] {
            let kind = DeviceKind(environment.kind)
            channels.append(TraceChannel(
                id: environment.id, kind: kind, source: source + "#" + environment.id, rate: environment.rate,
                name: "Scripted \(kind.kindDescription.summary)", backend: "sim"))
        }
        let emitted = Set(emittedChannels).intersection(selection ?? availableChannels)
        channels.removeAll { !emitted.contains($0.id) }
        var metadata = ["generator": "MotionScript"]
        if let title { metadata["title"] = title }
        if let noise { metadata["noise-seed"] = String(noise.seed) }
        return TraceHeader(channels: channels, metadata: metadata)
    }

    /// The motion segments (at least one), the pointer events, and the end time in nanoseconds.
    private func timeline() -> ([Segment], [PointerEvent], Int64) {
        var segments: [Segment] = []
        var pointer: [PointerEvent] = []
        var time: Int64 = 0
        var pose = Pose(yaw: (heading ?? 0) * .pi / 180)
        func still(until end: Int64) {
            segments.append(Segment(start: time, end: end, from: pose, motion: .still))
        }
        for step in steps {
            let start = time
            switch step {
            case .hold:
                time += Self.nanoseconds(step.seconds)
                still(until: time)
            case .tap(let tap):
                pointer.append(PointerEvent(timestamp: Timestamp(nanoseconds: start), phase: .press, x: tap.x, y: tap.y))
                pointer.append(PointerEvent(timestamp: Timestamp(nanoseconds: start + 80_000_000), phase: .release, x: tap.x, y: tap.y))
                time += Self.nanoseconds(step.seconds)
                still(until: time)
            case .swipe(let swipe):
                let duration = Self.nanoseconds(step.seconds)
                let moves = max(1, Int((Double(duration) / 1e9 * 60).rounded()))
                pointer.append(PointerEvent(timestamp: Timestamp(nanoseconds: start), phase: .press, x: swipe.from[0], y: swipe.from[1]))
                for index in 1...moves {
                    let fraction = Double(index) / Double(moves)
                    pointer.append(PointerEvent(
                        timestamp: Timestamp(nanoseconds: start + duration * Int64(index) / Int64(moves)),
                        phase: index == moves ? .release : .move,
                        x: Self.micro(swipe.from[0] + (swipe.to[0] - swipe.from[0]) * fraction),
                        y: Self.micro(swipe.from[1] + (swipe.to[1] - swipe.from[1]) * fraction)))
                }
                time += duration
                still(until: time)
            case .turn(let turn):
                time += Self.nanoseconds(step.seconds)
                let change = Pose(yaw: (turn.yaw ?? 0) * .pi / 180, pitch: (turn.pitch ?? 0) * .pi / 180, roll: (turn.roll ?? 0) * .pi / 180)
                segments.append(Segment(start: start, end: time, from: pose, motion: .turn(change)))
                pose = pose.moved(by: change)
            case .sweep(let sweep):
                time += Self.nanoseconds(step.seconds)
                let segment = Segment(start: start, end: time, from: pose, motion: .sweep(sweep))
                segments.append(segment)
                pose = segment.pose(at: time).withoutRates
            case .walk(let walk):
                time += Self.nanoseconds(step.seconds)
                segments.append(Segment(start: start, end: time, from: pose, motion: .walk(walk)))
            case .fall(let fall):
                time += Self.nanoseconds(step.seconds)
                segments.append(Segment(start: start, end: time, from: pose, motion: .fall(fall)))
                pose.altitude -= fall.height
            case .climb(let climb):
                time += Self.nanoseconds(step.seconds)
                segments.append(Segment(start: start, end: time, from: pose, motion: .climb(metres: climb.metres)))
                pose.altitude += climb.metres
            }
        }
        still(until: time)
        return (segments, pointer, time)
    }

    /// The pose at each of a series of times that never go back, found in the timeline's segments: a segment's end
    /// belongs to the next one.
    struct SegmentCursor {
        let segments: [Segment]
        var index = 0

        mutating func pose(at time: Int64) -> Pose {
            while index < segments.count - 1, segments[index].end <= time { index += 1 }
            return segments[index].pose(at: time)
        }
    }

    /// Rounds a screen position to a millionth, as a touch controller would quantise it.
    private static func micro(_ value: Double) -> Double {
        (value * 1e6).rounded() / 1e6
    }

    private static func nanoseconds(_ seconds: Double) -> Int64 {
        Int64((seconds * 1e9).rounded())
    }

    /// The device's heading, tilt and roll (radians), and their rates (rad/s), at one instant; its altitude above
    /// where it started (metres) and the acceleration of its body (ENU, m/s²).
    struct Pose {
        var yaw = 0.0
        var pitch = 0.0
        var roll = 0.0
        var yawRate = 0.0
        var pitchRate = 0.0
        var rollRate = 0.0
        var altitude = 0.0
        var linear = Vector3.zero

        func moved(by change: Pose) -> Pose {
            Pose(yaw: yaw + change.yaw, pitch: pitch + change.pitch, roll: roll + change.roll, altitude: altitude)
        }

        /// The pose at rest: the same angles and altitude, no rates, no acceleration.
        var withoutRates: Pose { Pose(yaw: yaw, pitch: pitch, roll: roll, altitude: altitude) }

        /// The attitude `Rz(−yaw) · R₀ · Rx(pitch) · Rz(roll)`, device to ENU.
        var quaternion: Quaternion {
            let up = Vector3(x: 0, y: 0, z: 1)
            let upright = Quaternion(axis: Vector3(x: 1, y: 0, z: 0), angle: .pi / 2)
            return (Quaternion(axis: up, angle: -yaw) * upright * Quaternion(axis: Vector3(x: 1, y: 0, z: 0), angle: pitch)
                * Quaternion(axis: up, angle: roll)).normalized
        }
    }

    /// A stretch of the timeline and how the pose changes over it.
    struct Segment {
        enum Motion {
            case still
            /// A raised-cosine turn by the change.
            case turn(Pose)
            case sweep(Sweep)
            case walk(Walk)
            case fall(Fall)
            /// A steady change of altitude; the attitude holds.
            case climb(metres: Double)
        }

        var start: Int64
        var end: Int64
        var from: Pose
        var motion: Motion

        func pose(at time: Int64) -> Pose {
            let tau = Double(time - start) / 1e9
            switch motion {
            case .still:
                return from
            case .turn(let change):
                let duration = Double(end - start) / 1e9
                let phase = 2 * Double.pi * min(tau, duration) / duration
                let progress = tau >= duration ? 1 : tau / duration - sin(phase) / (2 * .pi)
                let rateShape = tau >= duration ? 0 : (1 - cos(phase)) / duration
                return Pose(
                    yaw: from.yaw + change.yaw * progress, pitch: from.pitch + change.pitch * progress,
                    roll: from.roll + change.roll * progress, yawRate: change.yaw * rateShape,
                    pitchRate: change.pitch * rateShape, rollRate: change.roll * rateShape)
            case .sweep(let sweep):
                // The fade f(τ) and its rate: raised cosines over the first and last `fade` seconds.
                let duration = Double(end - start) / 1e9
                let fade = sweep.fade ?? 1
                var (envelope, envelopeRate) = (1.0, 0.0)
                let edge = min(tau, duration - tau)
                if fade > 0, edge < fade {
                    let sign: Double = tau < duration / 2 ? 1 : -1
                    envelope = (1 - cos(.pi * max(0, edge) / fade)) / 2
                    envelopeRate = sign * .pi / (2 * fade) * sin(.pi * max(0, edge) / fade)
                }
                func axis(_ amplitude: Double?, _ period: Double?) -> (Double, Double) {
                    guard let amplitude, let period else { return (0, 0) }
                    let omega = 2 * Double.pi / period
                    let radians = amplitude * .pi / 180
                    let wave = sin(omega * tau)
                    return (radians * wave * envelope, radians * (omega * cos(omega * tau) * envelope + wave * envelopeRate))
                }
                let (yaw, yawRate) = axis(sweep.yaw, sweep.yawPeriod)
                let (pitch, pitchRate) = axis(sweep.pitch, sweep.pitchPeriod)
                let (roll, rollRate) = axis(sweep.roll, sweep.rollPeriod)
                return Pose(
                    yaw: from.yaw + yaw, pitch: from.pitch + pitch, roll: from.roll + roll,
                    yawRate: yawRate, pitchRate: pitchRate, rollRate: rollRate, altitude: from.altitude)
            case .walk(let walk):
                // One period of bounce and surge a step, from a trough: the peaks fall at mid-step.
                guard tau < Double(end - start) / 1e9 else { return from }
                let omega = 2 * Double.pi * walk.cadence
                let phase = omega * tau
                let bounce = Walk.bounce * MotionScript.standardGravity
                let surge = Walk.speedSwing * (walk.stride ?? Walk.defaultStride) * walk.cadence * omega
                let forward = surge * sin(phase)
                var pose = from
                pose.linear = Vector3(x: sin(from.yaw) * forward, y: cos(from.yaw) * forward, z: -bounce * cos(phase))
                pose.altitude = from.altitude + bounce / (omega * omega) * (cos(phase) - 1)
                pose.roll = from.roll + Walk.rollSway * sin(phase / 2)
                pose.rollRate = Walk.rollSway * omega / 2 * cos(phase / 2)
                pose.pitch = from.pitch + Walk.pitchSway * sin(phase)
                pose.pitchRate = Walk.pitchSway * omega * cos(phase)
                return pose
            case .fall(let fall):
                var pose = from
                let free = fall.freeFallSeconds
                if tau < free {
                    pose.linear = Vector3(x: 0, y: 0, z: -MotionScript.standardGravity)
                    pose.altitude = from.altitude - MotionScript.standardGravity * tau * tau / 2
                } else {
                    let impact = min(tau - free, Fall.impactSeconds) / Fall.impactSeconds
                    pose.linear = Vector3(x: 0, y: 0, z: fall.impactPeak * sin(.pi * impact))
                    pose.altitude = from.altitude - fall.height
                }
                return pose
            case .climb(let metres):
                let duration = Double(end - start) / 1e9
                var pose = from
                pose.altitude = from.altitude + metres * min(tau / duration, 1)
                return pose
            }
        }
    }

    /// The three sensors' noise processes, each with its own seeded stream.
    struct NoiseProcesses {
        var gyroscope: IMUNoiseProcess
        var accelerometer: IMUNoiseProcess
        var magnetometer: IMUNoiseProcess

        init(_ noise: Noise, rate: Double) {
            let preset = noise.preset.flatMap { IMUNoisePreset.named[$0] }
            gyroscope = IMUNoiseProcess(model: noise.gyroscope ?? preset?.gyroscope ?? IMUNoiseModel(), rate: rate, seed: noise.seed &* 3 &+ 1)
            accelerometer = IMUNoiseProcess(model: noise.accelerometer ?? preset?.accelerometer ?? IMUNoiseModel(), rate: rate, seed: noise.seed &* 3 &+ 2)
            magnetometer = IMUNoiseProcess(model: noise.magnetometer ?? preset?.magnetometer ?? IMUNoiseModel(), rate: rate, seed: noise.seed &* 3 &+ 3)
        }
    }
}

extension MotionScript.EnvironmentChannel {
    /// The channel's samples from 0 up to `end` nanoseconds, at its rate: the scripted value with its seeded noise.
    /// A pressure channel is given `altitude`, the device's height above its start at each sample time: its value is
    /// then the pressure that high (``MotionScript/pressure(_:metresUp:)``).
    func samples(until end: Int64, altitude: ((Int64) -> Double)? = nil) -> [ScalarSample] {
        let period = Int64((1e9 / rate).rounded())
        let kind = DeviceKind(self.kind)
        var random = SeededRandom(seed: seed ?? 0)
        var samples: [ScalarSample] = []
        var time: Int64 = 0
        while time <= end {
            let seconds = Double(time) / 1e9
            var value = value + (drift ?? 0) * seconds
            for step in steps ?? [] where step.at <= seconds { value += step.by }
            if let height = altitude?(time), height != 0 { value = MotionScript.pressure(value, metresUp: height) }
            if let noise, noise > 0 { value += noise * random.gaussian() }
            samples.append(ScalarSample(timestamp: Timestamp(nanoseconds: time), kind: kind, value: value))
            time += period
        }
        return samples
    }
}
