import Foundation
import HAL
import Synthesis
import TraceFormat
import TestSupport
import Testing

/// The steps that move the body (`walk`, `fall`, `climb`), and which channels a script emits.
@Suite struct MotionStepTests {
    static let examplePath = packageRoot + "/traces/walk-and-fall.motion.json"
    static let g = MotionScript.standardGravity

    static func script(_ text: String) throws -> MotionScript {
        let script = try JSONDecoder().decode(MotionScript.self, from: Data(text.utf8))
        try script.validate()
        return script
    }

    static func samples(_ trace: Trace, _ quantity: MotionQuantity) -> [MotionSample] {
        trace.records.compactMap { MotionSample($0.reading) }.filter { $0.quantity == quantity }
    }

    static func scalars(_ trace: Trace) -> [ScalarSample] {
        trace.records.compactMap { ScalarSample($0.reading) }
    }

    /// The issue's test: 20 steps at 2 a second, then a 1 m fall, read through the phone preset's noise.
    @Test func twentyStepsThenAOneMetreFall() throws {
        let trace = try MotionScript.load(path: Self.examplePath).generate()
        let accel = Self.samples(trace, .acceleration)
        let magnitudes = accel.map { $0.value.magnitude / Self.g }
        // Peaks above 1.2 g, each a separate crossing from below.
        var peaks = 0
        for index in 1..<magnitudes.count where magnitudes[index] > 1.2 && magnitudes[index - 1] <= 1.2 { peaks += 1 }
        let impact = magnitudes.max()!
        // Above 1.2 g: the 20 steps and the impact's pulse.
        #expect(peaks == 21, "\(peaks) crossings above 1.2 g")
        #expect(impact > 2.5, "impact \(impact) g")
        // The steps run from 2 s to 12 s; the impact is after the walk, at 12.5 s + the free fall.
        let walkPeaks = (1..<magnitudes.count).filter { index in
            magnitudes[index] > 1.2 && magnitudes[index - 1] <= 1.2 && accel[index].timestamp.nanoseconds < 12_000_000_000
        }
        #expect(walkPeaks.count == 20)
        let weightless = accel.indices.filter { magnitudes[$0] < 0.3 }
        let period = 0.01
        let span = Double(accel[weightless.last!].timestamp.nanoseconds - accel[weightless.first!].timestamp.nanoseconds) / 1e9 + period
        let freeFall = (2 * 1.0 / Self.g).squareRoot()
        #expect(abs(freeFall - 0.4516) < 1e-4)
        #expect(abs(span - freeFall) <= period, "below 0.3 g for \(span) s")
        #expect(weightless.count == Int(((span) / period).rounded()), "one stretch below 0.3 g")
        #expect(abs(Double(accel[weightless.first!].timestamp.nanoseconds) / 1e9 - 12.5) < 1e-9)
        let impactTime = accel[magnitudes.firstIndex(of: impact)!].timestamp.nanoseconds
        #expect(impactTime > accel[weightless.last!].timestamp.nanoseconds)
        // The channels: accel and baro declared, gyro added because the turn, walk and fall need it.
        #expect(trace.header.channels.map(\.id) == ["gyro", "accel", "baro"])
    }

    @Test func withoutNoiseEachStepIsOnePeakOfTheBounce() throws {
        var script = try MotionScript.load(path: Self.examplePath)
        script.noise = nil
        let accel = Self.samples(script.generate(), .acceleration)
        let walk = accel.filter { (2_000_000_000..<12_000_000_000).contains($0.timestamp.nanoseconds) }.map { $0.value.magnitude / Self.g }
        var peaks = 0
        for index in 1..<walk.count - 1 where walk[index] > walk[index - 1] && walk[index] >= walk[index + 1] { peaks += 1 }
        #expect(peaks == 20)
        // 1 + 0.4 g at mid-step, 1 − 0.4 g between steps.
        #expect(abs(walk.max()! - 1.4) < 1e-9)
        #expect(abs(walk.min()! - 0.6) < 1e-9)
        // Free fall reads exactly nothing without noise.
        #expect(accel.contains { $0.value == .zero })
    }

