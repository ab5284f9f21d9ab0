import HAL

/// The names an app can produce and take: its events and its commands' actions, so that a scenario that names one it
/// never emits or takes (a typo) is refused before the run, with the names it could have meant.
///
/// An app declares it as ``AppLogic/vocabulary``; an app that declares none has its event and command names taken
/// on trust. The runner's own events (``runnerEvents``) are always known.
public struct AppVocabulary: Sendable, Hashable {
    /// The names of the events the app emits.
    public var events: Set<String>
    /// The actions of the commands the app takes.
    public var commands: Set<String>
    /// The attributes each event carries, by event name: a scenario that asks an event declared here for another
    /// attribute (`place.arrived{plcae=…}`) is refused before the run. An event not listed here has its attributes
    /// taken on trust.
    public var attributes: [String: Set<String>]

    /// A vocabulary: the events, the commands, and the attributes of the events that declare them.
    public init(events: Set<String>, commands: Set<String> = [], attributes: [String: Set<String>] = [:]) {
        self.events = events
        self.commands = commands
        self.attributes = attributes
    }

    /// What ``AppRunner`` logs beside the app's events: the speaker's and the screen's playback, a storage's
    /// failures, and a refused command.
    public static let runnerEvents: Set<String> = [
        "speaker.started", "speaker.paused", "speaker.resumed", "speaker.finished", "speaker.stopped", "speaker.failed",
        "speaker.skipped", "screen.started", "screen.paused", "screen.resumed", "screen.finished", "screen.stopped",
        "screen.failed", "storage.failed", "storage.skipped", "command.refused",
    ]
}

/// What a run declares, for checking a scenario's names before it runs (``EventExpectation/checkNames(field:against:)``).
public struct RunDeclarations: Sendable {
    /// The input channels, each with the attributes its `input:CHANNEL` events can carry (`nil`: not known).
    public var channels: [(id: String, attributes: [String]?)]
    /// The app's vocabulary, if it declares one.
    public var vocabulary: AppVocabulary?
    /// By channel id, the attributes whose values are numbers, where that is known: a comparison on another is
    /// refused.
    public var numbers: [String: Set<String>]

    /// Declarations.
    public init(channels: [(id: String, attributes: [String]?)], vocabulary: AppVocabulary?, numbers: [String: Set<String>] = [:]) {
        self.channels = channels
        self.vocabulary = vocabulary
        self.numbers = numbers
    }

    /// Refuses each attribute of `matcher` that events carrying only `attributes` cannot satisfy: one they never carry,
    /// a distance (`position`) without `lat` and `lon`, a comparison on a value that is not a number (`numbers`,
    /// where known).
    private func checkAttributes(
        of matcher: EventMatcher, name: String, attributes: some Collection<String>, numbers: Set<String>?, withField: String
    ) throws(AppConfigError) {
        for (key, match) in (matcher.with ?? [:]).sorted(by: { $0.key < $1.key }) {
            if key == AttributeMatch.positionKey, case .within = match {
                let hasPosition = (attributes.contains("lat") && attributes.contains("lon"))
                    || (attributes.contains("latitude") && attributes.contains("longitude"))
                guard hasPosition else {
                    throw AppConfigError(field: "\(withField).\(key)", "\(name) events carry no lat and lon to measure a distance from")
                }
                continue
            }
            guard attributes.contains(key) else {
                throw AppConfigError(
                    field: "\(withField).\(key)", "\(name) events never carry '\(key)'" + NameSuggestions.hint(key, among: attributes, kind: "attributes"))
            }
            if match.needsNumber, let numbers, !numbers.contains(key) {
                throw AppConfigError(field: "\(withField).\(key)", "\(name) events' '\(key)' is not a number; a comparison needs one")
            }
        }
    }

    /// Refuses a command action the app does not take; `field` names it, such as `commands[3].action`.
    public func checkCommand(_ action: String, field: String) throws(AppConfigError) {
        guard let commands = vocabulary?.commands, !commands.contains(action) else { return }
        throw AppConfigError(field: field, "the app takes no command '\(action)'" + NameSuggestions.hint(action, among: commands, kind: "commands"))
    }

