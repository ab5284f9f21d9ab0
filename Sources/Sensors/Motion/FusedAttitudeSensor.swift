public import HAL

/// An ``HAL/AttitudeSensor`` made from motion sensors: their readings, merged in timestamp
/// order, go through ``MotionFusion``. Give it a magnetometer for 9-axis fusion.
///
/// The merge releases the earliest reading only once every sensor still running has one
/// waiting, so the fusion sees the readings in time order whichever device delivers first
/// (replayed devices run ahead of each other; live ones jitter). That costs up to the slowest
/// sensor's sample period of latency. A sensor that delivers nothing for ``stallTimeout``
/// seconds while others do is passed over until it delivers again, so a magnetometer that
/// stops does not stop the attitude. The stream ends when every sensor's has, and fails with
/// the first sensor error, such as a device that went away.
public struct FusedAttitudeSensor: AttitudeSensor {
    /// Describes the fused device; its URI names the sensors it fuses.
    public let info: DeviceInfo
    private let sensors: [any MotionSensor]
    private let settings: AttitudeFilter.Settings
    /// Seconds (on the sensor's clock) a sensor may stay silent while others deliver before the merge stops
    /// waiting for it.
    public var stallTimeout: Double = 1
    /// Time elapsed on the injected clock, for the stall check.
    private let elapsed: @Sendable () -> Duration

    /// Creates the sensor from a gyroscope, an accelerometer and, optionally, a magnetometer. `clock` times the stall
    /// check: the system's continuous clock by default, a test's own clock where it wants to control stalls.
    public init(
        gyroscope: any MotionSensor, accelerometer: any MotionSensor, magnetometer: (any MotionSensor)? = nil,
        settings: AttitudeFilter.Settings = .init(), clock: some Clock<Duration> = ContinuousClock()
    ) {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sensors = [gyroscope, accelerometer] + (magnetometer.map { [$0] } ?? [])
        self.settings = settings
        info = DeviceInfo(
            uri: "fusion:" + sensors.map(\.info.uri).joined(separator: "+"),
            name: magnetometer == nil ? "6-axis fusion" : "9-axis fusion", kind: .attitude, backend: "motion",
            rate: gyroscope.info.rate)
    }

    /// Fuses the sensors' readings into attitudes in ``AttitudeFilter/Settings/frame``.
    public func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<AttitudeSample, any Error> {
        let (output, continuation) = AsyncThrowingStream.makeStream(
            of: AttitudeSample.self, bufferingPolicy: buffering.asyncThrowingStreamPolicy(AttitudeSample.self))
        let (arrivals, input) = AsyncThrowingStream.makeStream(of: (sensor: Int, sample: MotionSample?).self)
        let sensors = sensors
        let settings = settings
        let stallTimeout = stallTimeout
        let elapsed = elapsed
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                for (index, sensor) in sensors.enumerated() {
                    group.addTask {
                        do {
                            for try await sample in sensor.readings(buffering: .unbounded) { input.yield((index, sample)) }
                            input.yield((index, nil))
                        } catch {
                            input.finish(throwing: error)
                        }
                    }
                }
                var fusion = MotionFusion(settings: settings, usesMagnetometer: sensors.count == 3)
                var merge = TimestampMerge(sources: sensors.count)
                var lastArrival = [Duration](repeating: elapsed(), count: sensors.count)
                do {
                    for try await arrival in arrivals {
                        let now = elapsed()
                        lastArrival[arrival.sensor] = now
                        merge.add(arrival.sample, from: arrival.sensor)
                        for source in sensors.indices {
                            merge.setStalled(source, (now - lastArrival[source]).seconds > stallTimeout)
                        }
                        while let sample = merge.next() {
                            if let attitude = fusion.add(sample) { continuation.yield(attitude) }
                        }
                        if merge.isFinished { break }
                    }
                    if let attitude = fusion.flush() { continuation.yield(attitude) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
                group.cancelAll()
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return output
    }
}

/// Merges several time-ordered streams into one, releasing a reading only when no stream
/// still running could deliver an earlier one.
struct TimestampMerge {
    private var queues: [[MotionSample]]
    private var heads: [Int]
    private var finished: [Bool]
    private var stalled: [Bool]

    init(sources: Int) {
        queues = Array(repeating: [], count: sources)
        heads = Array(repeating: 0, count: sources)
        finished = Array(repeating: false, count: sources)
        stalled = Array(repeating: false, count: sources)
    }

    /// Marks a source as stalled (passed over while it has nothing queued) or not.
    mutating func setStalled(_ source: Int, _ isStalled: Bool) {
        stalled[source] = isStalled
    }

    /// Every source has ended and everything has been released.
    var isFinished: Bool { finished.allSatisfy { $0 } && queues.indices.allSatisfy { heads[$0] == queues[$0].count } }

    /// Queues a reading, or marks the source ended when `sample` is `nil`.
    mutating func add(_ sample: MotionSample?, from source: Int) {
        if let sample { queues[source].append(sample) } else { finished[source] = true }
    }

    /// The earliest reading, if it can be released; ties go to the lower source index.
    mutating func next() -> MotionSample? {
        var earliest: Int?
        for source in queues.indices {
            guard heads[source] < queues[source].count else {
                if finished[source] || stalled[source] { continue }
                return nil
            }
            if earliest.map({ queues[source][heads[source]].timestamp < queues[$0][heads[$0]].timestamp }) ?? true {
                earliest = source
            }
        }
        guard let source = earliest else { return nil }
        let sample = queues[source][heads[source]]
        heads[source] += 1
        if heads[source] > 1024, heads[source] * 2 > queues[source].count {
            queues[source].removeFirst(heads[source])
            heads[source] = 0
        }
        return sample
    }
}