    @Test func aWalkGoesTheWayAPrecedingTurnLeftTheDevice() throws {
        for (yaw, east, north) in [(90.0, 1.0, 0.0), (0, 0, 1), (-135, -0.5.squareRoot(), -0.5.squareRoot())] {
            let script = try Self.script(#"""
                {"rate": 100, "groundTruth": true, "steps": [{"turn": {"yaw": \#(yaw), "seconds": 1}}, {"walk": {"steps": 4, "cadence": 2}}]}
                """#)
            let trace = script.generate()
            let truths = trace.records.compactMap { AttitudeSample($0.reading) }
            let accel = Self.samples(trace, .acceleration)
            let gyro = Self.samples(trace, .angularVelocity)
            var surge = 0.0
            for (index, sample) in accel.enumerated() where sample.timestamp.nanoseconds > 1_000_000_000 {
                // The body's acceleration in ENU: the specific force seen from the earth, less gravity's reaction.
                let body = truths[index].quaternion.rotate(sample.value) - Vector3(x: 0, y: 0, z: Self.g)
                // Horizontal acceleration is along the heading only.
                #expect(abs(body.x * north - body.y * east) < 1e-9, "t \(sample.timestamp), \(body)")
                surge = max(surge, body.x * east + body.y * north)
                #expect(gyro[index].value.magnitude < 0.3, "the walk's sway is small")
            }
            // 0.15 · 0.7 m · 2 /s · 2π · 2 /s of forward surge at its peak.
            #expect(abs(surge - 0.15 * 0.7 * 2 * 2 * .pi * 2) < 0.01, "surge \(surge)")
        }
    }

    @Test func aClimbChangesEveryPressureChannelByTheBarometricFormula() throws {
        let script = try Self.script(#"""
            {"rate": 10, "channels": ["baro"], "environment": [
              {"id": "baro", "kind": "pressure", "rate": 10, "value": 101325},
              {"id": "deck", "kind": "pressure", "rate": 5, "value": 90000, "drift": -1},
              {"id": "temp", "kind": "temperature", "rate": 1, "value": 20}],
             "steps": [{"hold": 1}, {"climb": {"metres": 30, "seconds": 10}}, {"hold": 1}, {"climb": {"metres": -31, "seconds": 2}}]}
            """#)
        let trace = script.generate()
        // baro declared; deck added because a climb needs every pressure channel; temp left out.
        #expect(trace.header.channels.map(\.id) == ["baro", "deck"])
        func value(_ channel: Int, at seconds: Double) -> Double {
            let record = trace.records.first { $0.channel == channel && $0.timestamp.nanoseconds == Int64((seconds * 1e9).rounded()) }
            return ScalarSample(record!.reading)!.value
        }
        // 101325 · (1 − 2.25577e-5 · 30)^5.25588, worked out apart from the package.
        #expect(abs(value(0, at: 11) - 100965.12412724759) < 0.01)
        #expect(abs(value(0, at: 6) - 101144.93246061618) < 0.01, "linear in altitude: 15 m halfway")
        #expect(value(0, at: 1) == 101325)
        #expect(abs(value(0, at: 14) - 101337.01372583772) < 0.01, "1 m below the start")
        // The second channel drifts, and the climb scales what it would read.
        #expect(abs(value(1, at: 11) - MotionScript.pressure(90000 - 11, metresUp: 30)) < 0.01)
        #expect(abs(MotionScript.pressure(90000 - 11, metresUp: 30) - (90000 - 11)) > 300)
    }

    @Test func aFallRaisesThePressureByItsHeight() throws {
        let script = try Self.script(#"""
            {"rate": 100, "channels": ["baro"], "environment": [{"id": "baro", "kind": "pressure", "rate": 100, "value": 101325}],
             "steps": [{"hold": 1}, {"fall": {"height": 2}}, {"hold": 1}]}
            """#)
        let trace = script.generate()
        #expect(trace.header.channels.map(\.id) == ["gyro", "accel", "baro"])
        let pressures = Self.scalars(trace)
        #expect(pressures.first!.value == 101325)
        #expect(abs(pressures.last!.value - MotionScript.pressure(101325, metresUp: -2)) < 1e-9)
        #expect(pressures.last!.value - 101325 > 23)
        // Half-way through the free fall in time, a quarter of the height is gone.
        let quarter = Int64((1 + (2 * 2 / Self.g).squareRoot() / 2) * 100)
        let sample = pressures[Int(quarter)]
        let seconds = Double(sample.timestamp.nanoseconds) / 1e9 - 1
        #expect(abs(sample.value - MotionScript.pressure(101325, metresUp: -Self.g * seconds * seconds / 2)) < 1e-6)
    }

    @Test func aScriptEmitsTheChannelsItDeclaresAndItsStepsNeed() throws {
        let environment = #""environment": [{"id": "baro", "kind": "pressure", "rate": 10, "value": 101325}]"#
        let cases: [(String, [String])] = [
            (#"{"rate": 10, "channels": ["baro"], \#(environment), "steps": [{"hold": 2}, {"climb": {"metres": 3, "seconds": 3}}]}"#, ["baro"]),
            (#"{"rate": 10, "channels": ["baro"], \#(environment), "steps": [{"tap": {"x": 0.5, "y": 0.5}}]}"#, ["touch", "baro"]),
            (#"{"rate": 10, "channels": [], \#(environment), "steps": [{"walk": {"steps": 2, "cadence": 1}}]}"#, ["gyro", "accel"]),
            (#"{"rate": 10, "channels": ["truth"], "groundTruth": true, "steps": [{"hold": 1}]}"#, ["truth"]),
            // No declaration: every channel the script can make, as before.
            (#"{"rate": 10, \#(environment), "steps": [{"hold": 1}]}"#, ["gyro", "accel", "touch", "baro"]),
        ]
        for (text, expected) in cases {
            let script = try Self.script(text)
            #expect(script.emittedChannels == expected, "\(text)")
            let trace = script.generate()
            #expect(trace.header.channels.map(\.id) == expected)
            #expect(Set(trace.records.map { trace.header.channels[$0.channel].id }).isSubset(of: Set(expected)))
        }
        // A barometer-only script makes barometer records and nothing else.
        let baroOnly = try Self.script(cases[0].0).generate()
        #expect(baroOnly.records.count == 51)
    }

    @Test func aSimURISelectsChannels() async throws {
        let full = try MotionScript.load(path: Self.examplePath).generate(source: "sim:\(Self.examplePath)")
        let selected = try SimulationBackend.trace(for: DeviceURI("sim:\(Self.examplePath)#accel,baro"))
        #expect(selected.header.channels.map(\.id) == ["accel", "baro"])
        #expect(selected.header.channels.map(\.source) == ["accel", "baro"].map { "sim:\(Self.examplePath)#\($0)" })
        // Leaving the gyroscope out changes neither the accelerometer's noisy readings nor the barometer's.
        func readings(_ trace: Trace, _ id: String) -> [Reading] {
            let index = trace.header.channelIndex(of: id)!
            return trace.records.filter { $0.channel == index }.map(\.reading)
        }
        #expect(readings(selected, "accel") == readings(full, "accel"))
        #expect(readings(selected, "baro") == readings(full, "baro"))

        let factory = DeviceFactory(backends: [SimulationBackend(searchFolders: [])])
        let baro = try factory.open("sim:\(Self.examplePath)#baro", as: (any ScalarSensor).self)
        var count = 0
        for try await _ in baro.readings(buffering: .unbounded) { count += 1 }
        #expect(count == readings(full, "baro").count)
        #expect { try factory.open("sim:\(Self.examplePath)#accel,baro", as: (any ReadingSource).self) } throws: {
            "\($0)".contains("names 2 channels, and a device is one")
        }
        #expect { try factory.open("sim:\(Self.examplePath)#touch", as: (any ReadingSource).self) } throws: {
            "\($0)".contains("the script has no channel 'touch' (channels: gyro, accel, baro)")
        }
        #expect(SimulationBackend.channelURIs("sim:a.motion.json?rate=2#accel,baro") == ["sim:a.motion.json?rate=2#accel", "sim:a.motion.json?rate=2#baro"])
        #expect(SimulationBackend.channelURIs("trace:a.jsonl#accel,baro") == ["trace:a.jsonl#accel,baro"])
        #expect(SimulationBackend.channelURIs("sim:a.motion.json#gyro") == ["sim:a.motion.json#gyro"])
    }

    @Test func stepsWithMistakesNameTheField() throws {
        let folder = try makeScratchFolder()
        let cases: [(String, String)] = [
            (#"{"rate": 100, "steps": [{"walk": {"steps": 20, "cadence": 0}}]}"#, "line 1, column 59: steps[0].walk.cadence: 0.0 is not within 0 and 5 steps a second"),
            (#"{"rate": 100, "steps": [{"walk": {"steps": 0, "cadence": 2}}]}"#, "line 1, column 44: steps[0].walk.steps: 0 is not a positive number of steps"),
            (#"{"rate": 100, "steps": [{"walk": {"steps": 2.5, "cadence": 2}}]}"#, "line 1, column 44: steps[0].walk.steps: Parsed JSON number <2.5> does not fit in Int."),
            (#"{"rate": 100, "steps": [{"walk": {"steps": 2, "cadence": 2, "stride": -1}}]}"#, "line 1, column 71: steps[0].walk.stride: -1.0 is not within 0 and 3 metres"),
            (#"{"rate": 100, "steps": [{"walk": {"steps": 2, "cadense": 2}}]}"#, "line 1, column 34: steps[0].walk: missing field 'cadence'"),
            (#"{"rate": 100, "steps": [{"walk": {"steps": 2, "cadence": 2, "strid": 1}}]}"#, "line 1, column 70: steps[0].walk.strid: unknown field"),
            (#"{"rate": 100, "steps": [{"fall": {"height": 0}}]}"#, "line 1, column 45: steps[0].fall.height: 0.0 is not within 0 and 100 metres"),
            (#"{"rate": 100, "steps": [{"fall": 1}]}"#, "line 1, column 34: steps[0].fall: expected Dictionary<String, Any>"),
            (#"{"rate": 100, "steps": [{"climb": {"metres": 3}}]}"#, "line 1, column 35: steps[0].climb: missing field 'seconds'"),
            (#"{"rate": 100, "steps": [{"climb": {"metres": 3, "seconds": 0}}]}"#, "line 1, column 60: steps[0].climb.seconds: 0.0 is not a positive duration"),
            (#"{"rate": 100, "steps": [{"climb": {"metres": 9000, "seconds": 1}}, {"climb": {"metres": 9000, "seconds": 1}}]}"#,
             "line 1, column 68: steps[1]: the device would be 18000.0 m from where it started; it stays within 10000 m"),
            (#"{"rate": 100, "channels": ["accel", "mag"], "steps": []}"#, "line 1, column 37: channels[1]: 'mag' is not a channel of this script (gyro, accel, touch)"),
            (#"{"rate": 100, "channels": "accel", "steps": []}"#, "line 1, column 27: channels: expected Array<Any>"),
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
}
