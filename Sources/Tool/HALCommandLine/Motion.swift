import ArgumentParser
import HAL
import Motion
import Replay
import TraceFormat

/// `hal motion …`: trajectories and orientation fusion.
struct MotionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "motion",
        abstract: "Simulate motion with ground truth, and fuse gyroscope, accelerometer and magnetometer into attitude.",
        subcommands: [Simulate.self, Fuse.self])
}

/// `hal motion fuse TRACE`: attitude from a trace's motion channels, and its error against ground truth.
struct Fuse: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fuse", 
        abstract: "Fuse a trace's gyroscope, accelerometer and magnetometer into attitude (ENU), printing or recording it; with a ground-truth attitude channel, report the error.")

    @Argument(help: "The trace file: .jsonl or .mcap.")
    var trace: String

    @Flag(name: .customLong("six-axis"), help: "Ignore the magnetometer: heading is relative to the start and drifts; errors then measure heading drift since the first scored sample.")
    var sixAxis = false

    @Option(help: "Record the attitude into this trace file (the input's channels plus 'fused').")
    var out: String?

    @Option(help: "Print every Nth attitude (0 prints none).")
    var every: Int = 100

    @Option(help: "Leave out the first S seconds from the error statistics.")
    var skip: Double = 0

    @Option(help: "Magnetic declination in degrees east, so that heading is true heading.")
    var declination: Double = 0

    @Option(help: "The attitude channel holding ground truth.")
    var truth: String = "truth"

    func run() throws {
        let trace = try Trace.load(path: trace)
        if let truncation = trace.truncation { printError("warning: \(truncation)") }
        let truthChannel = trace.header.channelIndex(of: truth).flatMap { trace.header.channels[$0].kind == .attitude ? $0 : nil }
        var header = trace.header
        header.channels.append(TraceChannel(
            id: "fused", kind: .attitude, source: "motion:fuse\(sixAxis ? "?six-axis" : "")", rate: nil,
            name: sixAxis ? "6-axis fusion" : "9-axis fusion", backend: "motion", frame: .enu))
        let writer = try out.map { try TraceFiles.makeWriter(path: $0, header: header, durability: .buffered) }
        let fusedChannel = header.channels.count - 1

        var settings = AttitudeFilter.Settings()
        settings.declination = declination
        var fusion = MotionFusion(settings: settings, usesMagnetometer: !sixAxis)
        var latestTruth: AttitudeSample?
        var pending: AttitudeSample?
        var statistics = AttitudeErrorStatistics(headingAsDrift: sixAxis)
        var output = StandardOutput()
        var fusedCount = 0
        let start = trace.start ?? .zero
        // Scores and prints an attitude once the truth for its instant has been seen (or cannot come).
        func settle(_ attitude: AttitudeSample) {
            var error: AttitudeError?
            if let truth = latestTruth, truth.timestamp == attitude.timestamp {
                error = start.duration(to: truth.timestamp).seconds >= skip
                    ? statistics.add(estimate: attitude, truth: truth) : statistics.error(estimate: attitude, truth: truth)
            }
            if every > 0 && fusedCount % every == 0 {
                var line = "\(attitude.timestamp) heading=\(format3(attitude.heading())) elevation=\(format3(attitude.elevation())) ±\(format3(attitude.headingAccuracy ?? 0))°"
                if let error { line += " error total=\(format3(error.total)) tilt=\(format3(error.tilt)) heading=\(format3(error.heading))" }
                output.line(line)
            }
            fusedCount += 1
        }
        func deliver(_ attitude: AttitudeSample) throws {
            if let waiting = pending { settle(waiting) }
            try writer?.write(TraceRecord(channel: fusedChannel, reading: .attitude(attitude)))
            pending = attitude
        }
        try TraceReplay(trace: trace).forEach { record in
            try writer?.write(record)
            if record.channel == truthChannel, case .attitude(let sample) = record.reading {
                latestTruth = sample
            }
            if let waiting = pending, record.timestamp > waiting.timestamp || latestTruth?.timestamp == waiting.timestamp {
                settle(waiting)
                pending = nil
            }
            guard case .motion(let sample) = record.reading, let attitude = fusion.add(sample) else { return }
            try deliver(attitude)
        }
        if let attitude = fusion.flush() { try deliver(attitude) }
        if let waiting = pending { settle(waiting) }
        try writer?.close()
        output.line("fused \(fusedCount) attitudes (\(sixAxis ? "6" : "9")-axis, ENU)")
        if statistics.count > 0 {
            let rms = statistics.rms
            let peak = statistics.maximum
            output.line("error over \(statistics.count) samples from t ≥ \(format3(skip)) s (degrees)\(sixAxis ? ", heading as drift since then" : ""):")
            output.line("  total    RMS \(format3(rms.total))  max \(format3(peak.total))")
            output.line("  tilt     RMS \(format3(rms.tilt))  max \(format3(peak.tilt))")
            output.line("  heading  RMS \(format3(rms.heading))  max \(format3(peak.heading))")
        }
        output.flush()
    }
}
