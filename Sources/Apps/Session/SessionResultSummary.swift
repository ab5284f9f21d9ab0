import AppCore

extension SessionResult: CustomStringConvertible {
    /// A short summary, which a failed test shows instead of every event: the app, how many events and how many
    /// expectations held, each failed expectation's line, and the last few lines of the log.
    ///
    /// ```
    /// trainer: 94 events, 22 of 27 expectations hold
    ///   FAIL every answer.correct followed by speaker.started{text=Correct!} within 2.0 s: answer.correct at 35.1 s …
    ///   last events:
    ///      75.080 stats correct=6 incorrect=4 player=kai skipped=3
    /// ```
    public var description: String {
        let held = expectations.filter(\.passed).count
        var lines = ["\(app): \(events.count) event\(events.count == 1 ? "" : "s"), \(held) of \(expectations.count) expectations hold"]
        lines += expectations.filter { !$0.passed }.map { "  " + $0.line }
        let tail = logLines.suffix(Self.summaryTail)
        if !tail.isEmpty { lines += ["  last events:"] + tail.map { "    " + $0 } }
        return lines.joined(separator: "\n")
    }

    /// How many of the log's last lines ``description`` shows.
    static let summaryTail = 5
}
