import Foundation
import HAL
import Replay
import Synthesis
import Testing
import TestSupport
import TraceFormat

/// A kind the package has never heard of, registered the way a user's package registers one.
struct WindSample: KindValue {
    var timestamp: Timestamp
    var speed: Double
    var from: Double
    var kind: DeviceKind { .wind }
}

extension DeviceKind {
    static let wind = DeviceKind("test-wind")
}

let windKind = KindDescription(
    .wind, value: WindSample.self, summary: "wind speed and direction", units: "m/s,deg",
    fields: ValueFields(
        encode: { [("speed", .number($0.speed)), ("from", .number($0.from))] },
        decode: { (fields: inout RecordValues, time: Timestamp) throws(FieldError) -> WindSample in
            WindSample(timestamp: time, speed: try fields.number("speed"), from: try fields.number("from"))
        }),
    text: { "\($0.speed) m/s from \($0.from)°" },
    faults: ValueFaults(bias: { sample, magnitude in
        var sample = sample
        sample.speed += magnitude
        return sample
    }))

@Suite struct KindRegistryTests {
    init() { KindRegistry.register(windKind) }

    static let header = TraceHeader(channels: [TraceChannel(id: "wind", kind: .wind, source: "test:wind", units: "m/s,deg", rate: 1)])

    static func wind(_ seconds: Int64, _ speed: Double) -> TraceRecord {
        TraceRecord(channel: 0, reading: WindSample(timestamp: Timestamp(nanoseconds: seconds * 1_000_000_000), speed: speed, from: 270).reading)
    }

    @Test func aRegisteredKindIsKnownByNameAndDescribesItself() {
        #expect(DeviceKind(rawValue: "test-wind") == .wind)
        #expect(DeviceKind(rawValue: "test-nothing") == nil)
        #expect(DeviceKind.allCases.contains(.wind))
        // The package's own kinds come first, in their order, whatever a program registers after them.
        #expect(Array(DeviceKind.allCases.prefix(packageKinds.count)) == packageKinds)
        #expect(DeviceKind.wind.units == "m/s,deg")
        #expect(DeviceKind.wind.kindDescription.text(WindSample(timestamp: .zero, speed: 3.5, from: 270).reading) == "3.5 m/s from 270.0°")
        #expect(!DeviceKind.wind.isOutput)
    }

    @Test func aRegisteredKindGoesThroughATraceAndBackByteForByte() throws {
        let trace = Trace(header: Self.header, records: [Self.wind(0, 3.5), Self.wind(1, 4)])
        let bytes = try trace.encoded()
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        #expect(lines[1] == #"{"t":0,"ch":"wind","speed":3.5,"from":270.0}"#)
        let decoded = try Trace.decode(bytes, file: "wind.jsonl")
        #expect(decoded.records == trace.records)
        #expect(try decoded.encoded() == bytes)
        // Replayed as a device of its own value type.
        let device = try ReplayedChannel<WindSample>(trace: decoded, channel: "wind")
        #expect(device.allReadings().map(\.speed) == [3.5, 4])
        #expect(try openReplayedChannel(trace: decoded, channel: "wind") is ReplayedChannel<WindSample>)
    }

    @Test func badRecordsOfARegisteredKindNameTheLineAndField() throws {
        let header = String(decoding: try TraceEncoder(header: Self.header).encodeHeader(), as: UTF8.self)
        func error(_ record: String) -> TraceError? {
            do { _ = try Trace.decode(Array((header + record + "\n").utf8), file: "w.jsonl"); return nil } catch { return error }
        }
        let missing = try #require(error(#"{"t":0,"ch":"wind","speed":3}"#))
        #expect(missing.line == 2 && missing.field == "from" && missing.kind == .missingField, "\(missing)")
        let wrong = try #require(error(#"{"t":0,"ch":"wind","speed":"fast","from":1}"#))
        #expect(wrong.line == 2 && wrong.field == "speed" && wrong.kind == .invalidValue, "\(wrong)")
        let extra = try #require(error(#"{"t":0,"ch":"wind","speed":3,"from":1,"gust":9}"#))
        #expect(extra.line == 2 && extra.field == "gust" && extra.kind == .unknownField, "\(extra)")
        let object = try #require(error(#"{"t":0,"ch":"wind","speed":{"x":1},"from":1}"#))
        #expect(object.field == "speed", "\(object)")
    }

