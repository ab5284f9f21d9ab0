import LibC
public import HAL

/// Orientation fusion: gyroscope + accelerometer (+ magnetometer) → attitude.
///
/// A complementary filter of the Mahony/Madgwick family, after x-io's Fusion revision:
///
/// - **Start-up alignment:** the first accelerometer (and magnetometer) reading sets
///   the attitude directly; a high gain then ramps down to ``Settings/gain`` over
///   ``Settings/startupPeriod``.
/// - **Feedback:** the accelerometer corrects tilt (measured up × predicted up) and
///   the magnetometer corrects heading only (measured east × predicted east, with
///   east = magnetic field × up, so the field's dip does not matter).
/// - **Online gyroscope-bias estimation:** an integral term on the same feedback, and
///   a faster average while the device is still.
/// - **Acceleration rejection:** while the accelerometer disagrees with the predicted
///   gravity by more than ``Settings/accelerationRejection`` (shaking), its feedback
///   is ignored. Disagreement that lasts about ``Settings/recoveryPeriod`` makes it
///   trusted again until it agrees, so a wrong attitude cannot persist.
/// - **Magnetic-disturbance rejection:** the same for a magnetometer whose heading
///   disagrees by more than ``Settings/magneticRejection`` or whose field strength
///   departs from the learned strength by more than ``Settings/magneticStrengthTolerance``.
/// - **True north:** with ``Settings/declination`` set, heading is true heading.
///
/// Without a magnetometer (6 axes) the heading is relative to the start and drifts
/// with the residual gyroscope bias about the vertical; ``headingAccuracy`` grows to
/// say so. The earth frame is chosen in ``Settings/frame`` and stated on every output.
public struct AttitudeFilter: Sendable {
    /// Tuning and frame.
    public struct Settings: Sendable, Hashable {
        /// The earth frame of the output.
        public var frame: EarthFrame = .enu
        /// Proportional feedback gain, in rad/s per unit error.
        public var gain: Double = 0.5
        /// Integral gain of the gyroscope-bias estimate, in rad/s² per unit error.
        public var biasGain: Double = 0.02
        /// The gain at start-up, ramping down to ``gain``.
        public var startupGain: Double = 10
        /// Seconds over which the start-up gain ramps down.
        public var startupPeriod: Double = 3
        /// Degrees of accelerometer disagreement beyond which its feedback is ignored.
        public var accelerationRejection: Double = 10
        /// Degrees of magnetometer heading disagreement beyond which its feedback is ignored.
        public var magneticRejection: Double = 10
        /// The fraction by which the field strength may depart from the learned strength
        /// before the magnetometer is ignored.
        public var magneticStrengthTolerance: Double = 0.2
        /// Magnetic declination in degrees east of true north, so that heading is true heading.
        public var declination: Double = 0
        /// Seconds of continuous rejection after which a sensor is trusted again.
        public var recoveryPeriod: Double = 5
        /// Gyroscope rate (rad/s) above which readings are saturated and the filter realigns.
        public var gyroscopeRange: Double = 2000 * .pi / 180
        /// Rate (rad/s, after the bias estimate) below which the device may count as still.
        public var stillnessThreshold: Double = 3 * .pi / 180
        /// How much the rate may wander (rad/s, standard deviation over ``stillnessWindow``)
        /// while the device counts as still: about ten times a phone gyroscope's noise.
        public var stillnessDeviation: Double = 0.5 * .pi / 180
        /// Seconds over which the rate's wander is measured.
        public var stillnessWindow: Double = 0.25
        /// Seconds of stillness before the bias average starts.
        public var stillnessPeriod: Double = 1
        /// Time constant of the bias average while still, seconds.
        public var stillnessAveraging: Double = 2
        /// Heading drift (degrees per second) assumed while no magnetometer corrects it.
        public var unaidedHeadingDrift: Double = 0.05

        /// The default settings, in the ENU frame.
        public init() {}
    }

    /// What the filter is doing.
    public struct Status: Sendable, Hashable {
        /// Still aligning: the gain is above its settled value.
        public var initialising = true
        /// The accelerometer is being ignored (the device is accelerating or shaking).
        public var accelerationRejected = false
        /// The magnetometer is being ignored (a magnetic disturbance), or there is none.
        public var magneticRejected = false
        /// The device is still, and the bias is being averaged.
        public var stationary = false
    }

    /// The settings.
    public let settings: Settings
    /// The attitude: the rotation from the device frame to ``Settings/frame``.
    public private(set) var quaternion = Quaternion.identity
    /// The estimated gyroscope bias, rad/s, device frame.
    public private(set) var gyroscopeBias = Vector3.zero
    /// What the filter is doing.
    public private(set) var status = Status()
    /// Whether the filter has aligned to a first accelerometer reading.
    public private(set) var isAligned = false

