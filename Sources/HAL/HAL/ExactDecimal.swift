/// A JSON number's decimal text, read exactly: its sign, its significant digits and the power of ten that scales
/// them. The one reader for integers (seeds, counts) and seconds that never goes through `Double`.
public struct ExactDecimal: Sendable, Hashable {
    /// Whether the number is below zero.
    public var negative: Bool
    /// The significant digits, most significant first, with no leading or trailing zeros (empty for zero).
    public var digits: [UInt8]
    /// The power of ten of the last digit.
    public var exponent: Int

    /// Reads JSON number text (`-12.50e3`); `nil` when it is not one.
    public init?(_ text: some StringProtocol) {
        var bytes = Array(text.utf8)[...]
        negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let integer = bytes.prefix(while: isDigit)
        guard !integer.isEmpty else { return nil }
        bytes = bytes.dropFirst(integer.count)
        var fraction: ArraySlice<UInt8> = []
        if bytes.first == UInt8(ascii: ".") {
            fraction = bytes.dropFirst().prefix(while: isDigit)
            guard !fraction.isEmpty else { return nil }
            bytes = bytes.dropFirst(1 + fraction.count)
        }
        var power = 0
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            var exponentNegative = false
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                exponentNegative = sign == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            let exponentDigits = bytes.prefix(while: isDigit)
            guard !exponentDigits.isEmpty, exponentDigits.count <= 6 else { return nil }
            bytes = bytes.dropFirst(exponentDigits.count)
            power = exponentDigits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            if exponentNegative { power = -power }
        }
        guard bytes.isEmpty else { return nil }
        var all = (integer + fraction).map { $0 - UInt8(ascii: "0") }
        var exponent = power - fraction.count
        while all.last == 0 {
            all.removeLast()
            exponent += 1
        }
        let leading = all.prefix(while: { $0 == 0 }).count
        all.removeFirst(leading)
        self.digits = all
        self.exponent = all.isEmpty ? 0 : exponent
    }

    /// The number times 10^`power` as an `Int64`, when that is a whole number that fits; `nil` otherwise.
    public func scaled(by power: Int) -> Int64? {
        guard let magnitude = magnitude(scaledBy: power) else { return nil }
        if negative { return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
        return Int64(exactly: magnitude)
    }

    /// The magnitude times 10^`power` as a `UInt64`, when that is a whole number that fits; `nil` otherwise.
    public func magnitude(scaledBy power: Int = 0) -> UInt64? {
        if digits.isEmpty { return 0 }
        let exponent = self.exponent + power
        guard exponent >= 0, digits.count + exponent <= 20 else { return nil }
        var value: UInt64 = 0
        for digit in digits + [UInt8](repeating: 0, count: exponent) {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}

extension ExactDecimal: Comparable, CustomStringConvertible {
    /// A whole number, exactly.
    public init(_ value: Int64) {
        self.init(String(value))!
    }

    /// The exact value of a finite `Double` (every binary fraction has a finite decimal expansion); `nil` for an
    /// infinity or NaN. Up to about 770 digits: for a bound, made once, not per comparison.
    public init?(exactly value: Double) {
        guard value.isFinite else { return nil }
        negative = value < 0
        guard value != 0 else {
            digits = []
            exponent = 0
            return
        }
        // value = significand × 2^power, significand a whole number below 2^53.
        var significand = value.magnitude.significandBitPattern
        var power = Int(value.magnitude.exponent) - Double.significandBitCount
        if value.magnitude.isNormal { significand |= 1 << UInt64(Double.significandBitCount) } else { power = -1074 }
        var number = String(significand).utf8.map { $0 - UInt8(ascii: "0") }  // most significant first
        func multiply(by factor: UInt8) {
            var carry = 0
            for index in number.indices.reversed() {
                let product = Int(number[index]) * Int(factor) + carry
                number[index] = UInt8(product % 10)
                carry = product / 10
            }
            while carry > 0 {
                number.insert(UInt8(carry % 10), at: 0)
                carry /= 10
            }
        }
        var exponent = 0
        if power >= 0 {
            for _ in 0..<power { multiply(by: 2) }
        } else {
            // × 2^-k = × 5^k / 10^k.
            for _ in 0..<(-power) { multiply(by: 5) }
            exponent = power
        }
        while number.last == 0 {
            number.removeLast()
            exponent += 1
        }
        number.removeFirst(number.prefix { $0 == 0 }.count)
        digits = number
        self.exponent = exponent
    }

    /// Orders by value, exactly.
    public static func < (lhs: ExactDecimal, rhs: ExactDecimal) -> Bool { compare(lhs, rhs) < 0 }

    /// -1, 0 or 1 as `lhs` is below, equal to or above `rhs`.
    public static func compare(_ lhs: ExactDecimal, _ rhs: ExactDecimal) -> Int {
        let lhsSign = lhs.digits.isEmpty ? 0 : lhs.negative ? -1 : 1
        let rhsSign = rhs.digits.isEmpty ? 0 : rhs.negative ? -1 : 1
        guard lhsSign == rhsSign else { return lhsSign < rhsSign ? -1 : 1 }
        guard lhsSign != 0 else { return 0 }
        // Magnitudes: first by the power of ten of the leading digit, then digit by digit.
        let lhsTop = lhs.digits.count + lhs.exponent, rhsTop = rhs.digits.count + rhs.exponent
        var magnitude = 0
        if lhsTop != rhsTop {
            magnitude = lhsTop < rhsTop ? -1 : 1
        } else {
            for index in 0..<max(lhs.digits.count, rhs.digits.count) {
                let a = index < lhs.digits.count ? lhs.digits[index] : 0, b = index < rhs.digits.count ? rhs.digits[index] : 0
                if a != b {
                    magnitude = a < b ? -1 : 1
                    break
                }
            }
        }
        return lhsSign * magnitude
    }

    /// The number as JSON number text: `-12.5`, `3`, `0.001`, `12000`.
    public var description: String {
        guard !digits.isEmpty else { return "0" }
        var text = String(decoding: digits.map { $0 + UInt8(ascii: "0") }, as: UTF8.self)
        if exponent >= 0 {
            text += String(repeating: "0", count: exponent)
        } else if -exponent >= text.count {
            text = "0." + String(repeating: "0", count: -exponent - text.count) + text
        } else {
            text.insert(".", at: text.index(text.endIndex, offsetBy: exponent))
        }
        return (negative ? "-" : "") + text
    }
}

/// A decimal bound compared with `Double` values exactly, as if the value's exact binary fraction were compared with
/// the bound's exact decimal: `0.1` is below the `Double` written `0.1` (0.1000000000000000055…), so a reading of that
/// `Double` is `> 0.1`. Worked out once per bound; each comparison is a `Double` comparison.
public struct DecimalBound: Sendable, Hashable {
    /// The bound as written.
    public let decimal: ExactDecimal
    /// The `Double` nearest to it.
    public let nearest: Double
    /// Whether ``nearest`` lies below (-1), on (0) or above (1) the bound.
    let rounding: Int

    /// The bound `decimal`.
    public init(_ decimal: ExactDecimal) {
        self.decimal = decimal
        nearest = Double(decimal.description) ?? .nan
        rounding = ExactDecimal(exactly: nearest).map { ExactDecimal.compare($0, decimal) } ?? 0
    }

    /// -1, 0 or 1 as `value` is below, equal to or above the bound, exactly.
    public func compare(_ value: Double) -> Int {
        // A double other than the nearest lies on the same side of the bound as of the nearest (the bound rounds to
        // the nearest, so no other double lies between them); the nearest itself is where its rounding put it.
        if value < nearest { return -1 }
        if value > nearest { return 1 }
        return rounding
    }

    /// -1, 0 or 1 as `value` is below, equal to or above the bound, exactly.
    public func compare(_ value: Int64) -> Int { ExactDecimal.compare(ExactDecimal(value), decimal) }
}

extension ExactDecimal: Codable {
    /// Reads a JSON number. The project's JSON reader hands its text, exactly; another decoder a whole number, or a
    /// `Double` taken by its shortest text (the decimal written, for up to 15 significant digits).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let whole = try? container.decode(Int64.self) {
            self.init(whole)
            return
        }
        let value = try container.decode(Double.self)
        guard value.isFinite, let decimal = ExactDecimal("\(value)") else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(value) is not a finite number")
        }
        self = decimal
    }

    /// Writes the number: a whole one as an integer, another as the `Double` nearest to it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let whole = scaled(by: 0) {
            try container.encode(whole)
        } else {
            try container.encode(Double(description) ?? .nan)
        }
    }
}
