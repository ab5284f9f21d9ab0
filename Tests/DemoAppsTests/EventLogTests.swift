import HAL
import Testing
@testable import AppCore

/// A golden log's bytes must not change with how a line is built: the byte-wise quoting of ASCII text gives what the
/// character-wise quoting gives, for every mix of spaces, quotes, backslashes, `=` and line breaks.
@Suite struct EventLogTests {
    @Test func asciiTextIsQuotedAsByItsCharacters() {
        let alphabet: [String] = ["a", "Z", "7", " ", "\"", "\\", "=", "\n", "\r", "\r\n", "\t", "\u{0B}", "\u{0C}", "?", "-", "\u{01}"]
        var random = SeededRandom(seed: 11)
        var quotedCount = 0
        for _ in 0..<5000 {
            let text = (0..<Int(random.next() % 7)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
            let quoted = EventLog.quoted(.string(text))
            #expect(quoted == EventLog.quotedByCharacters(text), "\(Array(text.utf8))")
            if quoted.hasPrefix("\"") { quotedCount += 1 }
        }
        // Both kinds of text came up.
        #expect(quotedCount > 1000 && quotedCount < 4900, "\(quotedCount)")
        // Text beyond ASCII goes by its characters: a quote with a combining accent is one character, not a quote.
        for text in ["caf\u{E9} au lait", "\"\u{301}", "line\u{2028}break", "tab\there"] {
            #expect(EventLog.quoted(.string(text)) == EventLog.quotedByCharacters(text))
        }
    }

    @Test func aLineHasItsSecondsRightAlignedAndItsKeysSorted() {
        let start = Timestamp(nanoseconds: 1_000_000_000)
        let event = AppEvent(timestamp: Timestamp(nanoseconds: 13_345_600_000), name: "place.arrived", attributes: ["place": .string("Rose Garden"), "distance": .int(4)])
        #expect(EventLog.line(event, start: start) == "   12.345 place.arrived distance=4 place=\"Rose Garden\"")
        let early = AppEvent(timestamp: Timestamp(nanoseconds: 995_000_000), name: "x", attributes: [:])
        #expect(EventLog.line(early, start: start) == "   -0.005 x")
    }
}
