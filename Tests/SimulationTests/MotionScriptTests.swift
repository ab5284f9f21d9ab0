import Foundation
import HAL
import Synthesis
import TraceFormat
import TestSupport
import Testing

@Suite struct MotionScriptTests {
    static let scriptPath = packageRoot + "/traces/lobby-lookaround.motion.json"

    @Test func theShippedTraceIsWhatItsScriptGenerates() throws {
        let generated = try MotionScript.load(path: Self.scriptPath).generate(source: "sim:traces/lobby-lookaround.motion.json")
        let shipped = try [UInt8](Data(contentsOf: URL(fileURLWithPath: shippedTracePath)))
        #expect(try generated.encoded() == shipped)
    }

    @Test func theGyroscopeIntegratesToTheScriptedTurns() throws {
        let trace = try MotionScript.load(path: Self.scriptPath).generate()
        var yaw = 0.0
        var pitchPeak = 0.0
        var pitch = 0.0
        let period = 0.01
        for record in trace.records {
            guard case .motion(let sample) = record.reading else { continue }
            switch sample.quantity {
            case .angularVelocity:
                // Heading rate is -ωy cos θ + ωz sin θ for this device frame.
                yaw += (-sample.value.y * cos(pitch) + sample.value.z * sin(pitch)) * period
                pitch += sample.value.x * period
                pitchPeak = max(pitchPeak, pitch)
            case .acceleration:
                #expect(abs(sample.value.magnitude - MotionScript.standardGravity) < 1e-9)
            case .magneticField:
                Issue.record("no magnetometer in a motion script")
            }
        }
        #expect(abs(yaw * 180 / .pi - 360) < 0.01)
        #expect(abs(pitchPeak * 180 / .pi - 20) < 0.01)
        #expect(abs(pitch) < 1e-9)
    }

