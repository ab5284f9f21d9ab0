import Foundation
import AppCore
import HAL
import TestSupport

/// The shipped campus-walk scenario with one edit (`from` replaced by `to`), written into `folder` as `name`, its
/// config and walk named by absolute paths; returns the file's path and text.
func editedCampusScenario(in folder: String, as name: String, replacing from: String, with to: String) throws -> (path: String, text: String) {
    let original = try String(contentsOfFile: packageRoot + "/traces/ubc/explorer.run.json", encoding: .utf8)
    let text = original
        .replacingOccurrences(of: "\"explorer.json\"", with: "\"\(packageRoot)/traces/ubc/explorer.json\"")
        .replacingOccurrences(of: "\"main-mall-tour.walk.json\"", with: "\"\(packageRoot)/traces/ubc/main-mall-tour.walk.json\"")
        .replacingOccurrences(of: from, with: to)
    try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
    return (folder + "/" + name, text)
}

/// Seconds as a timestamp.
func at(_ seconds: Double) -> Timestamp { Timestamp(nanoseconds: Int64((seconds * 1e9).rounded())) }

/// Runs an app from `start` (time 0 by default) over `inputs` (in time order), firing timers up to `end`
/// (seconds, or `until`), and returns its events.
func events<Logic: AppLogic>(
    _ logic: Logic, _ inputs: [AppInput], start: Timestamp = .zero, end: Double? = nil, until: Timestamp? = nil,
    speaker: (any Speaker)? = nil
) async -> [AppEvent] {
    var runner = AppRunner(logic: logic, speaker: speaker)
    var all = await runner.start(at: start)
    for input in inputs { all += await runner.feed(input) }
    if let last = end.map(at) ?? until { all += await runner.advance(to: last) }
    return all
}

/// A tap: press, then release 80 ms later at the same point.
func tap(_ seconds: Double, _ x: Double, _ y: Double) -> [AppInput] {
    [.reading(.pointer(PointerEvent(timestamp: at(seconds), phase: .press, x: x, y: y))),
     .reading(.pointer(PointerEvent(timestamp: at(seconds + 0.08), phase: .release, x: x, y: y)))]
}

/// The names of the events, with one attribute's value where given.
func names(_ events: [AppEvent]) -> [String] { events.map(\.name) }

extension [AppEvent] {
    /// The events with a name.
    func named(_ name: String) -> [AppEvent] { filter { $0.name == name } }
}
