public import HAL

/// The errors of one three-axis inertial or magnetic sensor, in the style of Gazebo's
/// and Kalibr's IMU models. All values are in the sensor's SI unit (rad/s, m/s², µT).
///
/// A true reading `v` becomes `quantise(saturate(M·v + b + n))`, where
/// - `M = (I + diag(scale)) · (I + [misalignment]ₓ)` applies scale-factor error and
///   small-angle axis misalignment,
/// - `b` is the bias: ``bias`` plus a draw of ``biasSigma`` at the start, then a random
///   walk of density ``biasRandomWalk``,
/// - `n` is white noise of density ``noiseDensity``, so each sample's σ is
///   `noiseDensity · √rate`.
public struct IMUNoiseModel: Sendable, Hashable, Codable {
    /// White noise density, unit/√Hz.
    public var noiseDensity: Double = 0
    /// A fixed bias, per axis.
    public var bias: [Double]?
    /// σ of a random turn-on bias, drawn once per run.
    public var biasSigma: Double = 0
    /// Bias random walk density, unit/s/√Hz.
    public var biasRandomWalk: Double = 0
    /// σ of the per-axis scale-factor error (0.01 is 1 %), drawn once per run.
    public var scaleSigma: Double = 0
    /// σ of the axis misalignment in radians, drawn once per run.
    public var misalignmentSigma: Double = 0
    /// The smallest step of the output (one LSB), or 0 for none.
    public var resolution: Double = 0
    /// The largest magnitude per axis before the output saturates, or 0 for none.
    public var range: Double = 0

    /// A model with no errors.
    public init() {}

    /// Creates a model.
    public init(
        noiseDensity: Double = 0, bias: [Double]? = nil, biasSigma: Double = 0, biasRandomWalk: Double = 0,
        scaleSigma: Double = 0, misalignmentSigma: Double = 0, resolution: Double = 0, range: Double = 0
    ) {
        self.noiseDensity = noiseDensity
        self.bias = bias
        self.biasSigma = biasSigma
        self.biasRandomWalk = biasRandomWalk
        self.scaleSigma = scaleSigma
        self.misalignmentSigma = misalignmentSigma
        self.resolution = resolution
        self.range = range
    }

    private enum CodingKeys: String, CodingKey {
        case noiseDensity, bias, biasSigma, biasRandomWalk, scaleSigma, misalignmentSigma, resolution, range
    }

    /// Decodes a model; absent fields mean no error of that kind.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        noiseDensity = try container.decodeIfPresent(Double.self, forKey: .noiseDensity) ?? 0
        bias = try container.decodeIfPresent([Double].self, forKey: .bias)
        biasSigma = try container.decodeIfPresent(Double.self, forKey: .biasSigma) ?? 0
        biasRandomWalk = try container.decodeIfPresent(Double.self, forKey: .biasRandomWalk) ?? 0
        scaleSigma = try container.decodeIfPresent(Double.self, forKey: .scaleSigma) ?? 0
        misalignmentSigma = try container.decodeIfPresent(Double.self, forKey: .misalignmentSigma) ?? 0
        resolution = try container.decodeIfPresent(Double.self, forKey: .resolution) ?? 0
        range = try container.decodeIfPresent(Double.self, forKey: .range) ?? 0
        if let bias, bias.count != 3 {
            throw DecodingError.dataCorruptedError(forKey: .bias, in: container, debugDescription: "a bias is [x, y, z]")
        }
        for (key, value) in [(CodingKeys.noiseDensity, noiseDensity), (.biasSigma, biasSigma), (.biasRandomWalk, biasRandomWalk),
                             (.scaleSigma, scaleSigma), (.misalignmentSigma, misalignmentSigma), (.resolution, resolution), (.range, range)]
        where !(value >= 0 && value.isFinite) {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "must be a finite number, 0 or more")
        }
    }
}

/// Error models for the three motion sensors of one device.
public struct IMUNoisePreset: Sendable, Hashable {
    /// The gyroscope, rad/s.
    public var gyroscope: IMUNoiseModel
    /// The accelerometer, m/s².
    public var accelerometer: IMUNoiseModel
    /// The magnetometer, µT.
    public var magnetometer: IMUNoiseModel

    private static let degree = Double.pi / 180
    private static let g = 9.80665

