import ArgumentParser
public import AppCore
public import HAL
import Session
import TraceFormat
import TraceMCAP

/// The `hal` command line, as a library: a project builds its own `hal`-compatible tool that knows its own apps,
/// kinds and device backends with a `main.swift` of one line,
///
/// ```swift
/// await HALCommandLine.main(toolName: "greenhouse", apps: [GreenhouseMonitor.self], kinds: [SoilMoistureSample.kind])
/// ```
///
/// and gets `run`, `replay`, `info`, `record` and every other subcommand as `hal` has them, under its own name in
/// help, usage and messages.
public enum HALCommandLine {
    /// Parses the process's arguments (or `arguments`) and runs the subcommand, and exits the process with the
    /// command's exit code.
    ///
    /// - Parameters:
    ///   - toolName: the command's name in help, usage lines and messages.
    ///   - apps: the apps that `run` and scenario files know.
    ///   - kinds: device kinds to register (``HAL/KindRegistry``) before anything is read.
    ///   - backends: device backends for URIs, besides the built-in ones; one with a built-in scheme replaces it.
    public static func main(
        toolName: String = "hal", apps: [any RunnableApp.Type], kinds: [KindDescription] = [],
        backends: [any DeviceBackend] = [], arguments: [String]? = nil
    ) async {
        settings.withLock { $0 = Settings(toolName: toolName, catalog: AppCatalog(apps), backends: backends) }
        for kind in kinds { KindRegistry.register(kind) }
        TraceContainers.register(MCAPTraceContainer())
        await HALTool.main(arguments)
    }

    /// What `main` was handed.
    struct Settings {
        var toolName = "hal"
        var catalog = AppCatalog([])
        var backends: [any DeviceBackend] = []
    }

    static let settings = Locked(Settings())

    /// The apps of this command line.
    static var catalog: AppCatalog { settings.withLock { $0.catalog } }

    /// The command's name, as `main` was given it.
    static var toolName: String { settings.withLock { $0.toolName } }
}

/// The `hal` command: inspect, replay, record and simulate sensor traces.
///
/// Every command states its `commandName`: without one, ArgumentParser derives it from the type's name with
/// `String(describing:)`, whose dynamic casts scan every protocol conformance in the program, about 2 ms of each
/// start (docs/performance.md, "Start-up").
struct HALTool: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: HALCommandLine.toolName,
            abstract: "Sensor HAL and simulator: inspect, replay, record and simulate device traces.",
            subcommands: [
                Info.self, Convert.self, Plot.self, ReplayCommand.self, Run.self, TestCommand.self, CameraCommand.self, Expressions.self,
                RecordCommand.self, Exec.self, Devices.self, MotionCommand.self, GPSCommand.self, InputCommand.self, Say.self, Play.self, AudioCommand.self,
            ])
    }
}

/// The trace `hal replay` plays when none is named: the shipped look-around.
let defaultTracePath = "traces/lobby-lookaround.jsonl"

/// Options naming the folders that discovery searches.
struct SearchOptions: ParsableArguments {
    /// The folder searched when none is named: the package's `traces`, which may be absent where `hal` runs.
    static let defaultFolders = ["traces"]

    @Option(name: .customLong("search"), help: "A folder of traces and scripts for trace:/sim: discovery (repeatable).")
    var folders: [String] = Self.defaultFolders

    /// A folder named with `--search` that is missing, a file or not readable is refused in words.
    func validate() throws {
        guard folders != Self.defaultFolders else { return }
        for folder in folders {
            do { try FileReads.checkFolder(folder) } catch { throw ValidationError("--search \(error)") }
        }
    }
}
