import LibC
/// The WGS84 ellipsoid, and geodesics on it by Vincenty's formulae.
///
/// Vincenty's inverse and direct solutions are accurate to about 0.5 mm on the ellipsoid.
/// The inverse iteration does not converge for nearly antipodal points (within about
/// 0.5° of the antipode); it then throws ``GeodesyError/noConvergence`` rather than
/// answer wrongly.
public enum WGS84 {
    /// Semi-major axis, metres.
    public static let semiMajorAxis = 6_378_137.0
    /// Flattening.
    public static let flattening = 1 / 298.257223563
    /// Semi-minor axis, metres.
    public static let semiMinorAxis = semiMajorAxis * (1 - flattening)
    /// First eccentricity squared.
    public static let eccentricitySquared = flattening * (2 - flattening)
}

/// Why a geodesic could not be computed.
public enum GeodesyError: Error, Sendable, Hashable {
    /// Vincenty's inverse iteration did not converge: the points are nearly antipodal.
    case noConvergence
}

/// The solution of the inverse geodesic problem between two points.
public struct Geodesic: Sendable, Hashable {
    /// The ellipsoidal distance, metres.
    public var distance: Double
    /// The bearing at the start, degrees clockwise from true north, 0..<360.
    public var initialBearing: Double
    /// The bearing on arrival, degrees clockwise from true north, 0..<360.
    public var finalBearing: Double
}

extension GeoCoordinate {
    private static let degrees = 180 / Double.pi

    /// The geodesic (shortest path on the WGS84 ellipsoid) to `other`.
    public func geodesic(to other: GeoCoordinate) throws(GeodesyError) -> Geodesic {
        let b = WGS84.semiMinorAxis, f = WGS84.flattening
        let phi1 = latitude / Self.degrees, phi2 = other.latitude / Self.degrees
        let difference = remainder(other.longitude - longitude, 360) / Self.degrees
        let u1 = atan((1 - f) * tan(phi1)), u2 = atan((1 - f) * tan(phi2))
        let (sinU1, cosU1, sinU2, cosU2) = (sin(u1), cos(u1), sin(u2), cos(u2))
        var lambda = difference
        var (sinSigma, cosSigma, sigma, cosSquaredAlpha, cos2SigmaM) = (0.0, 0.0, 0.0, 0.0, 0.0)
        var converged = false
        for _ in 0..<200 {
            let (sinLambda, cosLambda) = (sin(lambda), cos(lambda))
            let term = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
            sinSigma = ((cosU2 * sinLambda) * (cosU2 * sinLambda) + term * term).squareRoot()
            if sinSigma == 0 {
                // Coincident points; exactly antipodal ones have no unique geodesic for Vincenty.
                guard sinU1 * sinU2 + cosU1 * cosU2 * cos(lambda) > 0 else { throw .noConvergence }
                return Geodesic(distance: 0, initialBearing: 0, finalBearing: 0)
            }
            cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            cosSquaredAlpha = 1 - sinAlpha * sinAlpha
            cos2SigmaM = cosSquaredAlpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cosSquaredAlpha : 0
            let previous = lambda
            lambda = difference + Self.longitudeDifference(
                cosSquaredAlpha: cosSquaredAlpha, sinAlpha: sinAlpha, sigma: sigma, sinSigma: sinSigma, cosSigma: cosSigma,
                cos2SigmaM: cos2SigmaM)
            if abs(lambda - previous) < 1e-12 {
                converged = true
                break
            }
        }
        guard converged, abs(lambda) <= .pi * 1.0001 else { throw .noConvergence }
        let (bigA, bigB) = Self.series(cosSquaredAlpha: cosSquaredAlpha)
        let deltaSigma = Self.deltaSigma(bigB: bigB, sinSigma: sinSigma, cosSigma: cosSigma, cos2SigmaM: cos2SigmaM)
        let distance = b * bigA * (sigma - deltaSigma)
        let (sinLambda, cosLambda) = (sin(lambda), cos(lambda))
        let initial = atan2(cosU2 * sinLambda, cosU1 * sinU2 - sinU1 * cosU2 * cosLambda)
        let final = atan2(cosU1 * sinLambda, -sinU1 * cosU2 + cosU1 * sinU2 * cosLambda)
        return Geodesic(distance: distance, initialBearing: Self.compass(initial), finalBearing: Self.compass(final))
    }

