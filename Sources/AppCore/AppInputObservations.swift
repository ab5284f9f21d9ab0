public import HAL

/// What an app was fed, as events an expectation can name beside the app's own: a reading becomes
/// `input:CHANNEL` and a user command `command:ACTION`, so that "the sound starts within 0.5 s of the tap" can be
/// checked against the tap itself.
public enum AppInputObservations {
    /// The input as an event, or `nil` for ticks and a lost speaker. A reading's attributes are what identifies it:
    /// a pointer's `phase`, `pointer`, `x` and `y`; a key's `code` and `state`; a fix's `mode`; an expression's
    /// `dominant`; a playback event's `phase` and `clip` or `text`; a frame's `seq`. A command's are its arguments.
    public static func event(for input: AppInput) -> AppEvent? {
        guard let name = name(of: input) else { return nil }
        switch input {
        case .reading(let reading, _):
            return AppEvent(timestamp: reading.timestamp, name: name, attributes: attributes(of: reading))
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

    /// `events` and the `inputs`' events in one time order; at one time, inputs come first, as they cause events.
    public static func merged(_ events: [AppEvent], inputs: [AppEvent]) -> [AppEvent] {
        var merged: [AppEvent] = []
        merged.reserveCapacity(events.count + inputs.count)
        var next = 0
        for event in events {
            while next < inputs.count, inputs[next].timestamp <= event.timestamp {
                merged.append(inputs[next])
                next += 1
            }
            merged.append(event)
        }
        return merged + inputs[next...]
    }

    private static func attributes(of reading: Reading) -> [String: AppEventValue] {
        switch reading {
        case .pointer(let event):
            ["phase": .string(event.phase.rawValue), "pointer": .int(Int64(event.pointer)), "x": .double(event.x), "y": .double(event.y)]
        case .key(let event): ["code": .int(Int64(event.code)), "state": .string(event.state.rawValue)]
        case .location(let fix): ["mode": .string(fix.mode.rawValue)]
        case .expression(let reading): ["dominant": .string(reading.dominant?.rawValue ?? "none")]
        case .playback(let event):
            switch event.item {
            case .clip(let name): ["phase": .string(event.phase.rawValue), "clip": .string(name)]
            case .speech(let text, _): ["phase": .string(event.phase.rawValue), "text": .string(text)]
            }
        case .frame(let frame): ["seq": .int(Int64(frame.sequence))]
        case .motion, .attitude, .appEvent, .custom: [:]
        }
    }
}
