import HAL

/// The compact text form of an ``EventMatcher``, as messages print it: `NAME` or `NAME{CLAUSE,…}`.
///
/// A clause is `KEY=VALUE` (the value as it prints), `KEY>N`, `KEY>=N`, `KEY<N`, `KEY<=N` or `KEY!=VALUE`; a clause
/// that starts with an operator adds a comparison to the key before it (`yaw>=89,<=91`), and so does the same key
/// again (`yaw>=89,yaw<=91`). `position within M m of LAT,LON` is a distance. Spaces around keys, operators and values
/// are ignored. Values may not hold `,`, `{` or `}`; the JSON form takes those.
///
/// `input:accel{magnitude>24.5}` is a reading of channel `accel` whose vector is longer than 24.5;
/// `place.arrived{place=clock-tower}` is the app's event with that attribute. ``EventMatcher/description`` writes
/// this form, and reading it back gives the same matcher.
public struct CompactMatcher: Sendable {
    /// The text could not be read as a matcher: why, in words.
    public struct SyntaxError: Error, Sendable, CustomStringConvertible {
        /// What is wrong, naming the clause.
        public var description: String
    }

    /// Reads `text`.
    public static func parse(_ text: String) throws(SyntaxError) -> EventMatcher {
        guard let open = text.firstIndex(of: "{") else {
            let name = trimmed(text)
            guard !name.isEmpty, !name.contains("}") else { throw SyntaxError(description: "'\(text)': expected NAME or NAME{KEY=VALUE,…}") }
            return EventMatcher(event: name)
        }
        let name = trimmed(text[..<open])
        guard !name.isEmpty else { throw SyntaxError(description: "'\(text)': the event's name comes before '{'") }
        guard text.hasSuffix("}"), text.index(before: text.endIndex) > open else {
            throw SyntaxError(description: "'\(text)': expected '}' at the end")
        }
        let body = text[text.index(after: open)..<text.index(before: text.endIndex)]
        guard !body.contains("{"), !body.contains("}") else {
            throw SyntaxError(description: "'\(text)': a value may not hold '{' or '}'; write it in \"with\"")
        }
        var with: [String: AttributeMatch] = [:]
        var clauses = body.split(separator: ",", omittingEmptySubsequences: false)[...]
        var lastKey: String?
        while let clause = clauses.popFirst() {
            let (key, rest) = keyAndRest(clause, after: lastKey)
            guard let key, !key.isEmpty else {
                throw SyntaxError(description: "'\(clause)' in '\(text)': expected KEY=VALUE, KEY>N, KEY>=N, KEY<N, KEY<=N or KEY!=VALUE")
            }
            lastKey = key
            if key == AttributeMatch.positionKey, trimmed(rest).hasPrefix("within") {
                with[key] = try distance(trimmed(rest), longitude: clauses.popFirst(), in: text)
                continue
            }
            let match = try comparison(rest, clause: clause, in: text)
            switch (with[key], match) {
            case (nil, _): with[key] = match
            // In the order of their operators' text, as the JSON form reads them.
            case (.compare(let earlier)?, .compare(let more)): with[key] = .compare((earlier + more).sorted { $0.op.rawValue < $1.op.rawValue })
            default: throw SyntaxError(description: "'\(clause)' in '\(text)': '\(key)' is given twice")
            }
        }
        return EventMatcher(event: name, with: with)
    }

    /// The clause's key (or `lastKey` when it starts with an operator) and what follows the key.
    private static func keyAndRest(_ clause: Substring, after lastKey: String?) -> (String?, Substring) {
        let text = clause.drop { $0 == " " }
        let position = AttributeMatch.positionKey + " "
        if text.hasPrefix(position) { return (AttributeMatch.positionKey, text.dropFirst(position.count)) }
        guard let start = text.firstIndex(where: { "=<>!".contains($0) }) else { return (nil, text) }
        let key = trimmed(text[..<start])
        return key.isEmpty ? (lastKey, text[start...]) : (key, text[start...])
    }

    /// `=VALUE`, or an operator and its bound.
    private static func comparison(_ rest: Substring, clause: Substring, in text: String) throws(SyntaxError) -> AttributeMatch {
        let operators = AttributeMatch.Comparison.Operator.allCases.sorted { $0.rawValue.count > $1.rawValue.count }
        let found = operators.first { rest.hasPrefix($0.rawValue) }
        let length = found?.rawValue.count ?? (rest.hasPrefix("=") ? 1 : 0)
        let value = trimmed(rest.dropFirst(length))
        guard length > 0, !value.isEmpty else {
            throw SyntaxError(description: "'\(clause)' in '\(text)': expected KEY=VALUE, KEY>N, KEY>=N, KEY<N, KEY<=N or KEY!=VALUE")
        }
        guard let op = found else {
            if let first = value.first, "=<>!".contains(first) {
                throw SyntaxError(description: "'\(clause)' in '\(text)': '=\(first)' is not an operator; use >, >=, <, <= or !=")
            }
            return .value(value)
        }
        if let number = ExactDecimal(value) { return .compare([AttributeMatch.Comparison(op, number)]) }
        guard op == .other else { throw SyntaxError(description: "'\(clause)' in '\(text)': '\(value)' is not a number; '\(op.rawValue)' compares numbers") }
        return .compare([AttributeMatch.Comparison(notText: value)])
    }

    /// `within M m of LAT`, with `LON` the clause after it.
    private static func distance(_ rest: String, longitude: Substring?, in text: String) throws(SyntaxError) -> AttributeMatch {
        let words = rest.split(separator: " ")
        guard words.count == 5, words[0] == "within", words[2] == "m", words[3] == "of", let metres = ExactDecimal(words[1]),
            metres >= ExactDecimal(0), let latitude = Double(words[4]), let longitude = longitude.flatMap({ Double(trimmed($0)) }),
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        else {
            throw SyntaxError(description: "'position \(rest)' in '\(text)': expected 'position within METRES m of LAT,LON'")
        }
        return .within(metres: DecimalBound(metres), of: GeoCoordinate(latitude: latitude, longitude: longitude))
    }

    private static func trimmed(_ text: some StringProtocol) -> String {
        String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