    /// The ellipsoidal distance to `other` in metres. For nearly antipodal points, where
    /// Vincenty's iteration fails, it is the great-circle distance on the mean sphere
    /// instead, within 0.5 % of the geodesic.
    public func distance(to other: GeoCoordinate) -> Double {
        if let geodesic = try? geodesic(to: other) { return geodesic.distance }
        return greatCircleDistance(to: other)
    }

    /// The initial bearing to `other`, degrees clockwise from true north.
    public func bearing(to other: GeoCoordinate) -> Double {
        (try? geodesic(to: other).initialBearing) ?? 0
    }

    /// The great-circle distance on a sphere of the WGS84 mean radius (haversine), metres.
    public func greatCircleDistance(to other: GeoCoordinate) -> Double {
        Prepared(self).greatCircleDistance(to: Prepared(other))
    }

    /// The radius of the sphere great-circle distances are measured on: WGS84's mean radius, (2a + b) / 3.
    public static let meanRadius = (2 * WGS84.semiMajorAxis + WGS84.semiMinorAxis) / 3

    /// A point with what every haversine distance from it needs worked out once: its latitude in radians and
    /// that latitude's cosine. An index that measures many distances to the same points keeps these, and gets
    /// the same distances as ``GeoCoordinate/greatCircleDistance(to:)``, which is built on it.
    public struct Prepared: Sendable, Hashable {
        /// The latitude, radians.
        public let phi: Double
        /// The cosine of the latitude.
        public let cosPhi: Double
        /// The longitude, degrees.
        public let longitude: Double

        /// Prepares `coordinate`.
        public init(_ coordinate: GeoCoordinate) {
            phi = coordinate.latitude / GeoCoordinate.degrees
            cosPhi = cos(phi)
            longitude = coordinate.longitude
        }

        /// The great-circle distance to `other` (haversine on the mean sphere), metres.
        public func greatCircleDistance(to other: Prepared) -> Double {
            let dPhi = other.phi - phi, dLambda = (other.longitude - longitude) / GeoCoordinate.degrees
            let h = sin(dPhi / 2) * sin(dPhi / 2) + cosPhi * other.cosPhi * sin(dLambda / 2) * sin(dLambda / 2)
            return 2 * GeoCoordinate.meanRadius * asin(min(1, h.squareRoot()))
        }
    }

    /// The point reached by travelling `distance` metres from here along the geodesic that
    /// starts at `bearing` (degrees clockwise from north): Vincenty's direct solution.
    public func destination(distance: Double, bearing: Double) -> GeoCoordinate {
        let b = WGS84.semiMinorAxis, f = WGS84.flattening
        let alpha1 = bearing / Self.degrees
        let (sinAlpha1, cosAlpha1) = (sin(alpha1), cos(alpha1))
        let tanU1 = (1 - f) * tan(latitude / Self.degrees)
        let cosU1 = 1 / (1 + tanU1 * tanU1).squareRoot(), sinU1 = tanU1 * cosU1
        let sigma1 = atan2(tanU1, cosAlpha1)
        let sinAlpha = cosU1 * sinAlpha1
        let cosSquaredAlpha = 1 - sinAlpha * sinAlpha
        let (bigA, bigB) = Self.series(cosSquaredAlpha: cosSquaredAlpha)
        var sigma = distance / (b * bigA)
        var (sinSigma, cosSigma, cos2SigmaM) = (0.0, 0.0, 0.0)
        for _ in 0..<200 {
            cos2SigmaM = cos(2 * sigma1 + sigma)
            sinSigma = sin(sigma)
            cosSigma = cos(sigma)
            let deltaSigma = Self.deltaSigma(bigB: bigB, sinSigma: sinSigma, cosSigma: cosSigma, cos2SigmaM: cos2SigmaM)
            let previous = sigma
            sigma = distance / (b * bigA) + deltaSigma
            if abs(sigma - previous) < 1e-12 { break }
        }
        sinSigma = sin(sigma)
        cosSigma = cos(sigma)
        cos2SigmaM = cos(2 * sigma1 + sigma)
        let term = sinU1 * sinSigma - cosU1 * cosSigma * cosAlpha1
        let phi2 = atan2(sinU1 * cosSigma + cosU1 * sinSigma * cosAlpha1, (1 - f) * (sinAlpha * sinAlpha + term * term).squareRoot())
        let lambda = atan2(sinSigma * sinAlpha1, cosU1 * cosSigma - sinU1 * sinSigma * cosAlpha1)
        let l = lambda - Self.longitudeDifference(
            cosSquaredAlpha: cosSquaredAlpha, sinAlpha: sinAlpha, sigma: sigma, sinSigma: sinSigma, cosSigma: cosSigma,
            cos2SigmaM: cos2SigmaM)
        var longitude2 = longitude + l * Self.degrees
        longitude2 = (longitude2 + 540).truncatingRemainder(dividingBy: 360) - 180
        return GeoCoordinate(latitude: phi2 * Self.degrees, longitude: longitude2)
    }

