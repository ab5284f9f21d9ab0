import LibC
/// A rotation as a unit quaternion `w + xi + yj + zk`.
///
/// As an attitude it rotates device-frame vectors into the earth frame:
/// `earth = q.rotate(device)`. Composition follows the Hamilton product: `(a * b).rotate(v)`
/// is `a.rotate(b.rotate(v))`.
public struct Quaternion: Sendable, Hashable, CustomStringConvertible {
    /// The scalar part.
    public var w: Double
    /// The i component.
    public var x: Double
    /// The j component.
    public var y: Double
    /// The k component.
    public var z: Double

    /// Creates a quaternion from its components.
    @inlinable
    public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    /// No rotation.
    @inlinable
    public static var identity: Quaternion { Quaternion(w: 1, x: 0, y: 0, z: 0) }

    /// The rotation by `angle` radians about `axis` (right-handed; the axis need not be unit length).
    public init(axis: Vector3, angle: Double) {
        let length = axis.magnitude
        guard length > 0 else {
            self = .identity
            return
        }
        let half = angle / 2
        let scale = sin(half) / length
        self.init(w: cos(half), x: axis.x * scale, y: axis.y * scale, z: axis.z * scale)
    }

    /// The rotation by the rotation vector `vector` (axis times angle in radians).
    public init(rotationVector vector: Vector3) {
        self.init(axis: vector, angle: vector.magnitude)
    }

    /// The Hamilton product: first `rhs`, then `lhs`.
    @inlinable
    public static func * (lhs: Quaternion, rhs: Quaternion) -> Quaternion {
        Quaternion(
            w: lhs.w * rhs.w - lhs.x * rhs.x - lhs.y * rhs.y - lhs.z * rhs.z,
            x: lhs.w * rhs.x + lhs.x * rhs.w + lhs.y * rhs.z - lhs.z * rhs.y,
            y: lhs.w * rhs.y - lhs.x * rhs.z + lhs.y * rhs.w + lhs.z * rhs.x,
            z: lhs.w * rhs.z + lhs.x * rhs.y - lhs.y * rhs.x + lhs.z * rhs.w)
    }

    /// The inverse rotation of a unit quaternion.
    @inlinable
    public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

    /// The norm.
    @inlinable
    public var magnitude: Double { (w * w + x * x + y * y + z * z).squareRoot() }

    /// The quaternion scaled to unit length, with a non-negative scalar part.
    @inlinable
    public var normalized: Quaternion {
        let length = magnitude
        guard length > 0 else { return .identity }
        let scale = (w < 0 ? -1 : 1) / length
        return Quaternion(w: w * scale, x: x * scale, y: y * scale, z: z * scale)
    }

    /// Rotates a vector.
    @inlinable
    public func rotate(_ v: Vector3) -> Vector3 {
        // v' = v + 2w(u × v) + 2u × (u × v), with u = (x, y, z).
        let tx = 2 * (y * v.z - z * v.y)
        let ty = 2 * (z * v.x - x * v.z)
        let tz = 2 * (x * v.y - y * v.x)
        return Vector3(
            x: v.x + w * tx + (y * tz - z * ty),
            y: v.y + w * ty + (z * tx - x * tz),
            z: v.z + w * tz + (x * ty - y * tx))
    }

    /// The rotation angle in radians, 0...π.
    public var angle: Double {
        let vector = (x * x + y * y + z * z).squareRoot()
        return 2 * atan2(vector, abs(w))
    }

    /// The components as `(w, x, y, z)`.
    public var description: String { "(\(w), \(x), \(y), \(z))" }
}

extension Vector3 {
    /// The sum.
    @inlinable
    public static func + (lhs: Vector3, rhs: Vector3) -> Vector3 {
        Vector3(x: lhs.x + rhs.x, y: lhs.y + rhs.y, z: lhs.z + rhs.z)
    }

    /// The difference.
    @inlinable
    public static func - (lhs: Vector3, rhs: Vector3) -> Vector3 {
        Vector3(x: lhs.x - rhs.x, y: lhs.y - rhs.y, z: lhs.z - rhs.z)
    }

    /// The vector scaled.
    @inlinable
    public static func * (lhs: Vector3, rhs: Double) -> Vector3 {
        Vector3(x: lhs.x * rhs, y: lhs.y * rhs, z: lhs.z * rhs)
    }

    /// The dot product.
    @inlinable
    public func dot(_ other: Vector3) -> Double { x * other.x + y * other.y + z * other.z }

    /// The cross product.
    @inlinable
    public func cross(_ other: Vector3) -> Vector3 {
        Vector3(x: y * other.z - z * other.y, y: z * other.x - x * other.z, z: x * other.y - y * other.x)
    }

    /// The vector scaled to unit length, or zero for the zero vector.
    @inlinable
    public var normalized: Vector3 {
        let length = magnitude
        return length > 0 ? self * (1 / length) : .zero
    }
}
