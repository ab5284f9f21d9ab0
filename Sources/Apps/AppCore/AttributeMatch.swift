public import HAL

/// What one attribute of a matched event must be, in an expectation's `with`:
///
/// - a value, as text or a JSON number: `"release"`, `"160"` or `160`; it matches as it prints, and a number matches a
///   number of the same value (`160` matches 160 and 160.0);
/// - comparisons with numbers, all of which must hold: `{">": 24.5}`, `{">=": 89, "<=": 91}`, `{"<": 3}`; they
///   compare exactly, as the reading's binary value and the bound's decimal are (`DecimalBound`), and a value that
///   is not a number does not match. `{"!=": a}` (a number or text) holds where `a` as a value would not match;
/// - under the key `position`, a distance: `{"within": 25, "of": [49.2606, -123.2460]}` matches an event whose
///   `lat` and `lon` (or `latitude` and `longitude`) lie within that many metres of the point, on the WGS84 ellipsoid.
public enum AttributeMatch: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral
{
    /// The attribute prints as this text, or is a number of this value.
    case value(String)
    /// Every comparison holds.
    case compare([Comparison])
    /// The event's position is at most `metres` from `point`.
    case within(metres: DecimalBound, of: GeoCoordinate)

    /// The key under which a distance is given: it reads the event's `lat` and `lon`.
    public static let positionKey = "position"

    /// A comparison with a bound.
    public struct Comparison: Sendable, Hashable {
        /// How the attribute compares with the bound.
        public enum Operator: String, Sendable, Hashable, CaseIterable {
            case above = ">", atLeast = ">=", below = "<", atMost = "<=", other = "!="
        }

        /// How.
        public var op: Operator
        /// A number, exactly; `nil` when the bound is text (only with `!=`).
        public var number: DecimalBound?
        /// The bound as written.
        public var text: String

        /// `op` with the number `bound`.
        public init(_ op: Operator, _ bound: ExactDecimal) {
            self.op = op
            number = DecimalBound(bound)
            text = bound.description
        }

        /// `!=` with text.
        public init(notText text: String) {
            op = .other
            number = nil
            self.text = text
        }

        /// Whether `value` satisfies the comparison.
        func holds(for value: AppEventValue) -> Bool {
            // Not equal is the opposite of a value match, by the same rule (as it prints, or a number of that value).
            if op == .other { return !EventMatcher.value(value, is: text) }
            guard let number else { return false }
            let order: Int
            switch value {
            case .int(let integer): order = number.compare(integer)
            case .double(let double):
                guard !double.isNaN else { return false }
                order = number.compare(double)
            case .string, .bool: return false
            }
            switch op {
            case .above: return order > 0
            case .atLeast: return order >= 0
            case .below: return order < 0
            case .atMost: return order <= 0
            case .other: return order != 0
            }
        }
    }

    /// A text value.
    public init(stringLiteral value: String) { self = .value(value) }
    /// A whole number's value.
    public init(integerLiteral value: Int64) { self = .value(String(value)) }
    /// A number's value, by its shortest text.
    public init(floatLiteral value: Double) { self = .value(ExactDecimal("\(value)")?.description ?? "\(value)") }

    /// Whether the attributes satisfy the match for `key`.
    public func matches(key: String, in attributes: [String: AppEventValue]) -> Bool {
        switch self {
        case .value(let wanted):
            return attributes[key].map { EventMatcher.value($0, is: wanted) } ?? false
        case .compare(let comparisons):
            guard let value = attributes[key] else { return false }
            return comparisons.allSatisfy { $0.holds(for: value) }
        case .within(let metres, let point):
            guard let latitude = Self.number(attributes["lat"] ?? attributes["latitude"]),
                let longitude = Self.number(attributes["lon"] ?? attributes["longitude"])
            else { return false }
            let distance = GeoCoordinate(latitude: latitude, longitude: longitude).distance(to: point)
            return !distance.isNaN && metres.compare(distance) <= 0
        }
    }

