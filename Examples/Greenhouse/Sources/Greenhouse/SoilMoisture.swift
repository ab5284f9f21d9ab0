public import HAL

extension DeviceKind {
    /// Soil moisture: volumetric water content in percent, from one of the greenhouse's probes.
    public static let soilMoisture = DeviceKind("soil-moisture")
}

/// One reading of a soil-moisture probe: a kind the sensor HAL does not know, added from outside it.
public struct SoilMoistureSample: KindValue {
    /// When the probe was read.
    public var timestamp: Timestamp
    /// Which probe (bed number).
    public var probe: Int
    /// Volumetric water content, percent.
    public var moisture: Double

    /// The kind.
    public var kind: DeviceKind { .soilMoisture }

    /// Creates a reading.
    public init(timestamp: Timestamp, probe: Int, moisture: Double) {
        self.timestamp = timestamp
        self.probe = probe
        self.moisture = moisture
    }

    /// The kind's description: units, trace fields, text form and faults. Register it once with
    /// `KindRegistry.register(SoilMoistureSample.kind)` before reading a trace of it.
    public static let kind = KindDescription(
        .soilMoisture, value: SoilMoistureSample.self, summary: "soil moisture (volumetric water content)", units: "%VWC",
        fields: ValueFields(
            encode: { [("probe", .integer(Int64($0.probe))), ("vwc", .number($0.moisture))] },
            decode: { (fields: inout RecordValues, time: Timestamp) throws(FieldError) -> SoilMoistureSample in
                let probe = try fields.integer("probe")
                let moisture = try fields.number("vwc")
                guard (0...100).contains(moisture) else { throw FieldError(field: "vwc", "\(moisture) is not a percentage") }
                return SoilMoistureSample(timestamp: time, probe: Int(probe), moisture: moisture)
            }),
        text: { "probe \($0.probe): \($0.moisture) %VWC" },
        faults: ValueFaults(
            spike: { sample, magnitude, unit in
                var sample = sample
                sample.moisture = min(100, max(0, sample.moisture + (unit() < 0.5 ? -magnitude : magnitude)))
                return sample
            },
            bias: { sample, magnitude in
                var sample = sample
                sample.moisture = min(100, max(0, sample.moisture + magnitude))
                return sample
            }))
}
