// Entry points for the libFuzzer targets (`scripts/fuzz`): each takes arbitrary bytes and runs one parser
// of the package on them. A parser may refuse the bytes with an error; it must never crash, hang or trap.
// Built with `-sanitize=fuzzer` into a shared library that `Fuzz/harness.c` calls.
import AppCore
import DemoApps
import InputEvents
import NMEA
import Interchange
import Replay
import Synthesis
import TraceFormat

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