    private var elapsed = 0.0
    private var accelerationGate = RejectionGate()
    private var magneticGate = RejectionGate()
    private var previousGyroscope: Vector3?
    private var headingFromMagnetometer = false
    private var stillFor = 0.0
    private var rateMean = Vector3.zero
    private var rateMeanSquare = 0.0
    private var fieldStrengthSquared: Double?
    private var weights = Weights(interval: -1, settings: Settings())
    private var headingVariance = 0.0
    private var unaidedHeadingError = 0.0
    private let up: Vector3
    /// Magnetic east in the earth frame: true east turned clockwise by the declination.
    private let east: Vector3

    private let sinSquaredAccelerationRejection: Double
    private let sinSquaredMagneticRejection: Double
    private let strengthBandSquared: (lower: Double, upper: Double)
    private let stillnessThresholdSquared: Double
    private let stillnessDeviationSquared: Double

    /// Creates a filter.
    public init(settings: Settings = Settings()) {
        self.settings = settings
        up = settings.frame.up
        east = Self.declinationTurn(settings).rotate(settings.frame.east)
        assert(up.x == 0 && up.y == 0 && abs(east.z) < 1e-15, "upAndEast(seenFrom:) takes up on z and east in the xy plane")
        func sinSquared(_ degrees: Double) -> Double {
            degrees >= 90 ? .infinity : sin(degrees * .pi / 180) * sin(degrees * .pi / 180)
        }
        sinSquaredAccelerationRejection = sinSquared(settings.accelerationRejection)
        sinSquaredMagneticRejection = sinSquared(settings.magneticRejection)
        let tolerance = settings.magneticStrengthTolerance
        strengthBandSquared = (max(0, 1 - tolerance) * max(0, 1 - tolerance), (1 + tolerance) * (1 + tolerance))
        stillnessThresholdSquared = settings.stillnessThreshold * settings.stillnessThreshold
        stillnessDeviationSquared = settings.stillnessDeviation * settings.stillnessDeviation
    }

    /// The turn from true to magnetic directions: clockwise about up by the declination.
    private static func declinationTurn(_ settings: Settings) -> Quaternion {
        Quaternion(axis: settings.frame.up, angle: -settings.declination * .pi / 180)
    }

    /// The heading accuracy in degrees (1σ).
    ///
    /// With a magnetometer it is the smoothed RMS disagreement between measured and
    /// predicted heading, at least 0.5°. Without one it is the drift accumulated
    /// since the last magnetometer correction (or since start, on 6 axes), at
    /// ``Settings/unaidedHeadingDrift``.
    public var headingAccuracy: Double {
        (headingVariance + 0.25).squareRoot() + unaidedHeadingError
    }

    /// The attitude as a HAL sample.
    public func attitude(at timestamp: Timestamp) -> AttitudeSample {
        AttitudeSample(timestamp: timestamp, quaternion: quaternion, frame: settings.frame, headingAccuracy: headingAccuracy)
    }

    /// Restarts alignment, keeping the settings.
    public mutating func reset() {
        self = AttitudeFilter(settings: settings)
    }

