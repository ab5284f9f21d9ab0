/// A value attached to an ``AppEvent``.
public enum AppEventValue: Sendable, Hashable, CustomStringConvertible {
    /// Text.
    case string(String)
    /// A whole number.
    case int(Int64)
    /// A finite number.
    case double(Double)
    /// A flag.
    case bool(Bool)

    /// The value as it would be shown.
    public var description: String {
        switch self {
        case .string(let value): value
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): String(value)
        }
    }
}

/// Something an app did that a screen would show or a test would check, such as
/// `panorama.entered` or `question.answered`: an output record in a trace.
public struct AppEvent: Sendable, Hashable {
    /// When it happened, on the app's injected clock.
    public var timestamp: Timestamp
    /// A dotted name, such as `hotspot.opened`.
    public var name: String
    /// Named details. Traces write them sorted by key.
    public var attributes: [String: AppEventValue]

    /// Creates an event.
    public init(timestamp: Timestamp, name: String, attributes: [String: AppEventValue] = [:]) {
        self.timestamp = timestamp
        self.name = name
        self.attributes = attributes
    }
}
