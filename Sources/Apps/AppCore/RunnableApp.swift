/// An app that a command line, a scenario file or a test suite can name and build from its config file.
///
/// Conform an ``AppLogic`` to it and hand the type to the session library or to `HALCommandLine`: `hal run NAME`,
/// scenarios with `"app": "NAME"` and `hal test` then know it, with no list to edit.
///
/// ```swift
/// extension GreenhouseMonitor: RunnableApp {
///     static func load(config: some AppConfigFiles) throws -> Self {
///         try GreenhouseMonitor(settings: config.decode(Settings.self))
///     }
/// }
/// ```
public protocol RunnableApp: AppLogic {
    /// Builds the app from its config file. Errors name the file and the field.
    static func load(config: some AppConfigFiles) throws -> Self
    /// The scenario `hal run NAME` runs when none is named, relative to the working directory, if the app ships one.
    static var defaultScenario: String? { get }
}

extension RunnableApp {
    /// No shipped scenario.
    public static var defaultScenario: String? { nil }
}

/// An app's config file and the files it names, as the session library reads them: JSON decoded into `Codable`
/// values, with errors that name the file, the line and the field.
///
/// It keeps ``AppCore`` free of file formats: apps say what they decode, the session says how.
public protocol AppConfigFiles: Sendable {
    /// The config file's path.
    var path: String { get }
    /// Decodes the config file, or with `file`, a file named relative to the config file's folder.
    func decode<Value: Codable>(_ type: Value.Type, file: String?) throws -> Value
    /// A path named in the config file, made usable from the working directory (relative to the config's folder).
    func resolve(_ path: String) -> String
    /// The folder the config file is in.
    var folder: String { get }
}

extension AppConfigFiles {
    /// Decodes the config file.
    public func decode<Value: Codable>(_ type: Value.Type) throws -> Value { try decode(type, file: nil) }
}
