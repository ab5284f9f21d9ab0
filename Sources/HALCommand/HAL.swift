import ArgumentParser

/// The `hal` command: inspect, replay, record and simulate sensor traces.
@main
struct HALTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hal",
        abstract: "Sensor HAL and simulator: inspect, replay, record and simulate device traces.",
        subcommands: [Info.self, Replay.self, Run.self, CameraCommand.self, Expressions.self, Record.self, Devices.self, MotionCommand.self, GPSCommand.self, InputCommand.self, Say.self, Play.self, AudioCommand.self]
    )
}

/// The trace `hal replay` plays when none is named: the shipped look-around.
let defaultTracePath = "traces/lobby-lookaround.jsonl"

/// Options naming the folders that discovery searches.
struct SearchOptions: ParsableArguments {
    @Option(name: .customLong("search"), help: "A folder of traces and scripts for trace:/sim: discovery (repeatable).")
    var folders: [String] = ["traces"]
}