    // Vincenty's series, shared by the inverse and direct solutions.

    /// Vincenty's A and B for a geodesic whose azimuth at the equator has `cosSquaredAlpha`.
    private static func series(cosSquaredAlpha: Double) -> (bigA: Double, bigB: Double) {
        let a = WGS84.semiMajorAxis, b = WGS84.semiMinorAxis
        let uSquared = cosSquaredAlpha * (a * a - b * b) / (b * b)
        let bigA = 1 + uSquared / 16384 * (4096 + uSquared * (-768 + uSquared * (320 - 175 * uSquared)))
        let bigB = uSquared / 1024 * (256 + uSquared * (-128 + uSquared * (74 - 47 * uSquared)))
        return (bigA, bigB)
    }

    /// Vincenty's Δσ.
    private static func deltaSigma(bigB: Double, sinSigma: Double, cosSigma: Double, cos2SigmaM: Double) -> Double {
        bigB * sinSigma * (cos2SigmaM + bigB / 4 * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
            - bigB / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
    }

    /// How far the ellipsoid's longitude difference exceeds the auxiliary sphere's (λ − L).
    private static func longitudeDifference(
        cosSquaredAlpha: Double, sinAlpha: Double, sigma: Double, sinSigma: Double, cosSigma: Double, cos2SigmaM: Double
    ) -> Double {
        let f = WGS84.flattening
        let c = f / 16 * cosSquaredAlpha * (4 + f * (4 - 3 * cosSquaredAlpha))
        return (1 - c) * f * sinAlpha
            * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
    }

    private static func compass(_ radians: Double) -> Double {
        let degrees = radians * Self.degrees
        let wrapped = degrees.truncatingRemainder(dividingBy: 360)
        return wrapped < 0 ? wrapped + 360 : wrapped
    }

    /// Earth-centred, earth-fixed coordinates (metres) of this point at `altitude` metres above the ellipsoid.
    public func ecef(altitude: Double = 0) -> Vector3 {
        let phi = latitude / Self.degrees, lambda = longitude / Self.degrees
        let n = WGS84.semiMajorAxis / (1 - WGS84.eccentricitySquared * sin(phi) * sin(phi)).squareRoot()
        return Vector3(
            x: (n + altitude) * cos(phi) * cos(lambda), y: (n + altitude) * cos(phi) * sin(lambda),
            z: (n * (1 - WGS84.eccentricitySquared) + altitude) * sin(phi))
    }

    /// The local east-north-up offset (metres) of `other` seen from this point, both at the given
    /// heights above the ellipsoid: exact through ECEF, not a flat-earth approximation.
    public func enu(of other: GeoCoordinate, altitude: Double = 0, otherAltitude: Double = 0) -> Vector3 {
        let d = other.ecef(altitude: otherAltitude) - ecef(altitude: altitude)
        let phi = latitude / Self.degrees, lambda = longitude / Self.degrees
        return Vector3(
            x: -sin(lambda) * d.x + cos(lambda) * d.y,
            y: -sin(phi) * cos(lambda) * d.x - sin(phi) * sin(lambda) * d.y + cos(phi) * d.z,
            z: cos(phi) * cos(lambda) * d.x + cos(phi) * sin(lambda) * d.y + sin(phi) * d.z)
    }
}
