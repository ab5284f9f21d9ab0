import HAL

/// A progress line on standard error for a long job (a conversion, a plot of a large trace): the step and its share
/// done, rewritten in place at most four times a second, and ended with a newline by ``finish()``.
final class Progress {
    private let label: String
    private let started = ContinuousClock.now
    private var shown = ContinuousClock.now - .seconds(1)
    private var wrote = false

    init(label: String) {
        self.label = label
    }

    /// Shows `step` at `fraction` (0...1) done, if a quarter of a second has passed since the last line or it is done.
    func update(_ step: String, fraction: Double) {
        let now = ContinuousClock.now
        guard now - shown >= .milliseconds(250) || fraction >= 1 else { return }
        shown = now
        let percent = Int((max(0, min(1, fraction)) * 100).rounded(.down))
        printError("\r\(label): \(step) \(percent)% (\(format3((now - started).seconds)) s)\u{1B}[K", terminator: "")
        wrote = true
    }

    /// Shows a step with no share, such as "drawing".
    func step(_ text: String) {
        printError("\r\(label): \(text) (\(format3((ContinuousClock.now - started).seconds)) s)\u{1B}[K", terminator: "")
        wrote = true
    }

    /// Ends the line.
    func finish() {
        if wrote { printError("") }
    }
}
