import ArgumentParser
public import AppCore
import HAL
import Session
import TraceFormat
import TraceMCAP

/// The `hal` command line, as a library: a project builds its own `hal`-compatible tool that knows its own apps
/// with a `main.swift` of one line,
///
/// ```swift
/// await HALCommandLine.main(apps: [GreenhouseMonitor.self])
/// ```
///
/// and gets `run`, `replay`, `info`, `record` and every other subcommand as `hal` has them.
public enum HALCommandLine {
    /// Parses the process's arguments (or `arguments`) and runs the subcommand, with `apps` as the apps that
    /// `run` and scenario files know. Exits the process when done, with the command's exit code.
    public static func main(apps: [any RunnableApp.Type], arguments: [String]? = nil) async {
        catalog.withLock { $0 = AppCatalog(apps) }
        TraceContainers.register(MCAPTraceContainer())
        await HALTool.main(arguments)
    }

    /// The apps of this command line.
    static let catalog = Locked(AppCatalog([]))
}

/// The `hal` command: inspect, replay, record and simulate sensor traces.
struct HALTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hal",
        abstract: "Sensor HAL and simulator: inspect, replay, record and simulate device traces.",
        subcommands: [Info.self, Convert.self, Plot.self, ReplayCommand.self, Run.self, TestCommand.self, CameraCommand.self, Expressions.self, RecordCommand.self, Devices.self, MotionCommand.self, GPSCommand.self, InputCommand.self, Say.self, Play.self, AudioCommand.self]
    )
}

/// The trace `hal replay` plays when none is named: the shipped look-around.
let defaultTracePath = "traces/lobby-lookaround.jsonl"

/// Options naming the folders that discovery searches.
struct SearchOptions: ParsableArguments {
    @Option(name: .customLong("search"), help: "A folder of traces and scripts for trace:/sim: discovery (repeatable).")
    var folders: [String] = ["traces"]
}
