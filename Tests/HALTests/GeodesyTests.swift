import Foundation
import HAL
import TestSupport
import Testing

@Suite struct GeodesyTests {
    static func dms(_ degrees: Double, _ minutes: Double, _ seconds: Double) -> Double {
        (abs(degrees) + minutes / 60 + seconds / 3600) * (degrees < 0 ? -1 : 1)
    }

    /// Geoscience Australia's published example (GDA/GRS80, which differs from WGS84 by far
    /// less than a millimetre here): Flinders Peak to Buninyong, 54 972.271 m,
    /// azimuth 306°52′05.37″, reverse azimuth 127°10′25.07″.
    @Test func flindersPeakToBuninyong() throws {
        let flinders = GeoCoordinate(latitude: Self.dms(-37, 57, 3.72030), longitude: Self.dms(144, 25, 29.52440))
        let buninyong = GeoCoordinate(latitude: Self.dms(-37, 39, 10.15610), longitude: Self.dms(143, 55, 35.38390))
        let geodesic = try flinders.geodesic(to: buninyong)
        #expect(abs(geodesic.distance - 54_972.271) < 0.001)
        #expect(abs(geodesic.initialBearing - Self.dms(306, 52, 5.37)) < 0.01 / 3600)
        #expect(abs(geodesic.finalBearing - (Self.dms(127, 10, 25.07) + 180)) < 0.01 / 3600)
        let there = flinders.destination(distance: 54_972.271, bearing: Self.dms(306, 52, 5.37))
        #expect(there.enu(of: buninyong).magnitude < 0.001)
    }

    /// 300 geodesics from campus scale to across the globe, computed by GeographicLib
    /// (`Fixtures/make-geodesic-reference.py`): Vincenty agrees to a tenth of a millimetre.
    @Test func agreesWithGeographicLib() throws {
        let text = try String(contentsOfFile: packageRoot + "/Tests/HALTests/Fixtures/geodesic-reference.csv", encoding: .utf8)
        var worstDistance = 0.0, worstBearing = 0.0, worstDestination = 0.0
        for line in text.split(separator: "\n").dropFirst() {
            let v = line.split(separator: ",").map { Double($0)! }
            let from = GeoCoordinate(latitude: v[0], longitude: v[1]), to = GeoCoordinate(latitude: v[2], longitude: v[3])
            let geodesic = try from.geodesic(to: to)
            worstDistance = max(worstDistance, abs(geodesic.distance - v[4]))
            if v[4] > 1 {
                let difference = abs(geodesic.initialBearing - v[5])
                worstBearing = max(worstBearing, min(difference, 360 - difference))
            }
            worstDestination = max(worstDestination, from.destination(distance: v[4], bearing: v[5]).enu(of: to).magnitude)
        }
        #expect(worstDistance < 1e-4, "worst distance error \(worstDistance) m")
        #expect(worstBearing < 1e-6, "worst bearing error \(worstBearing)°")
        #expect(worstDestination < 1e-3, "worst destination error \(worstDestination) m")
    }

    @Test func nearlyAntipodalPointsSayTheyCannotConverge() throws {
        let here = GeoCoordinate(latitude: 0, longitude: 0)
        let almostOpposite = GeoCoordinate(latitude: 0.5, longitude: 179.7)
        #expect(throws: GeodesyError.noConvergence) { try here.geodesic(to: almostOpposite) }
        #expect(throws: GeodesyError.noConvergence) { try here.geodesic(to: GeoCoordinate(latitude: 0, longitude: 180)) }
        #expect(try here.geodesic(to: here).distance == 0)
        // The distance falls back to the mean sphere, within 0.5 % of the true 19 936 km or so.
        #expect(abs(here.distance(to: almostOpposite) - 19_936_000) / 19_936_000 < 0.005)
    }

    @Test func localENUIsExactNotFlat() {
        // Two points on UBC's campus about 590 m apart, the second west-north-west of the first.
        let clockTower = GeoCoordinate(latitude: 49.26715, longitude: -123.25194)
        let museum = GeoCoordinate(latitude: 49.26958, longitude: -123.25910)
        let enu = clockTower.enu(of: museum)
        let geodesic = try! clockTower.geodesic(to: museum)
        #expect(enu.x < 0 && enu.y > 0)
        #expect(abs((enu.x * enu.x + enu.y * enu.y).squareRoot() - geodesic.distance) < 0.01)
        let bearing = atan2(enu.x, enu.y) * 180 / .pi + 360
        #expect(abs(bearing - geodesic.initialBearing) < 0.01)
        // A point 100 m straight up is straight up.
        let above = clockTower.enu(of: clockTower, altitude: 0, otherAltitude: 100)
        #expect(abs(above.z - 100) < 1e-6 && abs(above.x) < 1e-6 && abs(above.y) < 1e-6)
    }
}