    /// Advances the filter by one sample.
    ///
    /// - Parameters:
    ///   - gyroscope: angular rate in rad/s, device frame.
    ///   - accelerometer: specific force in any unit (m/s² or g), device frame.
    ///   - magnetometer: magnetic field in any unit, device frame; `nil` on 6 axes.
    ///   - interval: seconds since the previous update.
    public mutating func update(gyroscope: Vector3, accelerometer: Vector3, magnetometer: Vector3?, interval: Double) {
        let measuredUp = accelerometer.normalized
        guard measuredUp != .zero else { return }
        let range = settings.gyroscopeRange
        if abs(gyroscope.x) > range || abs(gyroscope.y) > range || abs(gyroscope.z) > range {
            // Saturated: the integrated attitude can no longer be trusted.
            reset()
        }
        // Align on the first reading, and again when the first magnetometer reading comes
        // during start-up (it may lag the others), so that north is right from the start.
        if !isAligned || (magnetometer != nil && !headingFromMagnetometer && status.initialising) {
            align(up: measuredUp, magnetometer: magnetometer)
            previousGyroscope = gyroscope
            return
        }
        if interval != weights.interval { weights = Weights(interval: interval, settings: settings) }
        elapsed += interval

        // Start-up ramp.
        var gain = settings.gain
        if status.initialising {
            let progress = min(1, elapsed / settings.startupPeriod)
            gain = settings.startupGain + (settings.gain - settings.startupGain) * progress
            status.initialising = progress < 1
        }

        // Predict: integrate the rate over the interval. The mean of this and the previous
        // reading is the rate between them (the trapezoid rule); the latest reading alone
        // would put the estimate half a sample ahead. The prediction is renormalised with
        // the correction below: one step changes the norm by about (ω Δt)²/8.
        let intervalRate = previousGyroscope.map { ($0 + gyroscope) * 0.5 } ?? gyroscope
        previousGyroscope = gyroscope
        let predicted = Self.turned(quaternion, by: intervalRate - gyroscopeBias, over: interval)

        // Correct, comparing the predicted attitude with readings of the same instant.
        // Accelerometer: rotate the predicted up towards the measured up. Disagreement is
        // judged on sin² of the angle, as Fusion does, with no inverse trigonometry.
        // Earth's up and magnetic east as the predicted attitude sees them, in the device frame: one
        // rotation matrix for both.
        let (predictedUp, predictedEast) = upAndEast(seenFrom: predicted)
        var feedback = Vector3.zero
        let accelerationFeedback = measuredUp.cross(predictedUp)
        let accelerationDisagrees = accelerationFeedback.dot(accelerationFeedback) > sinSquaredAccelerationRejection
            || measuredUp.dot(predictedUp) < 0
        status.accelerationRejected = !accelerationGate.admits(
            disagreeing: !status.initialising && accelerationDisagrees,
            interval: interval, recoveryPeriod: settings.recoveryPeriod)
        if !status.accelerationRejected { feedback = accelerationFeedback }

        // Magnetometer, on heading only, through east = field × up.
        status.magneticRejected = true
        if let magnetometer {
            let strengthSquared = magnetometer.dot(magnetometer)
            let measuredEast = magnetometer.cross(measuredUp).normalized
            if measuredEast != .zero {
                let magneticFeedback = measuredEast.cross(predictedEast)
                let sinSquared = magneticFeedback.dot(magneticFeedback)
                let headingDisagrees = sinSquared > sinSquaredMagneticRejection || measuredEast.dot(predictedEast) < 0
                let strengthOff = fieldStrengthSquared.map {
                    strengthSquared > $0 * strengthBandSquared.upper || strengthSquared < $0 * strengthBandSquared.lower
                } ?? false
                let admitted = magneticGate.admits(
                    disagreeing: !status.initialising && (headingDisagrees || strengthOff),
                    interval: interval, recoveryPeriod: settings.recoveryPeriod)
                if admitted {
                    status.magneticRejected = false
                    feedback = feedback + magneticFeedback
                    fieldStrengthSquared = fieldStrengthSquared.map { $0 + (strengthSquared - $0) * weights.fieldStrength } ?? strengthSquared
                    // Admitted errors are under the rejection angle, where sin² θ ≈ θ².
                    headingVariance += (sinSquared * Self.squaredDegreesPerRadian - headingVariance) * weights.heading
                    unaidedHeadingError = 0
                }
            }
        }
        if status.magneticRejected && !status.initialising {
            unaidedHeadingError += settings.unaidedHeadingDrift * interval
        }
        quaternion = Self.unit(Self.turned(predicted, by: feedback, over: gain * interval))

        // Bias: the integral of the feedback, and an average of the rate while still. Still
        // means a small rate that also holds steady: the first moments of a turn are small but
        // not steady, and must not be averaged into the bias.
        rateMean = rateMean + (gyroscope - rateMean) * weights.window
        rateMeanSquare += (gyroscope.dot(gyroscope) - rateMeanSquare) * weights.window
        let unbiased = gyroscope - gyroscopeBias
        let fromMean = gyroscope - rateMean
        let still = unbiased.dot(unbiased) < stillnessThresholdSquared
            && rateMeanSquare - rateMean.dot(rateMean) < stillnessDeviationSquared
            && fromMean.dot(fromMean) < 9 * stillnessDeviationSquared && !status.accelerationRejected
        stillFor = still ? stillFor + interval : 0
        status.stationary = stillFor > settings.stillnessPeriod
        if status.stationary {
            gyroscopeBias = gyroscopeBias + (rateMean - gyroscopeBias) * weights.averaging
        } else if !status.initialising {
            gyroscopeBias = gyroscopeBias - feedback * (settings.biasGain * interval)
        }
    }

