/// UTC time as nanoseconds since 1970-01-01T00:00:00Z, on the proleptic Gregorian calendar:
/// ISO 8601 text (`2026-11-21T10:15:30.250Z`) both ways, and civil dates, without Foundation.
public enum UTCTime {
    /// Nanoseconds in a day.
    public static let nanosecondsPerDay: Int64 = 86_400_000_000_000

    /// ISO 8601 text with as few fractional digits as keep the value exact: none, 3, 6 or 9.
    public static func format(_ nanoseconds: Int64) -> String {
        let nanosPerSecond: Int64 = 1_000_000_000
        var seconds = nanoseconds / nanosPerSecond
        var fraction = nanoseconds % nanosPerSecond
        if fraction < 0 {
            fraction += nanosPerSecond
            seconds -= 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civilDate(days: days)
        var text = pad(Int64(year), 4) + "-" + pad(Int64(month), 2) + "-" + pad(Int64(day), 2) + "T"
        text += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if fraction != 0 {
            var digits = pad(fraction, 9)
            while digits.count > 3, digits.hasSuffix("000") { digits.removeLast(3) }
            text += "." + digits
        }
        return text + "Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z`; returns `nil` for anything else, and for times that 64-bit
    /// nanoseconds since 1970 cannot hold (before 1677 or after 2262).
    public static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ start: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for index in start..<(start + count) {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        func at(_ index: Int, _ character: Character) -> Bool { bytes[index] == character.asciiValue! }
        guard at(4, "-"), at(7, "-"), at(10, "T"), at(13, ":"), at(16, ":"),
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              (1...12).contains(month), (1...daysInMonth(year: year, month: month)).contains(day),
              hour < 24, minute < 60, second < 60
        else { return nil }
        var nanos: Int64 = 0
        let fractionEnd = bytes.count - 1
        if fractionEnd > 19 {
            let digitCount = fractionEnd - 20
            guard at(19, "."), (1...9).contains(digitCount), let fraction = number(20, digitCount) else { return nil }
            nanos = fraction
            for _ in digitCount..<9 { nanos *= 10 }
        } else if fractionEnd != 19 {
            return nil
        }
        let days = days(year: Int(year), month: Int(month), day: Int(day))
        // Nanoseconds since 1970 fit in 64 bits from 1677 to 2262: a time outside is refused, not a trap.
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return nil }
        let (total, carry) = scaled.addingReportingOverflow(nanos)
        return carry ? nil : total
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
    public static func days(year: Int, month: Int, day: Int) -> Int64 {
        let shiftedYear = Int64(month <= 2 ? year - 1 : year)
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * Int64(month > 2 ? month - 3 : month + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    public static func civilDate(days: Int64) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }
}
