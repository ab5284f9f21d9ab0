// Entry points for the libFuzzer targets (`scripts/fuzz`): each takes arbitrary bytes and runs one parser
// of the package on them. A parser may refuse the bytes with an error; it must never crash, hang or trap.
// Built with `-sanitize=fuzzer` into a shared library that `Fuzz/harness.c` calls.
import AppCore
import DemoApps
import HAL
import InputEvents
import MCAP
import NMEA
import Interchange
import Replay
import Synthesis
import TraceFormat
import TraceMCAP

private func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// The trace reader: header, records, every field.
@_cdecl("hal_fuzz_trace")
public func fuzzTrace(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    _ = try? Trace.decode(bytes(data, size), file: "fuzz.jsonl")
    return 0
}

/// The MCAP reader (scan, the message-view scan with and without CRCs, summary, indexed reads), and over it the HAL
/// trace reader (every schema, protobuf and JSON, whole and from an offset), the ROS 2 import (CDR, every sensor
/// type) and the Foxglove import (Foxglove's schemas in protobuf and JSON; `Fuzz/corpus/mcap/foxglove-sdk.mcap` was
/// written by PyPI `foxglove-sdk`).
@_cdecl("hal_fuzz_mcap")
public func fuzzMCAP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    let reader = MCAPReader(bytes: input, name: "fuzz.mcap")
    try? reader.scan { _ in }
    try? reader.scan({ _ in }, messages: { _ in })
    _ = try? reader.summary()
    try? reader.messages { _, _ in }
    _ = try? reader.metadata()
    _ = try? MCAPTraceFile.decode(input, file: "fuzz.mcap")
    _ = try? MCAPTraceFile.decode(input, file: "fuzz.mcap", from: .milliseconds(1))
    let trusting = MCAPReader(bytes: input, name: "fuzz.mcap")
    trusting.checksCRCs = false
    try? trusting.scan({ _ in }, messages: { _ in })
    _ = ROS2Import.decode(input, file: "fuzz.mcap")
    _ = FoxgloveImport.decode(input, file: "fuzz.mcap")
    return 0
}

/// The NMEA decoder, line by line.
@_cdecl("hal_fuzz_nmea")
public func fuzzNMEA(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var decoder = NMEADecoder()
    for line in bytes(data, size).split(separator: UInt8(ascii: "\n")) {
        line.withUnsafeBufferPointer { _ = decoder.decode(bytes: $0) }
    }
    _ = decoder.finish()
    return 0
}

/// The GPX importer.
@_cdecl("hal_fuzz_gpx")
public func fuzzGPX(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    _ = try? GeoFiles.importGPX(bytes(data, size), file: "fuzz.gpx")
    return 0
}

/// The KML importer.
@_cdecl("hal_fuzz_kml")
public func fuzzKML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    _ = try? GeoFiles.importKML(bytes(data, size), file: "fuzz.kml")
    return 0
}

/// The evemu importer.
@_cdecl("hal_fuzz_evemu")
public func fuzzEvemu(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    _ = try? EvemuRecording(text: String(decoding: bytes(data, size), as: UTF8.self), file: "fuzz.evemu")
    return 0
}

/// The scenario parsers: motion scripts, walks, expression timelines and fault plans, decoded and checked.
@_cdecl("hal_fuzz_scripts")
public func fuzzScripts(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let json = bytes(data, size)
    if let script: MotionScript = try? ScriptFile.decode(json, file: "fuzz") { _ = try? script.validate() }
    if let walk: WalkScenario = try? ScriptFile.decode(json, file: "fuzz") { _ = try? walk.validate(places: walk.places ?? [:]) }
    if let timeline: ExpressionTimeline = try? ScriptFile.decode(json, file: "fuzz") { _ = try? timeline.validate() }
    if let plan: FaultPlan = try? ScriptFile.decode(json, file: "fuzz") { _ = try? plan.validate() }
    return 0
}