    /// Whether the match needs the attribute to be a number.
    public var needsNumber: Bool {
        switch self {
        case .value: false
        case .compare(let comparisons): comparisons.contains { $0.op != .other }
        case .within: false
        }
    }

    private static func number(_ value: AppEventValue?) -> Double? {
        switch value {
        case .double(let double): double
        case .int(let integer): Double(integer)
        default: nil
        }
    }

    /// `=release`, `>24.5`, `>=89,<=91`, ` within 25 m of 49.2606,-123.246`: how ``EventMatcher/description`` writes it
    /// after the key.
    public var description: String {
        switch self {
        case .value(let text): "=\(text)"
        case .compare(let comparisons): comparisons.map { "\($0.op.rawValue)\($0.text)" }.joined(separator: ",")
        case .within(let metres, let point): " within \(metres.decimal) m of \(point.latitude),\(point.longitude)"
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Reads text, a number, a flag, an object of comparisons or a distance; errors name the field.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if let text = try? single.decode(String.self) {
                self = .value(text)
                return
            }
            if let flag = try? single.decode(Bool.self) {
                self = .value(String(flag))
                return
            }
            if let number = try? single.decode(ExactDecimal.self) {
                self = .value(number.description)
                return
            }
        }
        let object = try decoder.container(keyedBy: Key.self)
        let keys = object.allKeys.map(\.stringValue)
        if keys.contains("within") || keys.contains("of") {
            guard Set(keys) == ["within", "of"] else {
                throw DecodingError.dataCorruptedError(forKey: Key("within"), in: object, debugDescription: "a distance is {\"within\": metres, \"of\": [lat, lon]} and nothing else")
            }
            let metres = try object.decode(ExactDecimal.self, forKey: Key("within"))
            let point = try object.decode([Double].self, forKey: Key("of"))
            guard metres >= ExactDecimal(0), point.count == 2, (-90...90).contains(point[0]), (-180...180).contains(point[1]) else {
                throw DecodingError.dataCorruptedError(forKey: Key("of"), in: object, debugDescription: "expected 0 or more metres of [lat, lon] in degrees")
            }
            self = .within(metres: DecimalBound(metres), of: GeoCoordinate(latitude: point[0], longitude: point[1]))
            return
        }
        guard !keys.isEmpty else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "give a value, or comparisons such as {\">\": 24.5}"))
        }
        var comparisons: [Comparison] = []
        for key in keys.sorted() {
            guard let op = Comparison.Operator(rawValue: key) else {
                throw DecodingError.dataCorruptedError(
                    forKey: Key(key), in: object,
                    debugDescription: "'\(key)' is not a comparison; use \(Comparison.Operator.allCases.map(\.rawValue).joined(separator: ", ")), or {\"within\": metres, \"of\": [lat, lon]}")
            }
            if op == .other, let text = try? object.decode(String.self, forKey: Key(key)) {
                comparisons.append(Comparison(notText: text))
            } else {
                comparisons.append(Comparison(op, try object.decode(ExactDecimal.self, forKey: Key(key))))
            }
        }
        self = .compare(comparisons)
    }

    /// Writes the form it was read in.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .value(let text):
            var single = encoder.singleValueContainer()
            try single.encode(text)
        case .compare(let comparisons):
            var object = encoder.container(keyedBy: Key.self)
            for comparison in comparisons {
                if let number = comparison.number {
                    try object.encode(number.decimal, forKey: Key(comparison.op.rawValue))
                } else {
                    try object.encode(comparison.text, forKey: Key(comparison.op.rawValue))
                }
            }
        case .within(let metres, let point):
            var object = encoder.container(keyedBy: Key.self)
            try object.encode(metres.decimal, forKey: Key("within"))
            try object.encode([point.latitude, point.longitude], forKey: Key("of"))
        }
    }
}
