public import HAL

/// What an app was fed, as events an expectation can name beside the app's own: a reading becomes
/// `input:CHANNEL` and a user command `command:ACTION`, so that "the sound starts within 0.5 s of the tap" can be
/// checked against the tap itself.
public enum AppInputObservations {
    /// The input as an event at the device's time, or `nil` for ticks and a lost speaker. A reading's attributes are
    /// what its kind shows of it (`KindAttributes`): a pointer's `phase`, `pointer`, `x` and `y`; a key's `code`
    /// and `state`; a fix's `mode`, `latitude` and `longitude`; a motion sample's `x`, `y` and `z`; an attitude's
    /// `heading` and `elevation`; an expression's `dominant`; a playback event's `phase` and `clip` or `text`; a frame's
    /// `seq`; a registered kind's fields. A command's are its arguments.
    public static func event(for input: AppInput) -> AppEvent? {
        guard let name = name(of: input) else { return nil }
        switch input {
        case .reading(let reading, _):
            return AppEvent(timestamp: reading.timestamp, name: name, attributes: reading.attributes)
        case .command(let command):
            return AppEvent(timestamp: command.timestamp, name: name, attributes: command.arguments.mapValues { .string($0) })
        case .tick, .speakerFailed:
            return nil
        }
    }

    /// The name of the input's event (`input:CHANNEL`, `command:ACTION`), or `nil` for ticks and a lost speaker:
    /// enough to tell whether a matcher can be about it (``EventMatcher/matches(name:)``) before making the event.
    public static func name(of input: AppInput) -> String? {
        switch input {
        case .reading(_, let channel): "input:\(channel ?? "unnamed")"
        case .command(let command): "command:\(command.action)"
        case .tick, .speakerFailed: nil
        }
    }
}
