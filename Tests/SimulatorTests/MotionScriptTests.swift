import Foundation
import HAL
import Simulator
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
            (#"{"rate": 100, "steps": [{"hold": 1}, {"turn": {"yaw": 90}}]}"#, "steps[1].turn: give seconds or degreesPerSecond, one of them"),
            (#"{"rate": 100, "steps": [{"tap": {"x": 1.5, "y": 0}}]}"#, "steps[0].tap: x and y are within 0...1"),
            (#"{"rate": 100, "steps": [{"hold": 1, "tap": {"x": 0, "y": 0}}]}"#, "steps[0]: a step is an object with exactly one of hold, turn, tap, swipe, sweep"),
            (#"{"steps": []}"#, "top level: missing field 'rate'"),
            (#"{"rate": "fast", "steps": []}"#, "rate: expected Double"),
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
        let listed = factory.discover().devices.map(\.uri)
        #expect(listed == ["gyro", "accel", "touch"].map { "sim:\(packageRoot)/traces/lobby-lookaround.motion.json#\($0)" })
    }
}
