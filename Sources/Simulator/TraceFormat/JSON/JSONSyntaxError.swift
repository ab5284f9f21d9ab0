/// A JSON text that does not follow RFC 8259, with the byte column where it went wrong.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based byte column in the line.
    public var column: Int
    /// What was wrong.
    public var message: String

    /// Creates an error.
    public init(column: Int, _ message: String) {
        self.column = column
        self.message = message
    }

    /// `column N: message`.
    public var description: String { "column \(column): \(message)" }
}
