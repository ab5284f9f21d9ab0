/// The state change of a key or button.
public enum KeyState: String, Sendable, Hashable, Codable, CaseIterable {
    /// The key went down.
    case press
    /// The key went up.
    case release
    /// The key is held and auto-repeats.
    case `repeat`
}

/// One key or button event, such as a keyboard key, a gamepad button or a board's GPIO key.
public struct KeyEvent: Sendable, Hashable {
    /// When the event happened.
    public var timestamp: Timestamp
    /// The Linux input event code (`KEY_*` or `BTN_*` from `linux/input-event-codes.h`).
    public var code: Int
    /// What the key did.
    public var state: KeyState

    /// Creates an event.
    public init(timestamp: Timestamp, code: Int, state: KeyState) {
        self.timestamp = timestamp
        self.code = code
        self.state = state
    }
}
