import FoundationEssentials
public import HAL

/// How a program's output lines become events: regular expressions a scenario declares, each naming an event, whose
/// named groups become its attributes; and, when asked, lines that are JSON objects with an `event` key.
///
/// ```json
/// "events": [{"pattern": "^arrived at (?<place>[a-z-]+)$", "event": "place.arrived"}],
/// "jsonEvents": true
/// ```
///
/// A line is matched against the patterns in order and becomes at most one event: the first pattern that matches
/// anywhere in it. A JSON line `{"event": "place.arrived", "place": "clock-tower", "count": 2}` becomes the event
/// `place.arrived` with `place` and `count` as attributes (strings, numbers and booleans; other values are refused).
/// A captured group that reads as an integer, a number or `true`/`false` is that value, so `between` and counts
/// compare numbers as numbers.
public struct OutputPatterns: Sendable {
    /// One pattern.
    public struct Pattern: Sendable, Hashable, Codable {
        /// The regular expression (Swift `Regex` syntax, which is Perl's and ICU's: `(?<name>…)` names a group).
        public var pattern: String
        /// The event a matching line becomes.
        public var event: String
        /// Which stream it applies to: `stdout`, `stderr`, or both when absent.
        public var stream: OutputStreamName?

        /// A pattern.
        public init(pattern: String, event: String, stream: OutputStreamName? = nil) {
            self.pattern = pattern
            self.event = event
            self.stream = stream
        }
    }

    private struct Compiled: @unchecked Sendable {
        // Regex is not Sendable; each is only read, under the lock that serialises matching.
        let regex: Regex<AnyRegexOutput>
        let pattern: Pattern
    }

    private let compiled: Locked<[Compiled]>
    /// Whether JSON object lines with an `event` key are events.
    public let jsonEvents: Bool

    /// Compiles `patterns`; an error names the pattern's index (`events[N].pattern`) and what is wrong with it.
    public init(_ patterns: [Pattern], jsonEvents: Bool = false) throws(ProgramError) {
        var compiled: [Compiled] = []
        for (index, pattern) in patterns.enumerated() {
            do {
                compiled.append(Compiled(regex: try Regex(pattern.pattern), pattern: pattern))
            } catch {
                throw ProgramError("events[\(index)].pattern: '\(pattern.pattern)' is not a regular expression: \(error)")
            }
            if pattern.event.isEmpty { throw ProgramError("events[\(index)].event: give the event's name") }
        }
        self.compiled = Locked(compiled)
        self.jsonEvents = jsonEvents
    }

    /// The event `line` of `stream` becomes at `time`, or `nil`.
    public func event(for line: String, stream: OutputStreamName, at time: Timestamp) -> AppEvent? {
        if jsonEvents, line.first == "{", let event = Self.jsonEvent(line, at: time) { return event }
        return compiled.withLock { compiled in
            for entry in compiled where entry.pattern.stream == nil || entry.pattern.stream == stream {
                guard let match = try? entry.regex.firstMatch(in: line) else { continue }
                var attributes: [String: AppEventValue] = [:]
                for group in match.output {
                    if let name = group.name, let text = group.substring { attributes[name] = Self.value(String(text)) }
                }
                return AppEvent(timestamp: time, name: entry.pattern.event, attributes: attributes)
            }
            return nil
        }
    }

    /// A captured text as an attribute: an integer, a number or a boolean when it reads as one, else text.
    static func value(_ text: String) -> AppEventValue {
        if let integer = Int64(text) { return .int(integer) }
        if let number = Double(text), number.isFinite, text.first?.isNumber == true || text.first == "-" || text.first == "." { return .double(number) }
        if text == "true" || text == "false" { return .bool(text == "true") }
        return .string(text)
    }

    private static func jsonEvent(_ line: String, at time: Timestamp) -> AppEvent? {
        guard let object = try? JSONDecoder().decode([String: JSONScalar].self, from: Data(line.utf8)),
              case .string(let name)? = object["event"], !name.isEmpty
        else { return nil }
        var attributes: [String: AppEventValue] = [:]
        for (key, value) in object where key != "event" { attributes[key] = value.value }
        return AppEvent(timestamp: time, name: name, attributes: attributes)
    }

    /// A JSON string, number or boolean.
    private enum JSONScalar: Decodable {
        case string(String), int(Int64), double(Double), bool(Bool)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) { self = .bool(value) } else if let value = try? container.decode(Int64.self) {
                self = .int(value)
            } else if let value = try? container.decode(Double.self) { self = .double(value) } else { self = .string(try container.decode(String.self)) }
        }

        var value: AppEventValue {
            switch self {
            case .string(let text): .string(text)
            case .int(let value): .int(value)
            case .double(let value): .double(value)
            case .bool(let value): .bool(value)
            }
        }
    }
}

/// A program's output stream.
public enum OutputStreamName: String, Sendable, Hashable, Codable {
    /// Standard output.
    case stdout
    /// Standard error.
    case stderr
}
