/// What a motion sensor measures, which fixes the unit of its samples.
public enum MotionQuantity: String, Sendable, Hashable, Codable, CaseIterable {
    /// Angular rate, in radians per second.
    case angularVelocity = "gyroscope"
    /// Proper acceleration (specific force: gravity included), in metres per second squared.
    case acceleration = "accelerometer"
    /// Magnetic flux density, in microtesla.
    case magneticField = "magnetometer"

    /// The device kind that measures this quantity.
    public var deviceKind: DeviceKind {
        switch self {
        case .angularVelocity: .gyroscope
        case .acceleration: .accelerometer
        case .magneticField: .magnetometer
        }
    }
}

/// One three-axis sample from a gyroscope, accelerometer or magnetometer, in SI units.
///
/// Axes are the device's own frame. Units follow ``MotionQuantity``:
/// rad/s, m/s² and µT.
public struct MotionSample: Sendable, Hashable {
    /// When the sample was taken.
    public var timestamp: Timestamp
    /// What the sample measures.
    public var quantity: MotionQuantity
    /// The measured vector.
    public var value: Vector3

    /// Creates a sample.
    @inlinable
    public init(timestamp: Timestamp, quantity: MotionQuantity, value: Vector3) {
        self.timestamp = timestamp
        self.quantity = quantity
        self.value = value
    }
}
