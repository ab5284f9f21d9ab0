/// A three-axis vector in the device's frame, such as an angular rate or an acceleration.
public struct Vector3: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The x component.
    public var x: Double
    /// The y component.
    public var y: Double
    /// The z component.
    public var z: Double

    /// Creates a vector from its components.
    @inlinable
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The zero vector.
    @inlinable
    public static var zero: Vector3 { Vector3(x: 0, y: 0, z: 0) }

    /// The component at `index`: 0 for x, 1 for y, 2 for z.
    public subscript(index: Int) -> Double {
        switch index {
        case 0: x
        case 1: y
        default: z
        }
    }

    /// The Euclidean length.
    @inlinable
    public var magnitude: Double { (x * x + y * y + z * z).squareRoot() }

    /// The components as `(x, y, z)`.
    public var description: String { "(\(x), \(y), \(z))" }
}