    /// Refuses a matcher whose event, channel, command or attribute the run can never produce.
    /// `nameField` and `withField` are where the matcher's name and attributes are, such as `expect[2].each.event`.
    func check(_ matcher: EventMatcher, nameField: String, withField: String) throws(AppConfigError) {
        let name = matcher.event
        let wildcard = name.hasSuffix(".*")
        func known(_ names: some Sequence<String>) -> Bool {
            wildcard ? names.contains { $0.hasPrefix(name.dropLast()) } : names.contains(name)
        }
        if name.hasPrefix("input:") {
            let channel = String(name.dropFirst(6))
            let ids = channels.map(\.id)
            guard known(ids.map { "input:" + $0 }) else {
                throw AppConfigError(field: nameField, "the run has no input channel '\(channel)'" + NameSuggestions.hint(channel, among: ids, kind: "channels"))
            }
            guard !wildcard, let attributes = channels.first(where: { $0.id == channel })?.attributes else { return }
            try checkAttributes(of: matcher, name: name, attributes: attributes, numbers: numbers[channel], withField: withField)
        } else if name.hasPrefix("command:") {
            guard let commands = vocabulary?.commands else { return }
            guard known(commands.map { "command:" + $0 }) else {
                let action = String(name.dropFirst(8))
                throw AppConfigError(field: nameField, "the app takes no command '\(action)'" + NameSuggestions.hint(action, among: commands, kind: "commands"))
            }
        } else if name.contains(":") {
            throw AppConfigError(field: nameField, "'\(name)': a name with a colon is input:CHANNEL or command:ACTION")
        } else if let events = vocabulary?.events {
            // The two sets are asked in turn; their union is made only for an error's hint.
            guard known(events) || known(AppVocabulary.runnerEvents) else {
                let all = events.union(AppVocabulary.runnerEvents)
                throw AppConfigError(field: nameField, "the app never emits '\(name)'" + NameSuggestions.hint(name, among: all, kind: "events"))
            }
            // Every event the name covers must declare its attributes for a misspelled one to be told apart.
            let covered = wildcard ? events.filter { $0.hasPrefix(name.dropLast()) } : [name]
            let declared = covered.map { vocabulary?.attributes[$0] }
            guard !covered.isEmpty, !declared.contains(where: { $0 == nil }) else { return }
            let attributes = declared.compactMap { $0 }.reduce(into: Set<String>()) { $0.formUnion($1) }
            try checkAttributes(of: matcher, name: name, attributes: attributes, numbers: nil, withField: withField)
        }
    }
}

extension EventExpectation {
    /// The expectation's matchers with their fields: `event` or `no` (whose attributes are the expectation's `with`),
    /// or a matcher's own field, such as `each` or `during.from`.
    var fieldedMatchers: [(field: String, matcher: EventMatcher)] {
        var matchers: [(String, EventMatcher)] = []
        if let event { matchers.append(("event", EventMatcher(event: event, with: with))) }
        if let no { matchers.append(("no", EventMatcher(event: no, with: with))) }
        for (field, matcher) in [("each", each), ("then", then), ("never", never), ("without", without),
                                 ("during.from", during?.from), ("during.to", during?.to)] {
            if let matcher { matchers.append((field, matcher)) }
        }
        return matchers
    }

    /// Refuses a name the run can never produce: an input channel it lacks, an attribute its events never carry, an
    /// event or a command its app never emits or takes. `field` names the expectation, such as `expect[2]`.
    public func checkNames(field: String, against run: RunDeclarations) throws(AppConfigError) {
        for (path, matcher) in fieldedMatchers {
            let ownName = path != "event" && path != "no"
            try run.check(
                matcher, nameField: ownName ? "\(field).\(path).event" : "\(field).\(path)",
                withField: ownName ? "\(field).\(path).with" : "\(field).with")
        }
    }
}
