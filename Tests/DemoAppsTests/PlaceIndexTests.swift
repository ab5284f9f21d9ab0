import AppCore
import DemoApps
import HAL
import Interchange
import Replay
import Synthesis
import TraceFormat
import Testing

@Suite struct PlaceIndexTests {
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
}
