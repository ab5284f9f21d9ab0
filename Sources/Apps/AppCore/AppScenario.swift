public import HAL

/// A QA scenario for `hal run`: which app, its config, the input traces or scripts, scripted user
/// commands, and expectations to check.
///
/// ```json
/// {"app": "explorer", "config": "explorer.json", "inputs": ["main-mall-tour.walk.json"],
///  "commands": [{"at": 400, "action": "signIn", "with": {"user": "ana"}}],
///  "end": 1500,
///  "expect": [{"event": "place.arrived", "with": {"place": "clock-tower"}, "between": [120, 180]}]}
/// ```
/// Paths are relative to the scenario file.
public struct AppScenario: Sendable, Hashable, Codable {
    /// The app's name, as `hal run` takes it.
    public var app: String
    /// The app's config file.
    public var config: String
    /// Traces (`.jsonl`) or scripts (`.motion.json`, `.walk.json`, `.expressions.json`) whose channels feed the app.
    public var inputs: [String]
    /// User commands at times, seconds after the first input.
    public var commands: [ScriptedCommand]?
    /// Seconds after the first input up to which timers fire; the last input's time when absent.
    public var end: Seconds?
    /// What must hold.
    public var expect: [EventExpectation]?
    /// A fault plan file injected into the inputs (`docs/faults.md`), relative to the scenario.
    public var faults: String?
    /// A fault space file (`docs/exploring.md`), relative to the scenario: what `hal test --explore` may vary. Without
    /// one, exploration uses the default space of the inputs' channels.
    public var explore: String?
    /// Why the scenario is skipped, if it is: `hal test` reports it as skipped instead of running it.
    public var skip: String?

    /// A user command at a time.
    public struct ScriptedCommand: Sendable, Hashable, Codable {
        /// Seconds after the first input.
        public var at: Seconds
        /// The action.
        public var action: String
        /// Its arguments.
        public var with: [String: String]?

        /// Creates a scripted command.
        public init(at: Seconds, action: String, with: [String: String]? = nil) {
            self.at = at
            self.action = action
            self.with = with
        }
    }

    /// Checks the scenario's own fields, naming the first bad one.
    public func validate() throws(AppConfigError) {
        if inputs.isEmpty { throw AppConfigError(field: "inputs", "give at least one trace or script") }
        for (index, command) in (commands ?? []).enumerated() where command.at < .zero {
            throw AppConfigError(field: "commands[\(index)].at", "\(command.at); expected 0 or more seconds")
        }
        if let end, end < .zero { throw AppConfigError(field: "end", "\(end); expected 0 or more seconds") }
        for (index, expectation) in (expect ?? []).enumerated() {
            try expectation.validate(field: "expect[\(index)]")
        }
    }
}
