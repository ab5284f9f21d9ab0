public import HAL

/// A rectangle of the screen in normalised coordinates (0…1, origin top left), as pointer events give them.
public struct ScreenRegion: Sendable, Hashable, Codable {
    /// Left edge.
    public var x: Double
    /// Top edge.
    public var y: Double
    /// Width.
    public var width: Double
    /// Height.
    public var height: Double

    /// Creates a region.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Whether a point is inside.
    public func contains(x px: Double, y py: Double) -> Bool {
        px >= x && px < x + width && py >= y && py < y + height
    }

    /// Which cell of a grid laid over the region holds a point, numbered row by row, or `nil` outside.
    public func cell(x px: Double, y py: Double, columns: Int, rows: Int) -> Int? {
        guard contains(x: px, y: py), columns > 0, rows > 0 else { return nil }
        let column = min(columns - 1, Int((px - x) / width * Double(columns)))
        let row = min(rows - 1, Int((py - y) / height * Double(rows)))
        return row * columns + column
    }

    /// The centre of a grid cell, for scripting taps on it.
    public func centre(ofCell index: Int, columns: Int, rows: Int) -> (x: Double, y: Double) {
        let column = index % columns, row = index / columns
        return (x + (Double(column) + 0.5) * width / Double(columns), y + (Double(row) + 0.5) * height / Double(rows))
    }
}

/// What a finger did on the screen, from press to release.
public enum Gesture: Sendable, Hashable {
    /// A short press that did not move.
    case tap(x: Double, y: Double)
    /// A press held longer than a tap, without moving: the word board's "hold to favourite".
    case longPress(x: Double, y: Double)
    /// A press that moved: from where it started, by how much (screen widths and heights; negative `dx` is leftwards).
    case swipe(x: Double, y: Double, dx: Double, dy: Double)
}

/// Turns pointer events into taps, long presses and swipes: a press and a release of the same pointer.
///
/// A press that stays within ``maximumTravel`` of where it started is a tap when released within
/// ``maximumDuration``, and a long press when held longer; one that moves farther is a swipe.
public struct TapDetector: Sendable {
    /// The longest press that counts as a tap, seconds; a longer one is a long press.
    public var maximumDuration = 0.6
    /// The farthest the finger may move and still tap, in screen widths.
    public var maximumTravel = 0.03
    private var press: (pointer: Int, time: Double, x: Double, y: Double, moved: Bool)?

    /// Creates a detector.
    public init() {}

    /// Takes an event; returns the tap's position when the event completes a tap.
    public mutating func handle(_ event: PointerEvent) -> (x: Double, y: Double)? {
        guard case .tap(let x, let y) = gesture(event) else { return nil }
        return (x, y)
    }

    /// Takes an event; returns the gesture the event completes, if any.
    public mutating func gesture(_ event: PointerEvent) -> Gesture? {
        switch event.phase {
        case .press:
            press = (event.pointer, event.timestamp.seconds, event.x, event.y, false)
        case .move:
            if let start = press, start.pointer == event.pointer,
               Self.travel(start.x, start.y, event.x, event.y) > maximumTravel { press?.moved = true }
        case .release:
            defer { press = nil }
            guard let start = press, start.pointer == event.pointer else { return nil }
            if start.moved || Self.travel(start.x, start.y, event.x, event.y) > maximumTravel {
                return .swipe(x: start.x, y: start.y, dx: event.x - start.x, dy: event.y - start.y)
            }
            return event.timestamp.seconds - start.time <= maximumDuration ? .tap(x: event.x, y: event.y) : .longPress(x: start.x, y: start.y)
        case .cancel:
            press = nil
        }
        return nil
    }

    private static func travel(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Double {
        ((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)).squareRoot()
    }
}

/// Turns key events into presses a user made: a press of a key already down counts again only when it comes at least
/// ``minimumInterval`` after the one before. So a press delivered twice (a duplicated reading, contact bounce) acts
/// once, and a press whose release was lost still acts the next time the user presses.
public struct KeyPresses: Sendable {
    /// The shortest time between two presses of a key held down that both count, seconds.
    public var minimumInterval = 0.1
    private var down: [Int: Double] = [:]

    /// Creates a filter.
    public init() {}

    /// Takes an event; returns whether it is a press that counts.
    public mutating func isPress(_ event: KeyEvent) -> Bool {
        let time = event.timestamp.seconds
        switch event.state {
        case .press:
            defer { down[event.code] = time }
            guard let previous = down[event.code] else { return true }
            return time - previous >= minimumInterval
        case .release:
            down[event.code] = nil
            return false
        case .repeat:
            return false
        }
    }
}
