public import HAL

/// Feeds a merged stream of motion samples (as a replay or a recorder delivers them)
/// to an ``AttitudeFilter``: each gyroscope sample advances the filter with the latest
/// accelerometer and magnetometer readings.
public struct MotionFusion: Sendable {
    /// The filter.
    public private(set) var filter: AttitudeFilter
    /// Whether magnetometer samples are used (9 axes) or ignored (6 axes).
    public let usesMagnetometer: Bool
    private var lastGyroscope: Timestamp?
    private var accelerometer: Vector3?
    private var magnetometer: Vector3?

    /// Creates the fusion.
    public init(settings: AttitudeFilter.Settings = .init(), usesMagnetometer: Bool = true) {
        filter = AttitudeFilter(settings: settings)
        self.usesMagnetometer = usesMagnetometer
    }

    /// Takes one sample; returns the new attitude when the sample was a gyroscope reading
    /// that advanced the filter.
    public mutating func add(_ sample: MotionSample) -> AttitudeSample? {
        switch sample.quantity {
        case .acceleration:
            accelerometer = sample.value
            return nil
        case .magneticField:
            if usesMagnetometer { magnetometer = sample.value }
            return nil
        case .angularVelocity:
            guard let accelerometer else { return nil }
            let interval = lastGyroscope.map { $0.duration(to: sample.timestamp).seconds } ?? 0
            lastGyroscope = sample.timestamp
            guard interval >= 0 else { return nil }
            filter.update(gyroscope: sample.value, accelerometer: accelerometer, magnetometer: magnetometer, interval: interval)
            return filter.attitude(at: sample.timestamp)
        }
    }
}
