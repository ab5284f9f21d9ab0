import Foundation
import AppCore
import DemoApps
import HAL
import Testing

@Suite struct PlaceIndexTests {
    /// The explorer decides arrivals and departures by the index's distance on the sphere wherever that is more than
    /// 1 % from the bound, and by the ellipsoid's only near it: that is sound only while the two stay within 1 % of
    /// each other at the ranges it asks about, at every latitude and bearing.
    @Test func theSpheresDistanceIsWithinAPercentOfTheEllipsoidsAtLookupRanges() {
        var random = SeededRandom(seed: 5)
        var worst = 0.0
        for _ in 0..<20_000 {
            let start = GeoCoordinate(latitude: random.unit() * 178 - 89, longitude: random.unit() * 360 - 180)
            let end = start.destination(distance: 1 + random.unit() * 2_000, bearing: random.unit() * 360)
            let ellipsoid = start.distance(to: end), sphere = start.greatCircleDistance(to: end)
            worst = max(worst, abs(sphere - ellipsoid) / ellipsoid)
        }
        #expect(worst < 0.006, "\(worst)")
        // Far enough from 1 % that the bound has room, and the check sees a real difference.
        #expect(worst > 0.003, "\(worst)")
    }

    /// Random points: a dense campus, plus the whole globe including the poles and the antimeridian.
    static func points(seed: UInt64) -> [GeoCoordinate] {
        var random = SeededRandom(seed: seed)
        var points: [GeoCoordinate] = []
        for _ in 0..<3000 {
            points.append(GeoCoordinate(latitude: 49.26 + random.unit() * 0.02, longitude: -123.26 + random.unit() * 0.03))
        }
        for _ in 0..<3000 {
            points.append(GeoCoordinate(latitude: random.unit() * 180 - 90, longitude: random.unit() * 360 - 180))
        }
        for longitude in [-180.0, -179.9995, 179.9995, 180] { points.append(GeoCoordinate(latitude: 10, longitude: longitude)) }
        points.append(GeoCoordinate(latitude: 90, longitude: 0))
        points.append(GeoCoordinate(latitude: 89.9995, longitude: 120))
        return points
    }

    @Test func lookupsFindExactlyWhatALinearScanFinds() {
        let points = Self.points(seed: 5)
        let index = PlaceIndex(points: points, cellSize: 100)
        var random = SeededRandom(seed: 6)
        var queries = (0..<300).map { _ in
            (GeoCoordinate(latitude: 49.26 + random.unit() * 0.02, longitude: -123.26 + random.unit() * 0.03), random.unit() * 300)
        }
        queries += [
            (GeoCoordinate(latitude: 10, longitude: 179.9999), 100), (GeoCoordinate(latitude: 10, longitude: -179.9999), 100),
            (GeoCoordinate(latitude: 90, longitude: 0), 200), (GeoCoordinate(latitude: 89.9999, longitude: -60), 150),
            (GeoCoordinate(latitude: 0, longitude: 0), 2_000_000),
        ]
        for (point, radius) in queries {
            let scan = points.indices.filter { point.greatCircleDistance(to: points[$0]) <= radius }
            let found = index.points(within: radius, of: point)
            #expect(found.map(\.index).sorted() == scan, "\(point) r=\(radius)")
            #expect(zip(found, found.dropFirst()).allSatisfy { $0.distance <= $1.distance })
        }
    }

    /// The sphere's initial bearing, degrees 0..<360, by the textbook formula.
    static func sphericalBearing(from a: GeoCoordinate, to b: GeoCoordinate) -> Double {
        let phi1 = a.latitude * .pi / 180, phi2 = b.latitude * .pi / 180, dLambda = (b.longitude - a.longitude) * .pi / 180
        let y: Double = sin(dLambda) * cos(phi2)
        let x: Double = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda)
        let degrees = atan2(y, x) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    static func offset(_ a: Double, _ b: Double) -> Double {
        let difference = abs(a - b).truncatingRemainder(dividingBy: 360)
        return difference > 180 ? 360 - difference : difference
    }

    @Test func aConeLookupFindsThePointsAlongABearingAndEveryOneTheEllipsoidPutsInside() {
        let points = Self.points(seed: 7)
        let index = PlaceIndex(points: points, cellSize: 100)
        var random = SeededRandom(seed: 8)
        for _ in 0..<200 {
            let point = GeoCoordinate(latitude: 49.26 + random.unit() * 0.02, longitude: -123.26 + random.unit() * 0.03)
            let radius = 50 + random.unit() * 250, bearing = random.unit() * 360, halfAngle = 5 + random.unit() * 20
            let found = Set(index.points(within: radius, of: point, bearing: bearing, halfAngle: halfAngle).map(\.index))
            for candidate in points.indices where point.greatCircleDistance(to: points[candidate]) <= radius {
                let distance = point.greatCircleDistance(to: points[candidate])
                guard distance > 0.01 else { continue }
                let sphere = Self.offset(Self.sphericalBearing(from: point, to: points[candidate]), bearing)
                // The sphere's bearing decides, up to rounding right at the cone's edge.
                if abs(sphere - halfAngle) > 1e-6 {
                    #expect(found.contains(candidate) == (sphere <= halfAngle), "\(point) → \(points[candidate]) at \(sphere)°")
                }
                // A degree more always holds every point the ellipsoid's bearing puts inside.
                if Self.offset(point.bearing(to: points[candidate]), bearing) <= halfAngle - 1 {
                    #expect(found.contains(candidate), "\(point) → \(points[candidate])")
                }
            }
        }
    }
}