    /// `q` turned by `rate` (rad/s, device frame) for `interval` seconds, to first order and
    /// not renormalised: q + ½ q ⊗ (0, ω) Δt. The sums are paired, not chained: the attitude is on
    /// the update's critical path, and pairs take two additions' latency instead of three.
    @inline(__always)
    private static func turned(_ q: Quaternion, by rate: Vector3, over interval: Double) -> Quaternion {
        let half = rate * (0.5 * interval)
        return Quaternion(
            w: (q.w - q.x * half.x) - (q.y * half.y + q.z * half.z),
            x: (q.x + q.w * half.x) + (q.y * half.z - q.z * half.y),
            y: (q.y + q.w * half.y) + (q.z * half.x - q.x * half.z),
            z: (q.z + q.w * half.z) + (q.x * half.y - q.y * half.x))
    }

    /// Earth's up and magnetic east in the device frame of attitude `q`, that is `q.conjugate.rotate(_:)` of
    /// ``up`` and ``east``, through the rotation matrix of `q`. Every ``EarthFrame`` has up on its z axis and
    /// east in its xy plane (the declination turns east about up), so up picks the matrix's last row and east
    /// mixes its first two. `q` may be off unit length by the prediction's (ω Δt)²/8, which scales the
    /// results by as little.
    @inline(__always)
    private func upAndEast(seenFrom q: Quaternion) -> (up: Vector3, east: Vector3) {
        let xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z
        let xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z
        let wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z
        // The rows of the device-to-earth matrix R; R's transpose takes earth vectors to the device.
        let r0 = Vector3(x: 1 - 2 * (yy + zz), y: 2 * (xy - wz), z: 2 * (xz + wy))
        let r1 = Vector3(x: 2 * (xy + wz), y: 1 - 2 * (xx + zz), z: 2 * (yz - wx))
        let r2 = Vector3(x: 2 * (xz - wy), y: 2 * (yz + wx), z: 1 - 2 * (xx + yy))
        return (r2 * up.z, r0 * east.x + r1 * east.y)
    }

    /// `q` scaled to unit length with a non-negative scalar part, as `Quaternion.normalized`.
    ///
    /// The attitude is on every update's critical path, and a square root then a division are a third of it.
    /// A step leaves the norm near one: |q|² = 1 + e with |e| about (ω Δt)²/4, under 1e-4 below 4 rad/s at
    /// 100 Hz. There 1/√(1 + e) = 1 − e/2 + 3e²/8 − 5e³/16 to within 0.28 e⁴ (3e-17, under Double's
    /// rounding), evaluated in two steps of latency; a larger departure takes the exact path.
    @inline(__always)
    private static func unit(_ q: Quaternion) -> Quaternion {
        let squared = (q.w * q.w + q.x * q.x) + (q.y * q.y + q.z * q.z)
        let e = squared - 1
        var scale: Double
        if abs(e) < 1e-4 {
            let e2 = e * e
            scale = (1 - 0.5 * e) + e2 * (0.375 - 0.3125 * e)
        } else {
            guard squared > 0 else { return .identity }
            scale = 1 / squared.squareRoot()
        }
        if q.w < 0 { scale = -scale }
        return Quaternion(w: q.w * scale, x: q.x * scale, y: q.y * scale, z: q.z * scale)
    }

    private static let squaredDegreesPerRadian = (180 / Double.pi) * (180 / Double.pi)

    /// Smoothing weights for one sample interval, recomputed only when the interval changes.
    private struct Weights: Sendable {
        var interval: Double
        var window = 0.0
        var fieldStrength = 0.0
        var heading = 0.0
        var averaging = 0.0

        init(interval: Double, settings: Settings) {
            self.interval = interval
            window = min(1, interval / settings.stillnessWindow)
            fieldStrength = min(1, interval / 10)
            heading = min(1, interval / 2)
            averaging = min(1, interval / settings.stillnessAveraging)
        }
    }

    /// Sets the attitude from one reading: up from the accelerometer, and north from the
    /// magnetometer. Without one, the back camera's direction (−z, or the top edge +y when
    /// the device lies flat) counts as north: heading 0 is where the user started looking.
    private mutating func align(up measuredUp: Vector3, magnetometer: Vector3?) {
        var measuredEast = magnetometer.map { $0.cross(measuredUp).normalized } ?? .zero
        if measuredEast == .zero {
            let camera = Vector3(x: 0, y: 0, z: -1)
            let forward = abs(camera.dot(measuredUp)) < 0.9 ? camera : Vector3(x: 0, y: 1, z: 0)
            measuredEast = forward.cross(measuredUp).normalized
        }
        let measuredNorth = measuredUp.cross(measuredEast)
        let frame = settings.frame
        let magnetic = Quaternion(rotating: (measuredEast, measuredNorth, measuredUp), onto: (frame.east, frame.north, frame.up))
        quaternion = magnetometer == nil ? magnetic : (Self.declinationTurn(settings) * magnetic).normalized
        isAligned = true
        headingFromMagnetometer = magnetometer != nil
    }
}
