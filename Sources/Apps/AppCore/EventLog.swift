public import HAL

/// The text form of an app's events that `hal run` prints and golden logs hold: one line per event,
/// `SECONDS NAME key=value …`, with seconds after the run's start to the millisecond, keys sorted, and
/// text values quoted when they hold spaces or quotes. The same events always give the same bytes.
public enum EventLog {
    /// One event's line, without a newline.
    public static func line(_ event: AppEvent, start: Timestamp) -> String {
        let milliseconds = (event.timestamp.nanoseconds - start.nanoseconds) / 1_000_000
        // The seconds, right-aligned in nine columns: `   12.345`.
        var seconds: [UInt8] = []
        seconds.reserveCapacity(24)
        if milliseconds < 0 { seconds.append(UInt8(ascii: "-")) }
        let magnitude = milliseconds.magnitude
        appendDigits(of: magnitude / 1000, to: &seconds)
        seconds.append(UInt8(ascii: "."))
        let fraction = magnitude % 1000
        seconds += [UInt8(ascii: "0") + UInt8(fraction / 100), UInt8(ascii: "0") + UInt8(fraction / 10 % 10), UInt8(ascii: "0") + UInt8(fraction % 10)]
        var line = String(repeating: " ", count: max(0, 9 - seconds.count))
        line.reserveCapacity(64)
        line += String(decoding: seconds, as: UTF8.self)
        line += " "
        line += event.name
        for key in event.attributes.keys.sorted() {
            line += " "
            line += key
            line += "="
            line += quoted(event.attributes[key]!)
        }
        return line
    }

    /// Appends the decimal digits of `value`.
    private static func appendDigits(of value: UInt64, to bytes: inout [UInt8]) {
        guard value >= 10 else {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        appendDigits(of: value / 10, to: &bytes)
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// A value as a line shows it: text in quotes (with `"`, `\\` and a newline escaped) when it is empty or holds a
    /// space, a quote, a backslash, `=` or a line break.
    static func quoted(_ value: AppEventValue) -> String {
        guard case .string(let text) = value else { return value.description }
        // ASCII text is looked at byte by byte, in one pass: each byte is a character, but for a carriage return and
        // a line feed together, which are one (a line break, and not the newline that is escaped).
        var special = false
        for byte in text.utf8 {
            if byte >= 0x80 { return quotedByCharacters(text) }
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "=") || (0x0A...0x0D).contains(byte) {
                special = true
            }
        }
        guard text.isEmpty || special else { return text }
        var escaped: [UInt8] = [UInt8(ascii: "\"")]
        escaped.reserveCapacity(text.utf8.count + 8)
        var previous: UInt8 = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): escaped += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): escaped += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n") where previous != UInt8(ascii: "\r"): escaped += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            default: escaped.append(byte)
            }
            previous = byte
        }
        escaped.append(UInt8(ascii: "\""))
        return String(decoding: escaped, as: UTF8.self)
    }

    /// ``quoted(_:)`` for any text, by its characters.
    static func quotedByCharacters(_ text: String) -> String {
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