    @Test func aTraceOfAKindNobodyRegisteredIsRefusedAtItsHeader() throws {
        let line = #"{"format":"hal-trace","version":1,"channels":[{"id":"x","kind":"test-unregistered","source":"test:x"}]}"#
        #expect {
            try Trace.decode(Array((line + "\n").utf8), file: "x.jsonl")
        } throws: { error in
            guard let error = error as? TraceError else { return false }
            return error.line == 1 && error.field == "channels[0].kind" && error.message.contains("'test-unregistered' is not one of")
                && error.message.contains("KindRegistry.register")
        }
    }

    @Test func faultsActOnARegisteredKindAsItsDescriptionSays() throws {
        let trace = Trace(header: Self.header, records: (0..<6).map { Self.wind($0, Double($0)) })
        func speeds(_ faults: [Fault]) throws -> [Double] {
            try ReplayedChannel<WindSample>(trace: trace, channel: "wind", options: ReplayOptions(faults: FaultPlan(seed: 1, faults: faults)))
                .allReadings().map(\.speed)
        }
        #expect(try speeds([Fault(.bias, from: 3, magnitude: 10)]) == [0, 1, 2, 13, 14, 15])
        #expect(try speeds([Fault(.stuck, from: 2, to: 4)]) == [0, 1, 2, 2, 4, 5])
        // No spike is described for wind: a spike fault would do nothing, so the replay is refused rather than pass
        // untested.
        #expect { try speeds([Fault(.spike, probability: 1, magnitude: 5)]) } throws: { "\($0)".contains("spike does nothing to any channel") }
        #expect(try speeds([Fault(.drop, from: 1, to: 3)]) == [0, 3, 4, 5])
    }

    @Test func scalarKindsAreBuiltThroughTheSameRegistry() throws {
        for kind in [DeviceKind.pressure, .temperature, .humidity, .illuminance, .proximity] {
            #expect(DeviceKind(rawValue: kind.rawValue) == kind)
            #expect(kind.readingType is ScalarSample.Type)
            #expect(kind.kindDescription.fields != nil)
        }
        #expect(DeviceKind.pressure.units == "Pa")
        #expect(DeviceKind.pressure.kindDescription.text(ScalarSample(timestamp: .zero, kind: .pressure, value: 101_325).reading) == "101325.0 Pa")
    }

    @Test func aMotionScriptSimulatesEnvironmentChannelsWithSeededNoiseAndSteps() throws {
        let folder = try makeScratchFolder()
        let script = """
            {"rate": 50, "steps": [{"hold": 3}],
             "environment": [{"id": "baro", "kind": "pressure", "rate": 10, "value": 101325, "drift": -1, "steps": [{"at": 2, "by": -12}]},
                             {"id": "temp", "kind": "temperature", "rate": 1, "value": 21.5, "noise": 0.1, "seed": 7}]}
            """
        try script.write(toFile: folder + "/board.motion.json", atomically: true, encoding: .utf8)
        let trace = try Trace.loadInput(path: folder + "/board.motion.json")
        let baro = try ReplayedChannel<ScalarSample>(trace: trace, channel: "baro").allReadings()
        #expect(baro.count == 31)
        #expect(baro[0].value == 101_325 && baro[10].value == 101_324)
        #expect(baro[20].value == 101_325 - 2 - 12)
        let temp = try ReplayedChannel<ScalarSample>(trace: trace, channel: "temp").allReadings()
        #expect(temp.count == 4 && temp.allSatisfy { abs($0.value - 21.5) < 0.5 } && Set(temp.map(\.value)).count == 4)
        // The same script, the same bytes; through sim: too.
        #expect(try Trace.loadInput(path: folder + "/board.motion.json").encoded() == trace.encoded())
        let device = try DeviceFactory(backends: [SimulationBackend()]).open("sim:\(folder)/board.motion.json#baro", as: (any ScalarSensor).self)
        #expect(device.info.kind == .pressure)
        // A kind that is not a single quantity is refused, naming the field.
        try script.replacingOccurrences(of: "\"temperature\"", with: "\"gyroscope\"").write(toFile: folder + "/bad.motion.json", atomically: true, encoding: .utf8)
        #expect { try Trace.loadInput(path: folder + "/bad.motion.json") } throws: { "\($0)".contains("environment[1].kind") }
    }
}
