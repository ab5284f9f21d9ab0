/// An app configuration or user input that breaks the app's rules, naming the field and the valid range.
public struct AppConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field, such as `places.rose-garden.radius` or `experiences[2].title`.
    public var field: String
    /// What is wrong and what would be valid.
    public var message: String

    /// Creates an error.
    public init(field: String, _ message: String) {
        self.field = field
        self.message = message
    }

    /// `field: message`.
    public var description: String { "\(field): \(message)" }
}
