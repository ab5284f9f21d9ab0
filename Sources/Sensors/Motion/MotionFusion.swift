public import HAL

/// Feeds a merged stream of motion samples (as a replay or a recorder delivers them)
/// to an ``AttitudeFilter``.
///
/// Each gyroscope reading advances the filter together with the accelerometer and
/// magnetometer readings of the same instant, whichever order they arrive in: the
/// gyroscope reading waits until the others have caught up with it, or until the next
/// gyroscope reading arrives, and is then used with the latest of each.
///
/// After a gap longer than ``maximumInterval`` (lost samples, a sensor that went away and came
/// back) the gyroscope is not integrated over the gap, whose motion is unknown; the accelerometer
/// then levels the attitude again.
public struct MotionFusion: Sendable {
    /// The longest interval, seconds, over which a gyroscope reading is integrated.
    public static let maximumInterval = 0.5
    /// The filter.
    public private(set) var filter: AttitudeFilter
    /// Whether magnetometer samples are used (9 axes) or ignored (6 axes).
    public let usesMagnetometer: Bool
    private var pending: MotionSample?
    private var lastUpdate: Timestamp?
    private var accelerometer: MotionSample?
    private var magnetometer: MotionSample?

    /// Creates the fusion.
    public init(settings: AttitudeFilter.Settings = .init(), usesMagnetometer: Bool = true) {
        filter = AttitudeFilter(settings: settings)
        self.usesMagnetometer = usesMagnetometer
    }

    /// Takes one sample; returns the new attitude when the filter advanced.
    public mutating func add(_ sample: MotionSample) -> AttitudeSample? {
        var earlier: AttitudeSample?
        switch sample.quantity {
        case .acceleration:
            accelerometer = sample
        case .magneticField:
            guard usesMagnetometer else { return nil }
            magnetometer = sample
        case .angularVelocity:
            // A new reading: the one waiting goes with what has arrived.
            earlier = flush()
            pending = sample
        }
        guard let waiting = pending, isComplete(for: waiting.timestamp) else { return earlier }
        return flush() ?? earlier
    }

    /// Advances the filter with the waiting gyroscope reading, if any.
    public mutating func flush() -> AttitudeSample? {
        guard let gyroscope = pending, let accelerometer else { return nil }
        pending = nil
        let interval = lastUpdate.map { $0.duration(to: gyroscope.timestamp).seconds } ?? 0
        guard interval >= 0 else { return nil }
        lastUpdate = gyroscope.timestamp
        filter.update(
            gyroscope: gyroscope.value, accelerometer: accelerometer.value, magnetometer: magnetometer?.value,
            interval: interval > Self.maximumInterval ? 0 : interval)
        return filter.attitude(at: gyroscope.timestamp)
    }

    private func isComplete(for time: Timestamp) -> Bool {
        guard let accelerometer, accelerometer.timestamp >= time else { return false }
        guard usesMagnetometer, let magnetometer else { return true }
        return magnetometer.timestamp >= time
    }
}
