/// How good a position fix is.
public enum FixMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// No position: the receiver has lost the fix. The fix carries no coordinates.
    case none
    /// Latitude and longitude, no altitude.
    case twoDimensional = "2d"
    /// Latitude, longitude and altitude.
    case threeDimensional = "3d"
}

/// A position on the WGS84 ellipsoid.
public struct GeoCoordinate: Sendable, Hashable, Codable {
    /// Latitude in degrees, north positive, within -90...90.
    public var latitude: Double
    /// Longitude in degrees, east positive, within -180...180.
    public var longitude: Double

    /// Creates a coordinate.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether latitude is within -90...90 and longitude within -180...180.
    public var isOnEarth: Bool {
        (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }
}

/// One location fix from a GPS receiver, gpsd, a file or a simulated walk.
///
/// When ``mode`` is ``FixMode/none`` the fix has no ``coordinate``: a consumer never
/// sees stale coordinates presented as current.
public struct LocationFix: Sendable, Hashable {
    /// When the fix was delivered, on the monotonic clock.
    public var timestamp: Timestamp
    /// The fix's own UTC time, in nanoseconds since 1970-01-01T00:00:00Z, where the receiver gave one.
    public var utcNanoseconds: Int64?
    /// The fix quality.
    public var mode: FixMode
    /// The position; `nil` exactly when ``mode`` is ``FixMode/none``.
    public var coordinate: GeoCoordinate?
    /// Altitude above mean sea level in metres, for 3D fixes.
    public var altitude: Double?
    /// Estimated horizontal error in metres (1σ radius).
    public var horizontalAccuracy: Double?
    /// Estimated vertical error in metres (1σ).
    public var verticalAccuracy: Double?
    /// Speed over ground in metres per second.
    public var speed: Double?
    /// Course over ground in degrees clockwise from true north, 0..<360.
    public var course: Double?
    /// Satellites used in the fix.
    public var satellites: Int?

    /// Creates a fix.
    public init(
        timestamp: Timestamp,
        utcNanoseconds: Int64? = nil,
        mode: FixMode,
        coordinate: GeoCoordinate?,
        altitude: Double? = nil,
        horizontalAccuracy: Double? = nil,
        verticalAccuracy: Double? = nil,
        speed: Double? = nil,
        course: Double? = nil,
        satellites: Int? = nil
    ) {
        self.timestamp = timestamp
        self.utcNanoseconds = utcNanoseconds
        self.mode = mode
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.satellites = satellites
    }

    /// A fix that says the receiver has no position.
    public static func noFix(at timestamp: Timestamp, utcNanoseconds: Int64? = nil) -> LocationFix {
        LocationFix(timestamp: timestamp, utcNanoseconds: utcNanoseconds, mode: .none, coordinate: nil)
    }
}

extension GeoCoordinate {
    /// The members a coordinate is written as in the package's JSON files (places libraries, walk points, stored
    /// entries): `lat` and `lon`, in degrees, beside the object's other members.
    public enum MemberKeys: String, CodingKey {
        /// Latitude, degrees.
        case lat
        /// Longitude, degrees.
        case lon
    }

    /// The coordinate in the `lat` and `lon` members of the object `decoder` is at; `nil` when it has neither. One
    /// without the other is an error that names the missing member.
    public static func members(of decoder: any Decoder) throws -> GeoCoordinate? {
        let container = try decoder.container(keyedBy: MemberKeys.self)
        let latitude = try container.decodeIfPresent(Double.self, forKey: .lat)
        let longitude = try container.decodeIfPresent(Double.self, forKey: .lon)
        switch (latitude, longitude) {
        case (nil, nil): return nil
        case (let latitude?, let longitude?): return GeoCoordinate(latitude: latitude, longitude: longitude)
        case (nil, _):
            throw DecodingError.keyNotFound(
                MemberKeys.lat, .init(codingPath: decoder.codingPath, debugDescription: "a position has a latitude 'lat' with its 'lon'"))
        case (_, nil):
            throw DecodingError.keyNotFound(
                MemberKeys.lon, .init(codingPath: decoder.codingPath, debugDescription: "a position has a longitude 'lon' with its 'lat'"))
        }
    }

    /// Writes the coordinate as `lat` and `lon` members of the object `encoder` writes.
    public func encodeMembers(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKeys.self)
        try container.encode(latitude, forKey: .lat)
        try container.encode(longitude, forKey: .lon)
    }
}
