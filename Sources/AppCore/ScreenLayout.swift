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

/// Turns pointer events into taps: a press and a release of the same pointer close together.
public struct TapDetector: Sendable {
    /// The longest press that counts as a tap, seconds.
    public var maximumDuration = 0.6
    /// The farthest the finger may move and still tap, in screen widths.
    public var maximumTravel = 0.03
    private var press: (pointer: Int, time: Double, x: Double, y: Double)?

    /// Creates a detector.
    public init() {}

    /// Takes an event; returns the tap's position when the event completes a tap.
    public mutating func handle(_ event: PointerEvent) -> (x: Double, y: Double)? {
        switch event.phase {
        case .press:
            press = (event.pointer, event.timestamp.seconds, event.x, event.y)
        case .move:
            if let start = press, start.pointer == event.pointer,
               Self.travel(start.x, start.y, event.x, event.y) > maximumTravel { press = nil }
        case .release:
            defer { press = nil }
            guard let start = press, start.pointer == event.pointer,
                  event.timestamp.seconds - start.time <= maximumDuration,
                  Self.travel(start.x, start.y, event.x, event.y) <= maximumTravel else { return nil }
            return (event.x, event.y)
        case .cancel:
            press = nil
        }
        return nil
    }

    private static func travel(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Double {
        ((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)).squareRoot()
    }
}
