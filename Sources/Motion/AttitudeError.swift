public import HAL
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How far an attitude estimate is from the truth, split into heading and tilt.
///
/// The error rotation `truth ⊗ estimate⁻¹` is taken in the earth frame and split by a
/// swing-twist decomposition about the vertical: the twist is the heading error, the
/// swing the tilt error.
public struct AttitudeError: Sendable, Hashable {
    /// The whole error angle, degrees.
    public var total: Double
    /// The error about the vertical, degrees.
    public var heading: Double
    /// The error of the vertical itself, degrees.
    public var tilt: Double

    /// Compares an estimate with the truth, converting the estimate to the truth's frame.
    ///
    /// `headingOffset`, a rotation about the vertical in the truth's frame, is applied to the
    /// estimate first: it lets a 6-axis estimate, whose heading is relative to its start,
    /// be scored for drift alone (see ``headingTwist(estimate:truth:)``).
    public init(estimate: AttitudeSample, truth: AttitudeSample, headingOffset: Quaternion = .identity) {
        let estimate = headingOffset * estimate.expressed(in: truth.frame).quaternion
        let error = (truth.quaternion * estimate.conjugate).normalized
        let (twist, swing) = Self.split(error, about: truth.frame.up)
        total = error.angle * 180 / .pi
        heading = twist.angle * 180 / .pi
        tilt = swing.angle * 180 / .pi
    }

    /// The heading part of the error: the rotation about the vertical that best turns the
    /// estimate onto the truth.
    public static func headingTwist(estimate: AttitudeSample, truth: AttitudeSample) -> Quaternion {
        let error = (truth.quaternion * estimate.expressed(in: truth.frame).quaternion.conjugate).normalized
        return split(error, about: truth.frame.up).twist
    }

    /// Swing-twist decomposition: `rotation = swing ⊗ twist`, with the twist about `axis`.
    private static func split(_ rotation: Quaternion, about axis: Vector3) -> (twist: Quaternion, swing: Quaternion) {
        let along = Vector3(x: rotation.x, y: rotation.y, z: rotation.z).dot(axis)
        let twist = Quaternion(w: rotation.w, x: axis.x * along, y: axis.y * along, z: axis.z * along).normalized
        return (twist, rotation * twist.conjugate)
    }
}

/// RMS and maximum of attitude errors over a run.
public struct AttitudeErrorStatistics: Sendable, Hashable {
    /// How many errors were added.
    public private(set) var count = 0
    private var sumSquares = AttitudeError(total: 0, heading: 0, tilt: 0)
    /// The largest of each error.
    public private(set) var maximum = AttitudeError(total: 0, heading: 0, tilt: 0)

    /// Creates empty statistics.
    public init() {}

    /// Adds one error.
    public mutating func add(_ error: AttitudeError) {
        count += 1
        sumSquares.total += error.total * error.total
        sumSquares.heading += error.heading * error.heading
        sumSquares.tilt += error.tilt * error.tilt
        maximum.total = max(maximum.total, error.total)
        maximum.heading = max(maximum.heading, error.heading)
        maximum.tilt = max(maximum.tilt, error.tilt)
    }

    /// The root mean square of each error.
    public var rms: AttitudeError {
        guard count > 0 else { return AttitudeError(total: 0, heading: 0, tilt: 0) }
        let n = Double(count)
        return AttitudeError(
            total: (sumSquares.total / n).squareRoot(), heading: (sumSquares.heading / n).squareRoot(),
            tilt: (sumSquares.tilt / n).squareRoot())
    }
}

extension AttitudeError {
    /// An error from its parts.
    public init(total: Double, heading: Double, tilt: Double) {
        self.total = total
        self.heading = heading
        self.tilt = tilt
    }
}
