/// Everything the package needs to know about a device kind, said once: its name and units, the value type of its
/// readings, its text form, how its readings are stored in a trace, and what each fault means for it.
///
/// The trace reader and writer, `hal replay`'s printer, the fault injector and the replayed devices all work through
/// the description, so a kind registered with ``KindRegistry/register(_:)`` is recorded, replayed, printed and
/// faulted with no switch elsewhere to edit. A user's kind is usually described with
/// ``init(_:value:summary:units:isOutput:fields:text:faults:attributes:)``, over a value type that conforms to ``KindValue``.
public struct KindDescription: Sendable {
    /// The kind.
    public let kind: DeviceKind
    /// One line on what the kind measures, for `hal devices` and the docs.
    public var summary: String
    /// The unit string a trace header gives for the kind's channels (`Pa`, `m/s^2`), or `nil` for none.
    public var units: String?
    /// Whether the kind records outputs (what was played, what an app did) rather than inputs.
    public var isOutput: Bool
    /// The value type of its readings.
    public var readingType: any ReadingConvertible.Type
    /// The reading as one line of text, as `hal replay` prints it.
    public var text: @Sendable (Reading) -> String
    /// How a fault plan's faults act on the kind's readings.
    public var faults: KindFaults
    /// How a record of the kind is stored as named fields, in any trace container; `nil` for the built-in kinds,
    /// whose records the trace format encodes by heart for speed (`docs/trace-format.md`).
    public var fields: FieldCodec?
    /// What an expectation can match of a reading: the attributes of its `input:CHANNEL` event.
    public var attributes: KindAttributes

    /// Describes a kind field by field. Built-in kinds and kinds with their own ``Reading`` handling use this.
    ///
    /// Without `attributes`, a kind with `fields` shows its fields to expectations, and one without shows nothing.
    public init(
        kind: DeviceKind, summary: String, units: String?, isOutput: Bool = false,
        readingType: any ReadingConvertible.Type, text: @escaping @Sendable (Reading) -> String,
        faults: KindFaults = KindFaults(), fields: FieldCodec? = nil, attributes: KindAttributes? = nil
    ) {
        self.kind = kind
        self.summary = summary
        self.units = units
        self.isOutput = isOutput
        self.readingType = readingType
        self.text = text
        self.faults = faults
        self.fields = fields
        self.attributes = attributes ?? fields.map(KindAttributes.fields) ?? .none
    }

    /// Describes a kind whose readings are values of `Value`: how a value is stored as named fields and read back,
    /// its text form, and which faults act on it. Expectations see its fields as attributes (`{"event": "input:hr",
    /// "with": {"bpm": "160"}}`); `attributes` names them before a run, so that a scenario naming another is refused.
    ///
    /// ```swift
    /// KindDescription(.wind, value: WindSample.self, summary: "wind speed and direction", units: "m/s,deg",
    ///     fields: .init(encode: { ["speed": .number($0.speed), "from": .number($0.from)] },
    ///                   decode: { fields, time in try WindSample(timestamp: time, speed: fields.number("speed"), from: fields.number("from")) }),
    ///     text: { "\($0.speed) m/s from \($0.from)°" })
    /// ```
    public init<Value: KindValue>(
        _ kind: DeviceKind, value: Value.Type, summary: String, units: String?, isOutput: Bool = false,
        fields: ValueFields<Value>, text: @escaping @Sendable (Value) -> String,
        faults: ValueFaults<Value> = ValueFaults(), attributes: [String]? = nil
    ) {
        let codec = fields.erased(kind)
        var shown = KindAttributes.fields(codec)
        shown.names = attributes
        self.init(
            kind: kind, summary: summary, units: units, isOutput: isOutput, readingType: Value.self,
            text: { reading in Value(reading).map(text) ?? "\(reading)" },
            faults: faults.erased, fields: codec, attributes: shown)
    }

    /// What an unregistered kind looks like: an input of unknown type with no units.
    init(unregistered kind: DeviceKind) {
        self.init(
            kind: kind, summary: "an unregistered kind", units: nil, readingType: CustomReading.self,
            text: { "\($0)" }, attributes: KindAttributes(names: nil, values: { _ in [:] }))
    }
}

/// What an expectation can match of a kind's readings: the attributes of their `input:CHANNEL` events
/// (`docs/apps.md`), such as a pointer's `phase` or a heart-rate sensor's `bpm`.
public struct KindAttributes: Sendable {
    /// The names a reading's attributes can have, when the kind knows them before it sees a reading; `nil` when only
    /// the readings tell (a scenario's names are then checked against the channel's first reading).
    public var names: [String]?
    /// The names whose values are numbers, when the kind knows them: a scenario's comparison (`{">": 24.5}`) on
    /// another of ``names`` is refused before the run. `nil`: not known.
    public var numbers: Set<String>?
    /// A reading's attributes.
    public var values: @Sendable (Reading) -> [String: AppEventValue]

    /// Attributes named `names`, of which `numbers` are numbers, made by `values`.
    public init(names: [String]?, numbers: Set<String>? = nil, values: @escaping @Sendable (Reading) -> [String: AppEventValue]) {
        self.names = names
        self.numbers = numbers
        self.values = values
    }

    /// No attributes: an expectation can name the channel but nothing of its readings.
    public static let none = KindAttributes(names: [], values: { _ in [:] })

    /// A stored record's fields as attributes: numbers, whole numbers, text and flags as they are, a list as its
    /// values joined by commas.
    public static func fields(_ codec: FieldCodec) -> KindAttributes {
        KindAttributes(names: nil) { reading in
            var attributes: [String: AppEventValue] = [:]
            for (name, value) in codec.encode(reading) ?? [] { attributes[name] = value.eventValue }
            return attributes
        }
    }
}