    /// A phone-grade IMU: figures typical of a current phone's MEMS IMU (BMI270 class) and
    /// magnetometer (AK09918 class) datasheets. Gyroscope ±2000 °/s, 16 bits; accelerometer ±8 g,
    /// 16 bits. The magnetometer's bias is what remains after the phone's own hard-iron calibration.
    public static let phone = IMUNoisePreset(
        gyroscope: IMUNoiseModel(
            noiseDensity: 0.007 * degree, biasSigma: 0.5 * degree, biasRandomWalk: 0.0005 * degree,
            scaleSigma: 0.004, misalignmentSigma: 0.1 * degree, resolution: 4000 * degree / 65536, range: 2000 * degree),
        accelerometer: IMUNoiseModel(
            noiseDensity: 160e-6 * g, biasSigma: 0.02 * g, biasRandomWalk: 40e-6 * g,
            scaleSigma: 0.005, misalignmentSigma: 0.1 * degree, resolution: 16 * g / 65536, range: 8 * g),
        magnetometer: IMUNoiseModel(
            noiseDensity: 0.05, biasSigma: 0.5, scaleSigma: 0.01, misalignmentSigma: 0.5 * degree,
            resolution: 0.15, range: 4900))

    /// A hobby-grade IMU: MPU-6050-class gyroscope (±250 °/s) and accelerometer (±2 g),
    /// and an HMC5883L-class magnetometer, with their looser bias and scale tolerances. The
    /// magnetometer's bias is the residual after a hard-iron calibration; uncalibrated ones are
    /// several times worse and make any heading unusable.
    public static let hobby = IMUNoisePreset(
        gyroscope: IMUNoiseModel(
            noiseDensity: 0.005 * degree, biasSigma: 2 * degree, biasRandomWalk: 0.002 * degree,
            scaleSigma: 0.03, misalignmentSigma: 1 * degree, resolution: 500 * degree / 65536, range: 250 * degree),
        accelerometer: IMUNoiseModel(
            noiseDensity: 400e-6 * g, biasSigma: 0.05 * g, biasRandomWalk: 100e-6 * g,
            scaleSigma: 0.03, misalignmentSigma: 1 * degree, resolution: 4 * g / 65536, range: 2 * g),
        magnetometer: IMUNoiseModel(
            noiseDensity: 0.2, biasSigma: 1.5, scaleSigma: 0.03, misalignmentSigma: 1 * degree,
            resolution: 0.092, range: 810))

    /// The presets by name: `phone`, `hobby`.
    public static let named: [String: IMUNoisePreset] = ["phone": .phone, "hobby": .hobby]
}

/// Applies an ``IMUNoiseModel`` to a stream of true readings, with its own seeded randomness.
public struct IMUNoiseProcess: Sendable {
    private var random: SeededRandom
    private let model: IMUNoiseModel
    private let whiteSigma: Double
    private let walkSigma: Double
    private var bias: Vector3
    private let transform: (Vector3, Vector3, Vector3)

    /// Starts a process for readings at `rate` hertz, drawing the turn-on errors now.
    public init(model: IMUNoiseModel, rate: Double, seed: UInt64) {
        var random = SeededRandom(seed: seed)
        self.model = model
        whiteSigma = model.noiseDensity * rate.squareRoot()
        walkSigma = model.biasRandomWalk / rate.squareRoot()
        let (bx, by, bz) = random.gaussianVector()
        let fixed = model.bias ?? [0, 0, 0]
        bias = Vector3(x: fixed[0] + bx * model.biasSigma, y: fixed[1] + by * model.biasSigma, z: fixed[2] + bz * model.biasSigma)
        let (sx, sy, sz) = random.gaussianVector()
        let (ax, ay, az) = random.gaussianVector()
        let scale = Vector3(x: 1 + sx * model.scaleSigma, y: 1 + sy * model.scaleSigma, z: 1 + sz * model.scaleSigma)
        let angle = Vector3(x: ax, y: ay, z: az) * model.misalignmentSigma
        // Rows of (I + diag(scale − 1)) · (I + [angle]ₓ).
        transform = (
            Vector3(x: 1, y: -angle.z, z: angle.y) * scale.x,
            Vector3(x: angle.z, y: 1, z: -angle.x) * scale.y,
            Vector3(x: -angle.y, y: angle.x, z: 1) * scale.z)
        self.random = random
    }

    /// The bias now.
    public var currentBias: Vector3 { bias }

    /// The measured value for one true reading; advances the bias walk by one sample.
    public mutating func measure(_ truth: Vector3) -> Vector3 {
        let (nx, ny, nz) = random.gaussianVector()
        var value = Vector3(x: transform.0.dot(truth), y: transform.1.dot(truth), z: transform.2.dot(truth))
            + bias + Vector3(x: nx, y: ny, z: nz) * whiteSigma
        if walkSigma > 0 {
            let (wx, wy, wz) = random.gaussianVector()
            bias = bias + Vector3(x: wx, y: wy, z: wz) * walkSigma
        }
        if model.range > 0 {
            value = Vector3(
                x: min(model.range, max(-model.range, value.x)), y: min(model.range, max(-model.range, value.y)),
                z: min(model.range, max(-model.range, value.z)))
        }
        if model.resolution > 0 {
            let step = model.resolution
            value = Vector3(x: (value.x / step).rounded() * step, y: (value.y / step).rounded() * step, z: (value.z / step).rounded() * step)
        }
        return value
    }
}
