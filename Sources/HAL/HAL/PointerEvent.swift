/// The phase of one contact of a touchscreen, touchpad or mouse button.
public enum PointerPhase: String, Sendable, Hashable, Codable, CaseIterable {
    /// The contact starts (finger down, button pressed).
    case press
    /// The contact moves while down (a drag).
    case move
    /// The contact ends (finger lifted, button released).
    case release
    /// The system ended the contact without a release (for example a palm rejection or a lost device).
    case cancel
}

/// One pointer or touch event, for swipe navigation and hotspot taps.
///
/// Positions are normalised to the input surface: `x` runs from 0 (left) to 1 (right)
/// and `y` from 0 (top) to 1 (bottom), whatever the device's resolution. Taps and
/// swipes are gestures made of these events.
public struct PointerEvent: Sendable, Hashable {
    /// When the event happened.
    public var timestamp: Timestamp
    /// Which contact this is, stable from press to release (a multitouch slot, or 0 for a mouse).
    public var pointer: Int
    /// What the contact did.
    public var phase: PointerPhase
    /// Horizontal position, 0 at the left edge and 1 at the right.
    public var x: Double
    /// Vertical position, 0 at the top edge and 1 at the bottom.
    public var y: Double

    /// Creates an event.
    public init(timestamp: Timestamp, pointer: Int = 0, phase: PointerPhase, x: Double, y: Double) {
        self.timestamp = timestamp
        self.pointer = pointer
        self.phase = phase
        self.x = x
        self.y = y
    }
}