extension FieldValue {
    /// The value as an event attribute; a list as its values' texts joined by commas.
    var eventValue: AppEventValue {
        switch self {
        case .number(let number): .double(number)
        case .integer(let integer): .int(integer)
        case .string(let text): .string(text)
        case .bool(let flag): .bool(flag)
        case .array(let values): .string(values.map(\.eventValue.description).joined(separator: ","))
        }
    }
}

/// How a fault plan's faults act on one kind's readings. A fault whose entry is `nil` leaves the kind's readings
/// alone; the faults every kind takes (drop, disconnect, jitter, reorder, duplicate, latency, rate) need no entry.
public struct KindFaults: Sendable {
    /// `stuck`: the reading with the value of the first reading of the stuck stretch, at its own time.
    public var freeze: (@Sendable (_ reading: Reading, _ first: Reading) -> Reading)?
    /// `spike`: the reading thrown off by `magnitude`, drawing uniform numbers in 0..<1 from `unit`.
    public var spike: (@Sendable (_ reading: Reading, _ magnitude: Double, _ unit: () -> Double) -> Reading)?
    /// `bias`: the reading offset by `magnitude`.
    public var bias: (@Sendable (_ reading: Reading, _ magnitude: Double) -> Reading)?

    /// Fault behaviour; by default no value fault applies.
    public init(
        freeze: (@Sendable (_ reading: Reading, _ first: Reading) -> Reading)? = nil,
        spike: (@Sendable (_ reading: Reading, _ magnitude: Double, _ unit: () -> Double) -> Reading)? = nil,
        bias: (@Sendable (_ reading: Reading, _ magnitude: Double) -> Reading)? = nil
    ) {
        self.freeze = freeze
        self.spike = spike
        self.bias = bias
    }

    /// Stuck readings keep the first value and take their own timestamp.
    public static let keepsFirstValue: @Sendable (Reading, Reading) -> Reading = { reading, first in
        var value = first
        value.timestamp = reading.timestamp
        return value
    }
}

/// How a record of a kind is stored as named fields, for the kinds the trace format does not build in.
public struct FieldCodec: Sendable {
    /// The reading's fields, in the order a container writes them; `nil` when the reading is not of the kind.
    public var encode: @Sendable (Reading) -> [(name: String, value: FieldValue)]?
    /// The reading from a record's fields, at `timestamp`. Every field must be read, or the record is refused.
    public var decode: @Sendable (_ fields: inout RecordValues, _ timestamp: Timestamp) throws(FieldError) -> Reading

    /// A codec from its two directions.
    public init(
        encode: @escaping @Sendable (Reading) -> [(name: String, value: FieldValue)]?,
        decode: @escaping @Sendable (_ fields: inout RecordValues, _ timestamp: Timestamp) throws(FieldError) -> Reading
    ) {
        self.encode = encode
        self.decode = decode
    }
}

/// A value type's fields, for ``KindDescription/init(_:value:summary:units:isOutput:fields:text:faults:attributes:)``.
public struct ValueFields<Value: KindValue>: Sendable {
    /// The value's fields, in the order a container writes them. The timestamp is the record's own.
    public var encode: @Sendable (Value) -> [(name: String, value: FieldValue)]
    /// The value from a record's fields, at `timestamp`.
    public var decode: @Sendable (_ fields: inout RecordValues, _ timestamp: Timestamp) throws(FieldError) -> Value

    /// Fields from their two directions.
    public init(
        encode: @escaping @Sendable (Value) -> [(name: String, value: FieldValue)],
        decode: @escaping @Sendable (_ fields: inout RecordValues, _ timestamp: Timestamp) throws(FieldError) -> Value
    ) {
        self.encode = encode
        self.decode = decode
    }

    func erased(_ kind: DeviceKind) -> FieldCodec {
        let encode = encode, decode = decode
        return FieldCodec(
            encode: { reading in Value(reading).map(encode) },
            decode: { (fields: inout RecordValues, time: Timestamp) throws(FieldError) -> Reading in try decode(&fields, time).reading })
    }
}

/// A value type's faults, for ``KindDescription/init(_:value:summary:units:isOutput:fields:text:faults:attributes:)``.
public struct ValueFaults<Value: KindValue>: Sendable {
    /// Whether `stuck` freezes the value (it keeps its own timestamp).
    public var freezes: Bool
    /// `spike`: the value thrown off by a magnitude, drawing uniform numbers in 0..<1 from the closure.
    public var spike: (@Sendable (_ value: Value, _ magnitude: Double, _ unit: () -> Double) -> Value)?
    /// `bias`: the value offset by a magnitude.
    public var bias: (@Sendable (_ value: Value, _ magnitude: Double) -> Value)?

    /// Fault behaviour; by default `stuck` freezes the value and nothing else acts on it.
    public init(
        freezes: Bool = true, spike: (@Sendable (_ value: Value, _ magnitude: Double, _ unit: () -> Double) -> Value)? = nil,
        bias: (@Sendable (_ value: Value, _ magnitude: Double) -> Value)? = nil
    ) {
        self.freezes = freezes
        self.spike = spike
        self.bias = bias
    }

    var erased: KindFaults {
        let spike = spike, bias = bias
        return KindFaults(
            freeze: freezes ? KindFaults.keepsFirstValue : nil,
            spike: spike.map { spike in
                { @Sendable reading, magnitude, unit in
                    guard let value = Value(reading) else { return reading }
                    return spike(value, magnitude, unit).reading
                }
            },
            bias: bias.map { bias in { @Sendable reading, magnitude in Value(reading).map { bias($0, magnitude).reading } ?? reading } })
    }
}
