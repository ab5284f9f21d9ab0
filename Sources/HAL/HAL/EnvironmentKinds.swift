/// One value from a sensor that measures a single quantity: pressure, temperature, humidity, light, proximity.
///
/// It is the reading type of every kind described by ``KindDescription/scalar(_:summary:units:)``, and reaches
/// traces, replay, faults and the printer only through the kind's registered description, as a user's kind does.
public struct ScalarSample: KindValue {
    /// When the value was measured.
    public var timestamp: Timestamp
    /// What it measures.
    public var kind: DeviceKind
    /// The value, in the kind's units.
    public var value: Double

    /// Creates a sample.
    public init(timestamp: Timestamp, kind: DeviceKind, value: Double) {
        self.timestamp = timestamp
        self.kind = kind
        self.value = value
    }
}

/// A sensor of one quantity: a barometer, a thermometer, a hygrometer, a light or proximity sensor.
public protocol ScalarSensor: ReadingSource where Element == ScalarSample {}

extension DeviceKind {
    /// Air pressure in pascals (a barometer).
    public static let pressure = DeviceKind("pressure")
    /// Temperature in degrees Celsius.
    public static let temperature = DeviceKind("temperature")
    /// Relative humidity in percent.
    public static let humidity = DeviceKind("humidity")
    /// Illuminance in lux (an ambient light sensor).
    public static let illuminance = DeviceKind("illuminance")
    /// Proximity as the sensor counts it: no unit, higher is nearer.
    public static let proximity = DeviceKind("proximity")
}

/// The single-quantity kinds a board commonly has beside its motion sensors. Adding one is a line here and a row in
/// the IIO backend's table (`IIOKinds`); docs/architecture.md walks through it.
enum EnvironmentKinds {
    static let all: [KindDescription] = [
        .scalar(.pressure, summary: "air pressure (barometer)", units: "Pa"),
        .scalar(.temperature, summary: "temperature", units: "degC"),
        .scalar(.humidity, summary: "relative humidity", units: "%RH"),
        .scalar(.illuminance, summary: "illuminance (ambient light)", units: "lx"),
        .scalar(.proximity, summary: "proximity, unitless: higher is nearer", units: nil),
    ]
}

extension KindDescription {
    /// A kind of ``ScalarSample``s: stored as `{"v": value}`, printed with its units, frozen by `stuck`, thrown
    /// off by ±magnitude by `spike` and offset by `bias`.
    public static func scalar(_ kind: DeviceKind, summary: String, units: String?) -> KindDescription {
        KindDescription(
            kind, value: ScalarSample.self, summary: summary, units: units,
            fields: ValueFields(
                encode: { [("v", .number($0.value))] },
                decode: { (fields: inout RecordValues, time: Timestamp) throws(FieldError) -> ScalarSample in
                    ScalarSample(timestamp: time, kind: kind, value: try fields.number("v"))
                }),
            text: { sample in units.map { "\(sample.value) \($0)" } ?? "\(sample.value)" },
            faults: ValueFaults(
                spike: { sample, magnitude, unit in
                    var sample = sample
                    sample.value += (unit() < 0.5 ? -1 : 1) * magnitude
                    return sample
                },
                bias: { sample, magnitude in
                    var sample = sample
                    sample.value += magnitude
                    return sample
                }),
            attributes: ["v"])
    }
}
