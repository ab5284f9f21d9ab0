public import HAL

/// The text form of an app's events that `hal run` prints and golden logs hold: one line per event,
/// `SECONDS NAME key=value …`, with seconds after the run's start to the millisecond, keys sorted, and
/// text values quoted when they hold spaces or quotes. The same events always give the same bytes.
public enum EventLog {
    /// One event's line, without a newline.
    public static func line(_ event: AppEvent, start: Timestamp) -> String {
        let milliseconds = (event.timestamp.nanoseconds - start.nanoseconds) / 1_000_000
        let sign = milliseconds < 0 ? "-" : ""
        let magnitude = milliseconds.magnitude
        let fraction = String(magnitude % 1000)
        let seconds = "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
        var line = String(repeating: " ", count: max(0, 9 - seconds.count)) + seconds + " " + event.name
        for key in event.attributes.keys.sorted() {
            line += " \(key)=\(quoted(event.attributes[key]!))"
        }
        return line
    }

    private static func quoted(_ value: AppEventValue) -> String {
        guard case .string(let text) = value else { return value.description }
        // Printable ASCII but for a space, a quote, a backslash and `=` goes as it is; looking at the bytes is enough.
        if !text.isEmpty, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "=") }) {
            return text
        }
        guard text.isEmpty || text.contains(where: { $0 == " " || $0 == "\"" || $0 == "\\" || $0 == "=" || $0.isNewline }) else { return text }
        var escaped = "\""
        for character in text {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped + "\""
    }
}
