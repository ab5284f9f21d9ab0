import HAL

/// A progress line on standard error for a long job (a conversion, a plot of a large trace): the share done,
/// rewritten in place at most four times a second, and ended with a newline by ``finish()``.
final class Progress {
    private let label: String
    private let started = ContinuousClock.now
    private var shown = ContinuousClock.now - .seconds(1)
    private var wrote = false

    init(label: String) {
        self.label = label
    }

    /// Shows `done` of `total` if a quarter of a second has passed since the last line.
    func update(done: Int, of total: Int, what: String = "records") {
        let now = ContinuousClock.now
        guard now - shown >= .milliseconds(250) || done == total else { return }
        shown = now
        let share = total > 0 ? Double(done) / Double(total) * 100 : 100
        printError("\r\(label) \(Int(share))% (\(done) of \(total) \(what), \(format3((now - started).seconds)) s)", terminator: "")
        wrote = true
    }

    /// Shows a step with no count, such as "reading TRACE".
    func step(_ text: String) {
        printError("\r\(label): \(text)\u{1B}[K", terminator: "")
        wrote = true
    }

    /// Ends the line.
    func finish() {
        if wrote { printError("") }
    }
}
