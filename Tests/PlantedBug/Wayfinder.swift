public import AppCore
import Foundation
public import HAL

/// An app with a planted bug that only two overlapping faults reach. On each tap it says where the user points: from
/// the GPS fix when one is fresh (2 s), else from the compass heading when that is fresh (2 s). The bug: with
/// neither fresh it says nothing, where it should say it cannot tell. So a lost fix alone passes (the compass
/// answers), a late compass alone passes (the GPS answers), and only both at one tap fail.
public struct Wayfinder: RunnableApp {
    /// `wayfinder`.
    public static let name = "wayfinder"
    var lastFix: Timestamp?
    var lastHeading: Timestamp?

    /// A wayfinder; the config file holds nothing.
    public static func load(config: some AppConfigFiles) throws -> Wayfinder { Wayfinder() }

    public mutating func start(at time: Timestamp, output: inout AppOutput) {}

    public mutating func handle(_ input: AppInput, output: inout AppOutput) {
        guard case .reading(let reading, _) = input else { return }
        switch reading {
        case .location(let fix) where fix.mode != .none && fix.coordinate != nil: lastFix = fix.timestamp
        case .attitude(let sample): lastHeading = sample.timestamp
        case .pointer(let event) where event.phase == .release:
            let time = event.timestamp
            output.emit("tap", at: time)
            if let fix = lastFix, fix.duration(to: time) <= .seconds(2) {
                output.emit("pointed", at: time, ["from": .string("gps")])
            } else if let heading = lastHeading, heading.duration(to: time) <= .seconds(2) {
                output.emit("pointed", at: time, ["from": .string("compass")])
            }
        default: break
        }
    }
}

/// Writes the wayfinder's scenario into `folder` and returns its path: a minute of 1 Hz GPS fixes, a 10 Hz compass and a tap every 5 s,
/// with a fault space of lost fixes, compass latency and duplicated touches.
public func wayfinderScenario(in folder: String, space: String? = nil) throws -> String {
    var lines = [
        #"{"format":"hal-trace","version":1,"channels":[{"id":"gps","kind":"location","source":"test","units":"deg,m,m/s"},{"id":"heading","kind":"attitude","source":"test","frame":"ENU"},{"id":"touch","kind":"pointer","source":"test","units":"normalized"}]}"#
    ]
    var records: [(Int64, String)] = []
    for second in 0...60 {
        let t = Int64(second) * 1_000_000_000
        records.append((t, #"{"t":\#(t),"ch":"gps","mode":"3d","lat":49.26,"lon":-123.25}"#))
    }
    for tenth in 0...600 {
        let t = Int64(tenth) * 100_000_000
        records.append((t, #"{"t":\#(t),"ch":"heading","q":[1,0,0,0]}"#))
    }
    for tap in stride(from: 5, through: 55, by: 5) {
        let press = Int64(tap) * 1_000_000_000, release = press + 80_000_000
        records.append((press, #"{"t":\#(press),"ch":"touch","phase":"press","pointer":0,"x":0.5,"y":0.5}"#))
        records.append((release, #"{"t":\#(release),"ch":"touch","phase":"release","pointer":0,"x":0.5,"y":0.5}"#))
    }
    lines += records.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element.1)
    try (lines.joined(separator: "\n") + "\n").write(toFile: folder + "/day.jsonl", atomically: true, encoding: .utf8)
    try "{}".write(toFile: folder + "/wayfinder.json", atomically: true, encoding: .utf8)
    try (space ?? """
        {"count": [2, 3], "faults": [
          {"kind": "lostFix", "channel": "gps", "duration": [5, 30]},
          {"kind": "latency", "channel": "heading", "magnitude": [0.5, 5], "duration": [2, 20]},
          {"kind": "duplicate", "channel": "touch", "probability": [0.05, 0.3]}
        ]}
        """).write(toFile: folder + "/wayfinder.space.json", atomically: true, encoding: .utf8)
    try """
        {"app": "wayfinder", "config": "wayfinder.json", "inputs": ["day.jsonl"], "explore": "wayfinder.space.json",
         "expect": [
           {"each": {"event": "tap"}, "then": {"event": "pointed"}, "within": 1}
         ]}
        """.write(toFile: folder + "/wayfinder.run.json", atomically: true, encoding: .utf8)
    return folder + "/wayfinder.run.json"
}