/// The app config formats and QA scenarios, decoded and built into apps.
@_cdecl("hal_fuzz_app_configs")
public func fuzzAppConfigs(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let json = bytes(data, size)
    if let map: CampusMap = try? ScriptFile.decode(json, file: "fuzz") { _ = try? CampusExplorer(map: map) }
    if let board: WordBoard = try? ScriptFile.decode(json, file: "fuzz") { _ = try? TalkBoard(board: board) }
    if let config: ViewerConfig = try? ScriptFile.decode(json, file: "fuzz") { _ = try? ExperienceViewer(config: config) }
    if let config: TrainerConfig = try? ScriptFile.decode(json, file: "fuzz") { _ = try? EmotionTrainer(config: config) }
    if let config: FieldGuideConfig = try? ScriptFile.decode(json, file: "fuzz") { _ = try? FieldGuide(config: config) }
    if let scenario: AppScenario = try? ScriptFile.decode(json, file: "fuzz") { _ = try? scenario.validate() }
    return 0
}

/// Walk scenarios: decoded, checked, and generated when they make a small trace.
@_cdecl("hal_fuzz_walks")
public func fuzzWalks(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let walk: WalkScenario = try? ScriptFile.decode(bytes(data, size), file: "fuzz") else { return 0 }
    let places = walk.places ?? [:]
    guard (try? walk.validate(places: places)) != nil, walk.recordEstimate(places: places) < 20_000 else { return 0 }
    _ = try? walk.generate(places: places).encoded()
    return 0
}

/// A small trace with a channel of every built-in kind and a pressure channel, for the fault plans to act on.
private let faultTarget: Trace = {
    let kinds: [DeviceKind] = [.gyroscope, .attitude, .pointer, .keys, .location, .camera, .expression, .pressure]
    let header = TraceHeader(channels: kinds.map {
        TraceChannel(id: $0.rawValue, kind: $0, source: "fuzz:\($0.rawValue)", frame: $0 == .attitude ? .enu : nil)
    })
    var records: [TraceRecord] = []
    for step in 0..<20 {
        let time = Timestamp(nanoseconds: Int64(step) * 100_000_000)
        let readings: [Reading] = [
            .motion(MotionSample(timestamp: time, quantity: .angularVelocity, value: Vector3(x: 0.1, y: 0, z: 0))),
            .attitude(AttitudeSample(timestamp: time, quaternion: .identity, frame: .enu)),
            .pointer(PointerEvent(timestamp: time, phase: step % 2 == 0 ? .press : .release, x: 0.5, y: 0.5)),
            .key(KeyEvent(timestamp: time, code: 28, state: .press)),
            .location(LocationFix(timestamp: time, mode: .threeDimensional, coordinate: GeoCoordinate(latitude: 49.26, longitude: -123.25))),
            .frame(Frame(timestamp: time, sequence: UInt64(step), width: 2, height: 2, pixelFormat: .grey, bytesPerRow: 2, storage: .bytes([1, 2, 3, 4]))),
            .expression(.noFace(at: time)),
            ScalarSample(timestamp: time, kind: .pressure, value: 101_325).reading,
        ]
        records += readings.enumerated().map { TraceRecord(channel: $0.offset, reading: $0.element) }
    }
    return Trace(header: header, records: records)
}()

/// Fault plans: decoded, checked, and applied to a trace of every kind.
@_cdecl("hal_fuzz_fault_plans")
public func fuzzFaultPlans(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let plan: FaultPlan = try? ScriptFile.decode(bytes(data, size), file: "fuzz"), (try? plan.validate()) != nil else { return 0 }
    _ = FaultInjector(plan: plan, header: faultTarget.header).apply(to: faultTarget.records)
    return 0
}

/// The events the scenario target's expectations are checked against.
private let scenarioEvents: [AppEvent] = (0..<30).map { step in
    AppEvent(
        timestamp: Timestamp(nanoseconds: Int64(step) * 250_000_000),
        name: ["input:touch", "sound.played", "answer.correct", "place.arrived"][step % 4],
        attributes: ["phase": .string(step % 8 == 0 ? "release" : "press"), "place": .string("clock-tower"), "count": .int(Int64(step))])
}

/// QA scenarios: decoded, checked, and every expectation (windows, spans, response times) checked against events.
@_cdecl("hal_fuzz_scenarios")
public func fuzzScenarios(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let scenario: AppScenario = try? ScriptFile.decode(bytes(data, size), file: "fuzz"), (try? scenario.validate()) != nil else { return 0 }
    for expectation in scenario.expect ?? [] { _ = expectation.check(scenarioEvents, start: .zero).line }
    return 0
}
