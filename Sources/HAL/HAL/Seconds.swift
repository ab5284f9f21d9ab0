/// A time or a length of time written as decimal seconds in a scenario, a fault plan or a space file, held as whole
/// nanoseconds: `1.118` is exactly 1,118,000,000 ns, so a bound compares exactly with the integer times of a run.
///
/// Files read through the project's JSON reader (scenarios, fault plans, space files) turn the number's decimal text
/// into nanoseconds with no `Double` in between; a value with more than nine decimal places, or beyond `Int64`
/// nanoseconds (about 292 years), is refused, naming the field. Another decoder (`JSONDecoder`) hands a `Double`,
/// which is rounded to the nearest nanosecond: exact for any value of up to 15 significant digits. A `Seconds`
/// encodes as a JSON number whose shortest text is its decimal value for the same range.
public struct Seconds: Sendable, Hashable, Comparable, Codable, CustomStringConvertible, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral
{
    /// The time in nanoseconds.
    public var nanoseconds: Int64

    /// Seconds of `nanoseconds` nanoseconds.
    @inlinable
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// Whole seconds.
    public init(integerLiteral value: Int64) {
        nanoseconds = value.scaled(by: 1_000_000_000)
    }

    /// A literal such as `1.118`, taken by its shortest decimal text (for code and tests; files are read exactly).
    public init(floatLiteral value: Double) {
        self.init(rounding: value)
    }

    /// `seconds` rounded to the nearest nanosecond, held within `Int64`'s range (a `Double` from another decoder, or
    /// a computed delay).
    public init(rounding seconds: Double) {
        let nanoseconds = (seconds * 1e9).rounded()
        guard nanoseconds.isFinite else {
            self.nanoseconds = nanoseconds > 0 ? .max : nanoseconds < 0 ? .min : 0
            return
        }
        self.nanoseconds = Int64(exactly: nanoseconds) ?? (nanoseconds > 0 ? .max : .min)
    }

    /// The value of a JSON number's text (`1.118`, `-2`, `3e-3`) in whole nanoseconds; `nil` when it has a part
    /// finer than a nanosecond or does not fit.
    public init?(decimalText text: some StringProtocol) {
        guard let decimal = ExactDecimal(text), let nanoseconds = decimal.scaled(by: 9) else { return nil }
        self.nanoseconds = nanoseconds
    }

    /// Zero seconds.
    public static let zero = Seconds(nanoseconds: 0)

    /// The seconds as a duration.
    public var duration: Duration { .nanoseconds(nanoseconds) }

    /// The seconds as a `Double`, for arithmetic that is not compared (a plot's axis, a random draw's scale).
    public var double: Double { Double(nanoseconds) / 1e9 }

    /// Orders by time.
    public static func < (lhs: Seconds, rhs: Seconds) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The exact decimal text, with no trailing zeros: `1.118`, `2`, `0.000000001`.
    public var description: String { Self.decimal(nanoseconds, unit: 1_000_000_000, keeping: 0) }

    /// The time for a message: exact, with at least the milliseconds (`1.118 s`, `2.000 s`, `1.118000001 s`).
    public var message: String { Self.decimal(nanoseconds, unit: 1_000_000_000, keeping: 3) + " s" }

    /// A delay for a message, in milliseconds, exactly: `806 ms`, `80.1 ms`, `1128.000001 ms`.
    public var millisecondsMessage: String { Self.decimal(nanoseconds, unit: 1_000_000, keeping: 0) + " ms" }

    /// `value / unit` as exact decimal text, its fraction's trailing zeros dropped down to `keeping` digits.
    private static func decimal(_ value: Int64, unit: UInt64, keeping: Int) -> String {
        let sign = value < 0 ? "-" : ""
        let digits = String(unit).count - 1
        var fraction = String(value.magnitude % unit)
        fraction = String(repeating: "0", count: digits - fraction.count) + fraction
        while fraction.count > keeping, fraction.last == "0" { fraction.removeLast() }
        return "\(sign)\(value.magnitude / unit)" + (fraction.isEmpty ? "" : ".\(fraction)")
    }

    /// Reads a number; see the type's description for how exact that is.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let whole = try? container.decode(Int64.self), !whole.multipliedReportingOverflow(by: 1_000_000_000).overflow {
            self.init(nanoseconds: whole * 1_000_000_000)
            return
        }
        let value = try container.decode(Double.self)
        guard value.isFinite, abs(value) < 9.2e9 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(value) seconds is out of range")
        }
        self.init(rounding: value)
    }

    /// Writes the seconds as a JSON number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if nanoseconds % 1_000_000_000 == 0 {
            try container.encode(nanoseconds / 1_000_000_000)
        } else {
            try container.encode(double)
        }
    }
}

extension Seconds {
    /// Whole milliseconds.
    public static func milliseconds(_ milliseconds: Int) -> Seconds {
        Seconds(nanoseconds: Int64(milliseconds).scaled(by: 1_000_000))
    }

    /// The time in milliseconds, rounded half away from zero.
    public var roundedMilliseconds: Int {
        let (quotient, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000)
        return Int(quotient) + (remainder >= 500_000 ? 1 : remainder <= -500_000 ? -1 : 0)
    }

    /// The difference, held at `Int64`'s ends rather than trapping.
    public static func - (lhs: Seconds, rhs: Seconds) -> Seconds {
        let (difference, overflow) = lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds)
        return Seconds(nanoseconds: overflow ? (rhs.nanoseconds < 0 ? .max : .min) : difference)
    }

    /// The sum, held at `Int64`'s ends rather than trapping.
    public static func + (lhs: Seconds, rhs: Seconds) -> Seconds {
        Seconds(nanoseconds: lhs.nanoseconds.shifted(by: rhs.nanoseconds))
    }
}

extension Int64 {
    /// `self + offset`, held at `Int64`'s ends rather than trapping: a time moved by a delay or a fault.
    package func shifted(by offset: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(offset)
        return overflow ? (offset > 0 ? .max : .min) : sum
    }

    /// `self × factor` (a positive unit), held at `Int64`'s ends rather than trapping.
    func scaled(by factor: Int64) -> Int64 {
        let (product, overflow) = multipliedReportingOverflow(by: factor)
        return overflow ? (self < 0 ? .min : .max) : product
    }
}

extension Timestamp {
    /// The time `seconds` after this one, held at `Int64`'s ends.
    public func adding(_ seconds: Seconds) -> Timestamp {
        Timestamp(nanoseconds: nanoseconds.shifted(by: seconds.nanoseconds))
    }

    /// The seconds from this time to `later`, exactly (held at `Int64`'s ends).
    public func seconds(to later: Timestamp) -> Seconds {
        Seconds(nanoseconds: later.nanoseconds) - Seconds(nanoseconds: nanoseconds)
    }
}
