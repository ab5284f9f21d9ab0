public import AppCore
public import HAL

/// A greenhouse's watering and frost monitor: it watches soil-moisture probes and thermometers, says which bed needs
/// water once it has been dry for a while, warns of frost, and notices a probe that stops reporting.
///
/// Like every app on the sensor HAL it is a state machine: time comes from its inputs, and its timers are deadlines
/// the runner fires in order, so a recorded day replays to the same events at any speed.
public struct GreenhouseMonitor: RunnableApp {
    /// `greenhouse`.
    public static let name = "greenhouse"

    /// The monitor's thresholds.
    public struct Settings: Sendable, Hashable, Codable {
        /// Soil is dry below this moisture, percent.
        public var dryBelow: Double
        /// Soil is watered again above this moisture, percent.
        public var wetAbove: Double
        /// Seconds a bed stays dry before the monitor asks for water.
        public var dryFor: Double
        /// Frost is feared below this temperature, °C.
        public var frostBelow: Double
        /// Seconds without a reading after which a probe is reported lost.
        public var probeSilence: Double

        /// Creates settings.
        public init(dryBelow: Double, wetAbove: Double, dryFor: Double, frostBelow: Double, probeSilence: Double) {
            self.dryBelow = dryBelow
            self.wetAbove = wetAbove
            self.dryFor = dryFor
            self.frostBelow = frostBelow
            self.probeSilence = probeSilence
        }
    }

    /// The thresholds.
    public let settings: Settings
    private var drySince: [Int: Timestamp] = [:]
    private var needsWater: Set<Int> = []
    private var lastSeen: [Int: Timestamp] = [:]
    private var lost: Set<Int> = []
    private var frost: Set<String> = []

    /// A monitor with `settings`.
    public init(settings: Settings) throws(AppConfigError) {
        guard settings.dryBelow < settings.wetAbove else { throw AppConfigError(field: "wetAbove", "must be above dryBelow") }
        guard settings.dryFor >= 0 else { throw AppConfigError(field: "dryFor", "must be 0 or more seconds") }
        guard settings.probeSilence > 0 else { throw AppConfigError(field: "probeSilence", "must be a positive number of seconds") }
        self.settings = settings
    }

    /// Loads the settings file.
    public static func load(config: some AppConfigFiles) throws -> GreenhouseMonitor {
        try GreenhouseMonitor(settings: config.decode(Settings.self))
    }

    /// The greenhouse's shipped day.
    public static var defaultScenario: String? { "traces/day.run.json" }

    public mutating func start(at time: Timestamp, output: inout AppOutput) {
        output.emit("greenhouse.started", at: time)
    }

    public mutating func handle(_ input: AppInput, output: inout AppOutput) {
        guard case .reading(let reading, let channel) = input else { return }
        if let sample = SoilMoistureSample(reading) {
            soil(sample, output: &output)
        } else if let sample = ScalarSample(reading), sample.kind == .temperature {
            // Two thermometers (inside, outside) are told apart by their channel.
            temperature(sample, channel: channel ?? "temperature", output: &output)
        }
    }

    private mutating func soil(_ sample: SoilMoistureSample, output: inout AppOutput) {
        let probe = sample.probe, time = sample.timestamp
        lastSeen[probe] = time
        if lost.remove(probe) != nil { output.emit("probe.back", at: time, ["probe": .int(Int64(probe))]) }
        if sample.moisture < settings.dryBelow {
            if drySince[probe] == nil { drySince[probe] = time }
        } else {
            drySince[probe] = nil
            if sample.moisture > settings.wetAbove, needsWater.remove(probe) != nil {
                output.emit("watering.done", at: time, ["probe": .int(Int64(probe)), "moisture": .rounded(sample.moisture)])
            }
        }
    }

    private mutating func temperature(_ sample: ScalarSample, channel: String, output: inout AppOutput) {
        if sample.value < settings.frostBelow, frost.insert(channel).inserted {
            output.emit("frost.warning", at: sample.timestamp, ["channel": .string(channel), "celsius": .rounded(sample.value)])
            output.request(.speak(Utterance(text: "Frost warning", voice: "en")))
        } else if sample.value > settings.frostBelow + 1, frost.remove(channel) != nil {
            output.emit("frost.over", at: sample.timestamp, ["channel": .string(channel), "celsius": .rounded(sample.value)])
        }
    }

    public var nextDeadline: Timestamp? {
        let dry = drySince.filter { !needsWater.contains($0.key) }.values.map { $0 + Self.seconds(settings.dryFor) }
        let silent = lastSeen.filter { !lost.contains($0.key) }.values.map { $0 + Self.seconds(settings.probeSilence) }
        return (dry + silent).min()
    }

    public mutating func advance(to time: Timestamp, output: inout AppOutput) {
        for probe in drySince.keys.sorted() where !needsWater.contains(probe) && drySince[probe]! + Self.seconds(settings.dryFor) <= time {
            needsWater.insert(probe)
            output.emit("watering.needed", at: drySince[probe]! + Self.seconds(settings.dryFor), ["probe": .int(Int64(probe))])
            output.request(.speak(Utterance(text: "Bed \(probe) needs water", voice: "en")))
        }
        for probe in lastSeen.keys.sorted() where !lost.contains(probe) && lastSeen[probe]! + Self.seconds(settings.probeSilence) <= time {
            lost.insert(probe)
            drySince[probe] = nil
            output.emit("probe.lost", at: lastSeen[probe]! + Self.seconds(settings.probeSilence), ["probe": .int(Int64(probe))])
        }
    }

    private static func seconds(_ value: Double) -> Duration { .nanoseconds(Int64((value * 1e9).rounded())) }
}
