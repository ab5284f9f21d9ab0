import Foundation
import HAL
import Motion
import Replay
import Synthesis
import TraceFormat
import TestSupport

/// Errors of a fusion run against a trace's `truth` channel.
struct FusionRun: Sendable {
    var statistics: AttitudeErrorStatistics
    var last: AttitudeSample?
    var filter: AttitudeFilter
    var attitudes: [AttitudeSample] = []
    /// Every scored error, with its time in seconds.
    var errors: [(time: Double, error: AttitudeError)] = []

    /// The worst error of one kind within a time window.
    func worst(_ window: ClosedRange<Double>, _ part: KeyPath<AttitudeError, Double>) -> Double {
        errors.filter { window.contains($0.time) }.map { $0.error[keyPath: part] }.max() ?? .infinity
    }
}

/// Runs fusion over a generated trace and scores it against ground truth from `skip` seconds on.
/// On 6 axes the heading is scored as drift from the first scored sample.
func fuse(
    _ trace: Trace, settings: AttitudeFilter.Settings = .init(), sixAxis: Bool = false, skip: Double = 15,
    alter: (MotionSample) -> MotionSample = { $0 }
) throws -> FusionRun {
    var fusion = MotionFusion(settings: settings, usesMagnetometer: !sixAxis)
    var truths: [Int64: AttitudeSample] = [:]
    var estimates: [AttitudeSample] = []
    try TraceReplay(trace: trace).forEach { record in
        switch record.reading {
        case .attitude(let truth): truths[truth.timestamp.nanoseconds] = truth
        case .motion(let sample): if let estimate = fusion.add(alter(sample)) { estimates.append(estimate) }
        default: break
        }
    }
    if let estimate = fusion.flush() { estimates.append(estimate) }
    var run = FusionRun(statistics: AttitudeErrorStatistics(headingAsDrift: sixAxis), filter: fusion.filter, attitudes: estimates)
    for estimate in estimates where estimate.timestamp.seconds >= skip {
        guard let truth = truths[estimate.timestamp.nanoseconds] else { continue }
        let error = run.statistics.add(estimate: estimate, truth: truth)
        run.errors.append((estimate.timestamp.seconds, error))
    }
    run.last = estimates.last
    return run
}

/// Loads a script from `traces/` and generates its trace.
func generated(_ name: String) throws -> Trace {
    try MotionScript.load(path: packageRoot + "/traces/" + name).generate()
}

/// The reference sequence's sensor errors (gyroscope bias and white noise on every sensor),
/// as a script's `noise` block with the given seed.
func referenceNoise(seed: UInt64) -> String {
    """
    {"seed": \(seed),
     "gyroscope": {"noiseDensity": 0.00017453292519943296, "bias": [0.0087, -0.0052, 0.0070]},
     "accelerometer": {"noiseDensity": 0.004903325}, "magnetometer": {"noiseDensity": 0.05}}
    """
}

/// A look-around with a magnetometer (Vancouver's field: 48 µT, 66° dip, 16° E declination),
/// ground truth and seeded noise, as a script would say it.
func lookAround(seed: UInt64, preset: String? = nil, heading: Double = 0) throws -> MotionScript {
    let noise = preset.map { #"{"seed": \#(seed), "preset": "\#($0)"}"# } ?? referenceNoise(seed: seed)
    let json = """
        {"title": "look-around \(seed)", "rate": 100, "heading": \(heading),
         "magneticField": {"strength": 48, "dip": 66, "declination": 16}, "groundTruth": true,
         "noise": \(noise),
         "steps": [
           {"hold": 5}, {"turn": {"yaw": 120, "degreesPerSecond": 40}}, {"turn": {"pitch": 25, "roll": -15, "seconds": 2}},
           {"hold": 2}, {"turn": {"yaw": -200, "pitch": -40, "degreesPerSecond": 50}}, {"turn": {"pitch": 15, "roll": 15, "seconds": 1.5}},
           {"sweep": {"seconds": 30, "yaw": 90, "pitch": 20, "roll": 8, "yawPeriod": 9, "pitchPeriod": 5, "rollPeriod": 4}}, {"hold": 3}
         ]}
        """
    let script = try JSONDecoder().decode(MotionScript.self, from: Data(json.utf8))
    try script.validate()
    return script
}
