public import HAL

/// Writes location fixes as NMEA 0183: RMC, GGA, GSA and, when the fix has an accuracy,
/// GST, one epoch at a time, for exporting traces and for serving simulated GPS to gpsd.
///
/// Latitude and longitude are written with 6 decimals of minutes (about 2 mm), altitude to
/// 0.1 m, speed to 0.001 knot and course to 0.01°. A fix with no position writes RMC with
/// status `V`, GGA with quality 0 and GSA with mode 1, keeping the time.
public struct NMEAEncoder: Sendable {
    /// The talker, `GP` by default.
    public var talker: String

    /// Creates an encoder.
    public init(talker: String = "GP") {
        self.talker = talker
    }

    /// The sentences for one fix, each with its checksum and `\r\n`. A fix without UTC time is
    /// written at 1970-01-01T00:00:00Z plus nothing: give fixes a UTC time first (see
    /// `LocationTrack.withUTC(from:)` in Interchange).
    public func sentences(for fix: LocationFix) -> [String] {
        // Round to the millisecond once, then split into days and the time of day, so that
        // time and date agree just before midnight.
        let milliseconds = ((fix.utcNanoseconds ?? 0) + 500_000) / 1_000_000
        let millisecondsPerDay = UTCTime.nanosecondsPerDay / 1_000_000
        let days = milliseconds >= 0 ? milliseconds / millisecondsPerDay : (milliseconds + 1) / millisecondsPerDay - 1
        let time = Self.time(dayMilliseconds: milliseconds - days * millisecondsPerDay)
        let date = Self.date(days: days)
        let valid = fix.mode != .none && fix.coordinate != nil
        let (latitude, north, longitude, east) = fix.coordinate.map(Self.position) ?? ("", "", "", "")
        let satellites = fix.satellites.map { Self.padded($0, 2) } ?? (valid ? "08" : "00")
        // HDOP from the accuracy the other way round from the decoder's estimate (NMEAFix.assumedRangeError per unit).
        let hdop = fix.horizontalAccuracy.map { Self.decimal($0 / NMEAFix.assumedRangeError, 1) } ?? (valid ? "1.0" : "")
        let altitude = fix.mode == .threeDimensional ? fix.altitude.map { Self.decimal($0, 1) } ?? "" : ""
        let knots = fix.speed.map { Self.decimal($0 * 3600 / 1852, 3) } ?? ""
        let course = fix.course.map { Self.decimal($0, 2) } ?? ""
        let mode = switch fix.mode {
        case .none: "1"
        case .twoDimensional: "2"
        case .threeDimensional: "3"
        }
        let vdop = fix.verticalAccuracy.map { Self.decimal($0 / NMEAFix.assumedRangeError, 1) } ?? ""
        // RMC first: gpsd 3.22 reads an epoch cleanly in this order, also across a loss of fix.
        var lines = [
            sentence("RMC", [time, valid ? "A" : "V", latitude, north, longitude, east, knots, course, date, "", "", valid ? "A" : "N"]),
            sentence("GGA", [
                time, latitude, north, longitude, east, valid ? "1" : "0", satellites, hdop,
                altitude, altitude.isEmpty ? "" : "M", "", "", "", "",
            ]),
            sentence("GSA", ["A", mode] + Array(repeating: "", count: 12) + ["", hdop, vdop]),
        ]
        if valid, let accuracy = fix.horizontalAccuracy {
            let sigma = Self.decimal(accuracy / 2.0.squareRoot(), 2)
            let vertical = fix.verticalAccuracy.map { Self.decimal($0, 2) } ?? ""
            lines.append(sentence("GST", [time, "", "", "", "", sigma, sigma, vertical]))
        }
        return lines
    }

    /// One sentence from its type and fields, with checksum and line ending.
    public func sentence(_ type: String, _ fields: [String]) -> String {
        let body: String = talker + type + "," + fields.joined(separator: ",")
        let checksum: UInt8 = body.utf8.reduce(0, ^)
        let hex = String(checksum, radix: 16, uppercase: true)
        return "$" + body + "*" + (hex.count == 1 ? "0" + hex : hex) + "\r\n"
    }

    private static func position(_ coordinate: GeoCoordinate) -> (String, String, String, String) {
        func split(_ value: Double, _ degreeDigits: Int) -> String {
            let magnitude = abs(value)
            var degrees = Int(magnitude)
            var minutes = ((magnitude - Double(degrees)) * 60 * 1e6).rounded() / 1e6
            if minutes >= 60 {
                degrees += 1
                minutes -= 60
            }
            return padded(degrees, degreeDigits) + fixed(minutes, places: 6, integerDigits: 2)
        }
        return (
            split(coordinate.latitude, 2), coordinate.latitude < 0 ? "S" : "N",
            split(coordinate.longitude, 3), coordinate.longitude < 0 ? "W" : "E")
    }

    private static func decimal(_ value: Double, _ places: Int) -> String {
        fixed(value, places: places, integerDigits: 1)
    }

    /// `value` rounded to `places` decimals (at most 15), its whole part zero-padded to `integerDigits`.
    public static func fixed(_ value: Double, places: Int, integerDigits: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = Int64((abs(value) * Double(scale)).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        let whole = padded(Int(scaled / scale), integerDigits)
        return places == 0 ? sign + whole : sign + whole + "." + padded(Int(scaled % scale), places)
    }

    /// A non-negative whole number with leading zeros to `width` digits.
    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func time(dayMilliseconds: Int64) -> String {
        let seconds = Double(dayMilliseconds % 60_000) / 1000
        return padded(Int(dayMilliseconds / 3_600_000), 2) + padded(Int(dayMilliseconds / 60_000 % 60), 2)
            + fixed(seconds, places: 3, integerDigits: 2)
    }

    private static func date(days: Int64) -> String {
        let (year, month, day) = UTCTime.civilDate(days: days)
        return padded(day, 2) + padded(month, 2) + padded(year % 100, 2)
    }
}
