public import HAL

/// Everything the sentences of one epoch (one cycle, ``NMEADecoder``) said about the receiver's position.
public struct NMEAFix: Sendable, Hashable {
    /// The epoch's UTC time, nanoseconds since 1970, once a date is known.
    public var utcNanoseconds: Int64?
    /// The time of day in seconds, as the sentences gave it.
    public var timeOfDay: Double?
    /// The fix quality.
    public var mode: FixMode = .none
    /// The position.
    public var coordinate: GeoCoordinate?
    /// Altitude above mean sea level, metres.
    public var altitudeMSL: Double?
    /// Geoid separation (ellipsoid minus mean sea level), metres.
    public var geoidSeparation: Double?
    /// Speed over ground, m/s.
    public var speed: Double?
    /// Course over ground, degrees true.
    public var course: Double?
    /// Satellites used.
    public var satellitesUsed: Int?
    /// Dilutions of precision.
    public var hdop: Double?
    /// Vertical dilution of precision.
    public var vdop: Double?
    /// Position dilution of precision.
    public var pdop: Double?
    /// The local datum DTM named (`W84` is WGS 84), when the epoch had a DTM.
    public var datum: NMEADatum?
    /// GST's 1σ errors in latitude, longitude and altitude, metres (GBS's expected errors where there is no GST).
    public var sigmaLatitude: Double?
    /// GST's 1σ longitude error, metres.
    public var sigmaLongitude: Double?
    /// GST's 1σ altitude error, metres.
    public var sigmaAltitude: Double?
    /// The sentence types that contributed, in order.
    public var sentenceTypes: [SentenceType] = []

    /// The sentence types that contributed, in order, by name.
    public var sentences: [String] { sentenceTypes.map(\.rawValue) }
    /// Whether a sentence said there is no fix (RMC/GLL `V`, GGA quality 0, GSA 1, GNS `N`).
    public internal(set) var noFixReported = false
    /// The mode GSA reported.
    var reportedMode: FixMode?

    /// The user equivalent range error assumed when no GST gives accuracy: 5 m (1σ), a
    /// typical figure for a consumer receiver without corrections.
    public static let assumedRangeError = 5.0

    /// Estimated horizontal error (1σ radius, m): from GST when present, else HDOP × 5 m.
    public var horizontalAccuracy: Double? {
        if let sigmaLatitude, let sigmaLongitude { return (sigmaLatitude * sigmaLatitude + sigmaLongitude * sigmaLongitude).squareRoot() }
        return hdop.map { $0 * Self.assumedRangeError }
    }

    /// Estimated vertical error (1σ, m): from GST when present, else VDOP × 5 m.
    public var verticalAccuracy: Double? {
        sigmaAltitude ?? vdop.map { $0 * Self.assumedRangeError }
    }

    /// The fix as a HAL reading at `timestamp`. A fix without a position is reported as no fix.
    public func locationFix(at timestamp: Timestamp) -> LocationFix {
        guard mode != .none, let coordinate else { return .noFix(at: timestamp, utcNanoseconds: utcNanoseconds) }
        return LocationFix(
            timestamp: timestamp, utcNanoseconds: utcNanoseconds, mode: mode, coordinate: coordinate,
            altitude: mode == .threeDimensional ? altitudeMSL : nil, horizontalAccuracy: horizontalAccuracy,
            verticalAccuracy: mode == .threeDimensional ? verticalAccuracy : nil, speed: speed, course: course,
            satellites: satellitesUsed)
    }
}

/// A DTM sentence's local datum code, such as `W84` (WGS 84), `W72`, `S85`, `P90` or `999` (user-defined), kept in a
/// word rather than a `String`, so that copying a fix counts no references for it.
public struct NMEADatum: Sendable, Hashable, CustomStringConvertible {
    /// Up to eight ASCII bytes, the first in the lowest byte.
    let packed: UInt64
    let count: Int

    init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count <= 8 else { return nil }
        var packed: UInt64 = 0
        for byte in bytes.reversed() { packed = packed << 8 | UInt64(byte) }
        self.packed = packed
        count = bytes.count
    }

    /// The code, such as `W84`.
    public var code: String {
        String(decoding: (0..<count).map { UInt8(truncatingIfNeeded: packed >> (8 * UInt64($0))) }, as: UTF8.self)
    }

    /// The code.
    public var description: String { code }
}
