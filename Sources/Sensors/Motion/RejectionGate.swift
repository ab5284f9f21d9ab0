/// Decides whether to use a sensor that may be disturbed, after x-io Fusion's recovery
/// trigger: a counter rises while the sensor disagrees with the prediction and falls
/// nine times as fast while it agrees. A disagreeing sensor is ignored until the counter
/// reaches the recovery period; it is then trusted until the counter drains, so a lasting
/// change (a miscalibrated magnetometer, a wrong attitude) is accepted rather than shut out.
struct RejectionGate: Sendable, Hashable {
    private var trigger = 0.0
    private var recovering = false

    /// Whether to use the sensor's feedback for this sample.
    @inline(__always)
    mutating func admits(disagreeing: Bool, interval: Double, recoveryPeriod: Double) -> Bool {
        trigger += disagreeing ? interval : -9 * interval
        trigger = min(max(trigger, 0), recoveryPeriod)
        if recovering {
            recovering = trigger > 0
        } else {
            recovering = trigger >= recoveryPeriod
        }
        return !disagreeing || recovering
    }
}