    @Test func scriptsWithMistakesNameTheStep() throws {
        let folder = try makeScratchFolder()
        let cases: [(String, String)] = [
            (#"{"rate": 100, "steps": [{"hold": 1}, {"turn": {"yaw": 90}}]}"#, "line 1, column 47: steps[1].turn: give seconds or degreesPerSecond, one of them"),
            (#"{"rate": 100, "steps": [{"tap": {"x": 1.5, "y": 0}}]}"#, "line 1, column 33: steps[0].tap: x and y are within 0...1"),
            (#"{"rate": 100, "steps": [{"hold": 1, "tap": {"x": 0, "y": 0}}]}"#, "line 1, column 25: steps[0]: a step is an object with exactly one of hold, turn, tap, swipe, sweep, walk, fall, climb"),
            (#"{"steps": []}"#, "top level: missing field 'rate'"),
            (#"{"rate": "fast", "steps": []}"#, "line 1, column 10: rate: expected Double"),
            (#"{"rate": 100, "groundTruht": true, "steps": []}"#, "line 1, column 30: groundTruht: unknown field"),
            (#"{"rate": 100, "steps": [{"hold": 1}, {"turn": {"yaw": 9, "seconds": 1, "pich": 3}}]}"#, "line 1, column 80: steps[1].turn.pich: unknown field"),
            (#"{"rate": 100, "noise": {"seed": 1, "gyroscope": {"noiseDensty": 0.1}}, "steps": []}"#, "line 1, column 65: noise.gyroscope.noiseDensty: unknown field"),
        ]
        for (index, (text, message)) in cases.enumerated() {
            let path = folder + "/bad\(index).motion.json"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            do {
                _ = try MotionScript.load(path: path)
                Issue.record("accepted \(text)")
            } catch {
                #expect("\(error)" == "\(path): \(message)")
            }
        }
    }

    @Test func simDevicesGenerateOnOpen() async throws {
        let factory = DeviceFactory(backends: [SimulationBackend(searchFolders: [packageRoot + "/traces"])])
        let accel = try factory.open("sim:\(Self.scriptPath)#accel", as: (any MotionSensor).self)
        var count = 0
        for try await sample in accel.readings(buffering: .unbounded) {
            #expect(sample.quantity == .acceleration)
            count += 1
        }
        #expect(count == 2091)
        let listed = factory.discover().devices.map(\.uri).filter { $0.contains("lobby-lookaround") }
        #expect(listed == ["gyro", "accel", "touch"].map { "sim:\(packageRoot)/traces/lobby-lookaround.motion.json#\($0)" })
    }
}

/// Trajectories with a magnetometer, roll, sweeps, noise and ground truth.
@Suite struct TrajectoryTests {
    static let reference = try! MotionScript.load(path: packageRoot + "/traces/fusion-reference.motion.json")

    @Test func theReferenceSequenceHasTheNotesParameters() throws {
        let trace = Self.reference.generate()
        #expect(trace.header.channels.map(\.id) == ["gyro", "accel", "mag", "touch", "truth"])
        #expect(trace.header.channels[4].frame == .enu)
        #expect(trace.duration == .seconds(130))
        #expect(trace.header.metadata["noise-seed"] == "42")
        var clean = Self.reference
        clean.noise = nil
        let truthRates = clean.generate().records.compactMap { MotionSample($0.reading) }.filter { $0.quantity == .angularVelocity }
        let peak = truthRates.map { $0.value.magnitude * 180 / .pi }.max()!
        #expect(abs(peak - 103) < 1.5, "peak \(peak) °/s")
    }

    @Test func theGyroscopeIntegratesToTheTrueAttitude() throws {
        var clean = Self.reference
        clean.noise = nil
        let records = clean.generate().records
        let rates = records.compactMap { MotionSample($0.reading) }.filter { $0.quantity == .angularVelocity }
        let truths = records.compactMap { AttitudeSample($0.reading) }
        var attitude = truths[0].quaternion
        var worst = 0.0
        for index in 1..<rates.count {
            // Trapezoid rule on the body rate between samples.
            let mean = (rates[index - 1].value + rates[index].value) * 0.005
            attitude = (attitude * Quaternion(rotationVector: mean)).normalized
            worst = max(worst, (truths[index].quaternion * attitude.conjugate).angle * 180 / .pi)
        }
        #expect(worst < 0.05, "integrated attitude strays by \(worst)°")
    }

    @Test func accelerometerAndMagnetometerSeeTheEarthThroughTheTrueAttitude() throws {
        var clean = Self.reference
        clean.noise = nil
        let records = clean.generate().records
        let truths = Dictionary(records.compactMap { AttitudeSample($0.reading) }.map { ($0.timestamp, $0) }, uniquingKeysWith: { a, _ in a })
        for sample in records.compactMap({ MotionSample($0.reading) }) where sample.quantity != .angularVelocity {
            let earth = truths[sample.timestamp]!.quaternion.rotate(sample.value)
            switch sample.quantity {
            case .acceleration:
                #expect((earth - Vector3(x: 0, y: 0, z: MotionScript.standardGravity)).magnitude < 1e-9)
            default:
                // 50 µT, dipping 60° below the horizon towards north.
                #expect((earth - Vector3(x: 0, y: 25, z: -50 * 0.8660254037844386)).magnitude < 1e-9)
            }
        }
    }

    @Test func theSameSeedGivesTheSameBytes() throws {
        let first = try Self.reference.generate().encoded()
        #expect(try Self.reference.generate().encoded() == first)
        var reseeded = Self.reference
        reseeded.noise?.seed = 43
        #expect(try reseeded.generate().encoded() != first)
    }

    @Test func rollTurnsTheScreenInItsPlane() throws {
        let script = try JSONDecoder().decode(MotionScript.self, from: Data(#"{"rate": 50, "groundTruth": true, "steps": [{"turn": {"roll": 90, "seconds": 1}}]}"#.utf8))
        let last = script.generate().records.compactMap { MotionSample($0.reading) }.last { $0.quantity == .acceleration }!
        // Rolled 90° clockwise as its user sees it, the device's x axis points up.
        #expect(abs(last.value.x - MotionScript.standardGravity) < 1e-9)
        #expect(abs(last.value.y) < 1e-9)
    }
}
