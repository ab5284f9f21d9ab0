public import AppCore
public import HAL
public import Replay
import FoundationEssentials
import Synthesis
public import TraceFormat

/// The apps a session can build by name: a command line's, a test suite's.
public struct AppCatalog: Sendable {
    /// The apps, in the order given.
    public let apps: [any RunnableApp.Type]

    /// A catalog of `apps`. Where two share a name, the first is the one `app(named:)` finds.
    public init(_ apps: [any RunnableApp.Type]) {
        self.apps = apps
    }

    /// The apps' names, sorted.
    public var names: [String] { apps.map { $0.name }.sorted() }

    /// The app called `name`, or an error listing the apps.
    public func app(named name: String) throws(ScriptError) -> any RunnableApp.Type {
        guard let app = apps.first(where: { $0.name == name }) else {
            throw ScriptError.located(file: nil, "no app '\(name)'; the apps are \(names.joined(separator: ", "))")
        }
        return app
    }

    /// Builds the app called `name` from its config file. Errors name the file and the field.
    ///
    /// An app that is a value is built once per config and process and handed out as a copy, as long as every file
    /// its config read still holds the same bytes: a suite runs hundreds of scenarios of one app on one config, and
    /// decoding it for each was a twentieth of their time (reading a few kilobytes again to compare is not). An app
    /// that is a class is built each time.
    public func load(_ name: String, config path: String) throws -> any RunnableApp {
        let app = try app(named: name)
        return try Self.loaded.value(for: LoadedAppKey(app: ObjectIdentifier(app), config: path), keep: { !(type(of: $0) is AnyObject.Type) }) {
            do {
                return try app.load(config: ConfigFiles(path: path))
            } catch let error as AppConfigError {
                throw ScriptError.located(file: path, error.description)
            }
        }
    }

    /// The apps built, by app and config, with the files their configs read.
    private static let loaded = FileCache<LoadedAppKey, any RunnableApp>()
}

/// An app built from a config file.
private struct LoadedAppKey: Hashable, Sendable {
    var app: ObjectIdentifier
    var config: String
}

/// An app's config file read through `ScriptFile`: JSON with errors naming the file, line and field; every file it
/// decodes counts as read by the app's build (`FileCache`).
struct ConfigFiles: AppConfigFiles {
    let path: String

    func decode<Value: Codable>(_ type: Value.Type, file: String?) throws -> Value {
        try ScriptFile.decode(path: file.map(resolve) ?? path)
    }

    func resolve(_ path: String) -> String { TracePath.resolve(path, inTraceAt: self.path) }

    var folder: String { TracePath.folder(ofTraceAt: path) }
}

/// A QA scenario file (`*.run.json`, `AppScenario`), checked and with its paths resolved, ready to run.
public struct Scenario: Sendable {
    /// The scenario file's path.
    public let path: String
    /// What the file says.
    public let file: AppScenario

    /// Reads and checks a scenario file. Errors name the file, and the line or field.
    public init(path: String) throws {
        try self.init(path: path, file: ScriptFile.decode(path: path))
    }

    /// A scenario that says `file`, as if read from `path` (its paths are relative to that file's folder): a variant
    /// or a shrunk case built in memory. Errors name the file and the field.
    public init(path: String, file: AppScenario) throws {
        do { try file.validate() } catch { throw ScriptError.located(file: path, error.description) }
        self.path = path
        self.file = file
    }

    /// The app's config file, from the working directory.
    public var configPath: String { TracePath.resolve(file.config, inTraceAt: path) }
    /// The input traces and scripts, from the working directory.
    public var inputPaths: [String] { file.inputs.map { TracePath.resolve($0, inTraceAt: path) } }
    /// The fault plan file, from the working directory.
    public var faultsPath: String? { file.faults.map { TracePath.resolve($0, inTraceAt: path) } }
    /// The exploration space file, from the working directory.
    public var explorePath: String? { file.explore.map { TracePath.resolve($0, inTraceAt: path) } }

    /// The scenario's inputs merged into one trace; with `reseed`, every script's noise seeded by it
    /// (`Trace.loadInput(path:reseed:)`).
    public func loadInputs(reseed: UInt64? = nil) throws -> Trace {
        try Trace.merging(inputPaths.map { try Trace.loadInput(path: $0, reseed: reseed) })
    }

    /// The scenario's fault plan, or `nil` when it names none.
    public func loadFaults() throws -> FaultPlan? {
        try faultsPath.map { try FaultPlan.load(path: $0) }
    }

    /// Runs the scenario's app from `catalog` against its inputs, commands, faults and expectations.
    ///
    /// `faults` replaces the scenario's own plan; `outputs` makes the speaker (unless `speaker` is given) and the
    /// screen. See ``AppSession`` for the merge order. `logic` and `inputs`, when given, stand for the app built from
    /// the config file and the inputs read from the files: a caller that runs one scenario many times (exploration)
    /// builds them once.
    public func run(
        catalog: AppCatalog, logic: (any RunnableApp)? = nil, inputs: Trace? = nil, speaker: (any Speaker)? = nil, outputs: SimulatedOutputs = .doubles, storage: (any AppStorage)? = nil,
        pacing: ReplayPacing = .asFastAsPossible,
        pacingClock: any Clock<Duration> = ContinuousClock(), faults: FaultPlan? = nil, records: Bool = false,
        onEvents: ([AppEvent], _ start: Timestamp) -> Void = { _, _ in }
    ) async throws -> SessionResult {
        let logic = try logic ?? catalog.load(file.app, config: configPath)
        let inputs = try inputs ?? loadInputs()
        let plan = try faults ?? loadFaults()
        func run<Logic: AppLogic>(_ logic: Logic) async throws -> SessionResult {
            let session = AppSession(
                logic, inputs: inputs, commands: file.commands ?? [], end: file.end, faults: plan, speaker: speaker, outputs: outputs, storage: storage,
                pacing: pacing, pacingClock: pacingClock, expectations: file.expect ?? [], records: records)
            // The session checks the names before it runs; one the run can never produce is the scenario's mistake:
            // name its line and column.
            do {
                return try await session.run(onEvents: onEvents)
            } catch let error as AppConfigError {
                throw ScriptError.located(file: path, error.description)
            }
        }
        return try await run(logic)
    }
}
