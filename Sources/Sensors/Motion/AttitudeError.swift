public import HAL

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
        let error = Self.rotation(from: headingOffset * estimate.expressed(in: truth.frame).quaternion, to: truth)
        let (twist, swing) = Self.split(error, about: truth.frame.up)
        total = error.angle * 180 / .pi
        heading = twist.angle * 180 / .pi
        tilt = swing.angle * 180 / .pi
    }

    /// The heading part of the error: the rotation about the vertical that best turns the
    /// estimate onto the truth.
    public static func headingTwist(estimate: AttitudeSample, truth: AttitudeSample) -> Quaternion {
        split(rotation(from: estimate.expressed(in: truth.frame).quaternion, to: truth), about: truth.frame.up).twist
    }

    /// The error rotation `truth ⊗ estimate⁻¹`, with the estimate already in the truth's frame.
    private static func rotation(from estimate: Quaternion, to truth: AttitudeSample) -> Quaternion {
        (truth.quaternion * estimate.conjugate).normalized
    }

    /// Swing-twist decomposition: `rotation = swing ⊗ twist`, with the twist about `axis`.
    private static func split(_ rotation: Quaternion, about axis: Vector3) -> (twist: Quaternion, swing: Quaternion) {
        let along = Vector3(x: rotation.x, y: rotation.y, z: rotation.z).dot(axis)
        let twist = Quaternion(w: rotation.w, x: axis.x * along, y: axis.y * along, z: axis.z * along).normalized
        return (twist, rotation * twist.conjugate)
    }
}

/// RMS and maximum of attitude errors over a run.
///
/// With `headingAsDrift`, for a 6-axis estimate whose heading is relative to its start, the
/// first estimate scored with ``add(estimate:truth:)`` fixes a heading offset, and heading
/// is scored from then on as drift since that sample.
public struct AttitudeErrorStatistics: Sendable, Hashable {
    /// How many errors were added.
    public private(set) var count = 0
    private var sumSquares = AttitudeError(total: 0, heading: 0, tilt: 0)
    /// The largest of each error.
    public private(set) var maximum = AttitudeError(total: 0, heading: 0, tilt: 0)
    /// Whether heading is scored as drift since the first estimate scored.
    public let headingAsDrift: Bool
    /// The heading offset fixed by the first estimate scored, with `headingAsDrift`.
    public private(set) var headingOffset: Quaternion?

    /// Creates empty statistics; `headingAsDrift` scores heading as drift since the first estimate.
    public init(headingAsDrift: Bool = false) {
        self.headingAsDrift = headingAsDrift
    }

    /// The error of `estimate` against `truth`, with the heading offset fixed so far, without
    /// scoring it.
    public func error(estimate: AttitudeSample, truth: AttitudeSample) -> AttitudeError {
        AttitudeError(estimate: estimate, truth: truth, headingOffset: headingOffset ?? .identity)
    }

    /// Scores `estimate` against `truth`, fixing the heading offset on the first with
    /// `headingAsDrift`, and returns the error added.
    @discardableResult
    public mutating func add(estimate: AttitudeSample, truth: AttitudeSample) -> AttitudeError {
        if headingAsDrift && headingOffset == nil {
            headingOffset = AttitudeError.headingTwist(estimate: estimate, truth: truth)
        }
        let error = error(estimate: estimate, truth: truth)
        add(error)
        return error
    }

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
