public import TraceFormat
import FoundationEssentials
import LibC
import HAL

extension MotionScript {
    /// Standard gravity in m/s².
    public static let standardGravity = 9.80665

    /// Generates the script's trace, starting at timestamp 0.
    ///
    /// Channels: `gyro` (rad/s) and `accel` (m/s²) at the script's rate, `mag` (µT)
    /// when the script has a magnetic field, `touch` (pointer events), and `truth`
    /// (the true attitude, ENU) when the script asks for ground truth.
    ///
    /// Device axes follow Android's: x to the right of the screen, y up the screen, z
    /// out of the screen towards the user. The earth frame is ENU. The device starts
    /// upright in portrait with its back camera facing ``heading`` (north by default).
    /// Its attitude is `Rz(−yaw) · R₀ · Rx(pitch) · Rz(roll)`, where R₀ takes the device's
    /// axes to east, up and south: yaw turns about the vertical, pitch tilts the camera
    /// up about the device's x axis, roll turns the screen in its own plane.
    public func generate(source: String = "sim:script") -> Trace {
        let period = Int64((1e9 / rate).rounded())
        let header = header(source: source)
        let channel = { (id: String) in header.channelIndex(of: id)! }
        let (gyro, accel) = (channel("gyro"), channel("accel"))
        let mag = header.channelIndex(of: "mag")
        let truth = header.channelIndex(of: "truth")
        let (segments, pointer, end) = timeline()

        var noise = noise.map { NoiseProcesses($0, rate: rate) }
        let field = magneticField.map { field -> Vector3 in
            let dip = field.dip * .pi / 180
            let declination = (field.declination ?? 0) * .pi / 180
            return Vector3(x: sin(declination) * cos(dip), y: cos(declination) * cos(dip), z: -sin(dip)) * field.strength
        }

        var records: [TraceRecord] = []
        records.reserveCapacity(Int(end / period + 1) * header.channels.count + pointer.count)
        var segmentIndex = 0
        var sampleTime: Int64 = 0
        while sampleTime <= end {
            while segmentIndex < segments.count - 1, segments[segmentIndex].end <= sampleTime { segmentIndex += 1 }
            let pose = segments[segmentIndex].pose(at: sampleTime)
            let timestamp = Timestamp(nanoseconds: sampleTime)
            let (cosRoll, sinRoll) = (cos(pose.roll), sin(pose.roll))
            let (cosPitch, sinPitch) = (cos(pose.pitch), sin(pose.pitch))
            // Body rate: Rz(roll)ᵀ · ((θ̇, −ψ̇ cos θ, ψ̇ sin θ)) + (0, 0, φ̇). Adding 0 turns
            // IEEE negative zeros into plain zeros, so still samples read 0.0.
            let v = Vector3(x: pose.pitchRate, y: -pose.yawRate * cosPitch, z: pose.yawRate * sinPitch)
            var rate = Vector3(
                x: cosRoll * v.x + sinRoll * v.y + 0, y: -sinRoll * v.x + cosRoll * v.y + 0, z: v.z + pose.rollRate + 0)
            // Gravity's reaction (0, 0, g) in ENU, seen in the device frame.
            let upright = Self.standardGravity * cosPitch
            var force = Vector3(x: sinRoll * upright + 0, y: cosRoll * upright + 0, z: -Self.standardGravity * sinPitch + 0)
            let attitude = pose.quaternion
            if noise != nil {
                rate = noise!.gyroscope.measure(rate)
                force = noise!.accelerometer.measure(force)
            }
            records.append(TraceRecord(channel: gyro, motion: MotionSample(timestamp: timestamp, quantity: .angularVelocity, value: rate)))
            records.append(TraceRecord(channel: accel, motion: MotionSample(timestamp: timestamp, quantity: .acceleration, value: force)))
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
        records += pointer.map { TraceRecord(channel: channel("touch"), reading: .pointer($0)) }
        for environment in environment ?? [] {
            records += environment.samples(until: end).map { TraceRecord(channel: channel(environment.id), reading: $0.reading) }
        }
        records.sort { ($0.timestamp, $0.channel) < ($1.timestamp, $1.channel) }
        return Trace(header: header, records: records)
    }

    /// The header of the generated trace: its channels and metadata.
    public func header(source: String) -> TraceHeader {
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
            }
        }
        still(until: time)
        return (segments, pointer, time)
    }

    /// Rounds a screen position to a millionth, as a touch controller would quantise it.
    private static func micro(_ value: Double) -> Double {
        (value * 1e6).rounded() / 1e6
    }

    private static func nanoseconds(_ seconds: Double) -> Int64 {
        Int64((seconds * 1e9).rounded())
    }

    /// The device's heading, tilt and roll (radians), and their rates (rad/s), at one instant.
    struct Pose {
        var yaw = 0.0
        var pitch = 0.0
        var roll = 0.0
        var yawRate = 0.0
        var pitchRate = 0.0
        var rollRate = 0.0

        func moved(by change: Pose) -> Pose {
            Pose(yaw: yaw + change.yaw, pitch: pitch + change.pitch, roll: roll + change.roll)
        }

        var withoutRates: Pose { Pose(yaw: yaw, pitch: pitch, roll: roll) }

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
                    yawRate: yawRate, pitchRate: pitchRate, rollRate: rollRate)
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
    func samples(until end: Int64) -> [ScalarSample] {
        let period = Int64((1e9 / rate).rounded())
        let kind = DeviceKind(self.kind)
        var random = SeededRandom(seed: seed ?? 0)
        var samples: [ScalarSample] = []
        var time: Int64 = 0
        while time <= end {
            let seconds = Double(time) / 1e9
            var value = value + (drift ?? 0) * seconds
            for step in steps ?? [] where step.at <= seconds { value += step.by }
            if let noise, noise > 0 { value += noise * random.gaussian() }
            samples.append(ScalarSample(timestamp: Timestamp(nanoseconds: time), kind: kind, value: value))
            time += period
        }
        return samples
    }
}
