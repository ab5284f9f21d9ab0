import Foundation
import HAL

extension MotionScript {
    /// Standard gravity in m/s².
    public static let standardGravity = 9.80665

    /// Generates the script's trace, starting at timestamp 0.
    ///
    /// Channels: `gyro` (rad/s) and `accel` (m/s²) at the script's rate, and `touch`
    /// (pointer events). Device axes follow Android's: x to the right of the screen,
    /// y up the screen, z out of the screen towards the user. The device starts upright
    /// in portrait with its back camera facing north; yaw turns it about the vertical,
    /// pitch tilts the camera up about the device's x axis.
    public func generate(source: String = "sim:script") -> Trace {
        let period = Int64((1e9 / rate).rounded())
        let header = header(source: source)

        var segments: [Segment] = []
        var pointer: [PointerEvent] = []
        var time: Int64 = 0
        var yaw = 0.0
        var pitch = 0.0
        for step in steps {
            let start = time
            switch step {
            case .hold(let seconds):
                time += Self.nanoseconds(seconds)
            case .tap(let tap):
                pointer.append(PointerEvent(timestamp: Timestamp(nanoseconds: start), phase: .press, x: tap.x, y: tap.y))
                pointer.append(PointerEvent(timestamp: Timestamp(nanoseconds: start + 80_000_000), phase: .release, x: tap.x, y: tap.y))
                time += Self.nanoseconds(tap.seconds ?? 0.5)
            case .swipe(let swipe):
                let duration = Self.nanoseconds(swipe.seconds ?? 0.3)
                let moves = max(1, Int((Double(duration) / 1e9 * 60).rounded()))
                pointer.append(PointerEvent(timestamp: Timestamp(nanoseconds: start), phase: .press, x: swipe.from[0], y: swipe.from[1]))
                for index in 1...moves {
                    let fraction = Double(index) / Double(moves)
                    let phase: PointerPhase = index == moves ? .release : .move
                    pointer.append(PointerEvent(
                        timestamp: Timestamp(nanoseconds: start + duration * Int64(index) / Int64(moves)), phase: phase,
                        x: Self.micro(swipe.from[0] + (swipe.to[0] - swipe.from[0]) * fraction),
                        y: Self.micro(swipe.from[1] + (swipe.to[1] - swipe.from[1]) * fraction)))
                }
                time += duration
            case .turn(let turn):
                let deltaYaw = (turn.yaw ?? 0) * .pi / 180
                let deltaPitch = (turn.pitch ?? 0) * .pi / 180
                let seconds = turn.seconds ?? max(abs(turn.yaw ?? 0), abs(turn.pitch ?? 0)) / turn.degreesPerSecond!
                time += Self.nanoseconds(seconds)
                segments.append(Segment(start: start, end: time, yaw: yaw, pitch: pitch, deltaYaw: deltaYaw, deltaPitch: deltaPitch))
                yaw += deltaYaw
                pitch += deltaPitch
            }
        }

        var records: [TraceRecord] = []
        records.reserveCapacity(Int(time / period) * 2 + pointer.count + 2)
        var segmentIndex = 0
        var sampleTime: Int64 = 0
        while sampleTime <= time {
            while segmentIndex < segments.count, segments[segmentIndex].end <= sampleTime { segmentIndex += 1 }
            let pose = segmentIndex < segments.count && segments[segmentIndex].start <= sampleTime
                ? segments[segmentIndex].pose(at: sampleTime)
                : Pose(yaw: segments[..<segmentIndex].last.map { $0.yaw + $0.deltaYaw } ?? 0,
                       pitch: segments[..<segmentIndex].last.map { $0.pitch + $0.deltaPitch } ?? 0,
                       yawRate: 0, pitchRate: 0)
            let timestamp = Timestamp(nanoseconds: sampleTime)
            let cosPitch = cos(pose.pitch)
            let sinPitch = sin(pose.pitch)
            // Body rate of R = Rz(-yaw) · R0 · Rx(pitch): (θ̇, -ψ̇ cos θ, ψ̇ sin θ).
            // Adding 0 turns IEEE negative zeros into plain zeros, so still samples read as 0.0.
            let rate = Vector3(x: pose.pitchRate + 0, y: -pose.yawRate * cosPitch + 0, z: pose.yawRate * sinPitch + 0)
            // Gravity's reaction (0, 0, g) in ENU, seen in the device frame.
            let force = Vector3(x: 0, y: Self.standardGravity * cosPitch + 0, z: -Self.standardGravity * sinPitch + 0)
            records.append(TraceRecord(channel: 0, reading: .motion(MotionSample(timestamp: timestamp, quantity: .angularVelocity, value: rate))))
            records.append(TraceRecord(channel: 1, reading: .motion(MotionSample(timestamp: timestamp, quantity: .acceleration, value: force))))
            sampleTime += period
        }
        records += pointer.map { TraceRecord(channel: 2, reading: .pointer($0)) }
        records.sort { ($0.timestamp, $0.channel) < ($1.timestamp, $1.channel) }
        return Trace(header: header, records: records)
    }

    /// The header of the generated trace: its channels and metadata.
    public func header(source: String) -> TraceHeader {
        TraceHeader(
            channels: [
                TraceChannel(id: "gyro", kind: .gyroscope, source: source + "#gyro", rate: rate, name: "Scripted gyroscope", backend: "sim"),
                TraceChannel(id: "accel", kind: .accelerometer, source: source + "#accel", rate: rate, name: "Scripted accelerometer", backend: "sim"),
                TraceChannel(id: "touch", kind: .pointer, source: source + "#touch", name: "Scripted touchscreen", backend: "sim"),
            ],
            metadata: title.map { ["title": $0, "generator": "MotionScript"] } ?? ["generator": "MotionScript"])
    }

    /// Rounds a screen position to a millionth, as a touch controller would quantise it.
    private static func micro(_ value: Double) -> Double {
        (value * 1e6).rounded() / 1e6
    }

    private static func nanoseconds(_ seconds: Double) -> Int64 {
        Int64((seconds * 1e9).rounded())
    }

    /// The device's heading and tilt, and their rates, at one instant.
    struct Pose {
        var yaw: Double
        var pitch: Double
        var yawRate: Double
        var pitchRate: Double
    }

    /// One turn, with a raised-cosine rate profile.
    struct Segment {
        var start: Int64
        var end: Int64
        var yaw: Double
        var pitch: Double
        var deltaYaw: Double
        var deltaPitch: Double

        func pose(at time: Int64) -> Pose {
            let duration = Double(end - start) / 1e9
            let tau = Double(time - start) / 1e9
            let phase = 2 * Double.pi * tau / duration
            let progress = tau / duration - sin(phase) / (2 * .pi)
            let rateShape = (1 - cos(phase)) / duration
            return Pose(
                yaw: yaw + deltaYaw * progress, pitch: pitch + deltaPitch * progress,
                yawRate: deltaYaw * rateShape, pitchRate: deltaPitch * rateShape)
        }
    }
}
