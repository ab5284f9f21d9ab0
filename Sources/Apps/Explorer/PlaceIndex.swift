public import HAL
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A spatial index of points on the earth, for "what is within r metres of here" lookups.
///
/// Points are bucketed in a grid of cells about ``cellSize`` metres on a side (latitude rows of equal
/// height; longitude columns as wide in degrees as the cell is at the row's pole-most edge, so
/// a cell is never narrower than ``cellSize``). A lookup visits the cells the query circle's
/// bounding box covers and measures great-circle distance to their points. Cost grows with the
/// points near the query, not with the index: at 100,000 places see `docs/performance.md`.
public struct PlaceIndex: Sendable {
    /// A point found by a lookup.
    public struct Hit: Sendable, Hashable {
        /// The point's position in the array the index was built from.
        public var index: Int
        /// Great-circle distance from the query point, metres.
        public var distance: Double
    }

    /// The cell side in metres.
    public let cellSize: Double
    /// The points, in the order given.
    public let points: [GeoCoordinate]
    private let rowHeight: Double
    private var cells: [CellKey: [Int32]] = [:]

    private struct CellKey: Hashable, Sendable {
        var row: Int32
        var column: Int32
    }

    private static let metresPerDegree = 111_195.0  // on the WGS84 mean sphere

    /// Builds an index. `cellSize` should be about the radius of typical lookups.
    public init(points: [GeoCoordinate], cellSize: Double = 100) {
        self.cellSize = cellSize
        self.points = points
        rowHeight = cellSize / Self.metresPerDegree
        for (index, point) in points.enumerated() {
            cells[key(of: point), default: []].append(Int32(index))
        }
    }

    /// Every point within `radius` metres of `point`, nearest first.
    public func points(within radius: Double, of point: GeoCoordinate) -> [Hit] {
        var hits: [Hit] = []
        let latitudeSpan = radius / Self.metresPerDegree
        let firstRow = row(of: max(-90, point.latitude - latitudeSpan))
        let lastRow = row(of: min(90, point.latitude + latitudeSpan))
        for row in firstRow...lastRow {
            let width = columnWidth(row: row)
            // The query circle's longitude half-width at the row's widest latitude.
            let edge = min(89.9, max(abs(point.latitude) + latitudeSpan, 0))
            let longitudeSpan = min(180, latitudeSpan / max(cos(edge * .pi / 180), 1e-6))
            var firstColumn = Int32(((point.longitude - longitudeSpan) / width).rounded(.down))
            var lastColumn = Int32(((point.longitude + longitudeSpan) / width).rounded(.down))
            let count = Self.columnCount(width: width)
            if lastColumn - firstColumn + 1 >= count {  // the circle goes all the way round: every column once
                firstColumn = -count / 2
                lastColumn = firstColumn + count - 1
            }
            for column in firstColumn...lastColumn {
                guard let bucket = cells[CellKey(row: row, column: Self.wrap(column, width: width))] else { continue }
                for index in bucket {
                    let distance = point.greatCircleDistance(to: points[Int(index)])
                    if distance <= radius { hits.append(Hit(index: Int(index), distance: distance)) }
                }
            }
        }
        hits.sort { $0.distance < $1.distance || ($0.distance == $1.distance && $0.index < $1.index) }
        return hits
    }

    private func row(of latitude: Double) -> Int32 {
        Int32(((latitude + 90) / rowHeight).rounded(.down))
    }

    /// Degrees of longitude per column in a row: a cell is `cellSize` wide at the row's pole-most edge.
    private func columnWidth(row: Int32) -> Double {
        let south = Double(row) * rowHeight - 90, north = south + rowHeight
        let edge = min(89.9, max(abs(south), abs(north)))
        return min(360, rowHeight / cos(edge * .pi / 180))
    }

    private func key(of point: GeoCoordinate) -> CellKey {
        let row = row(of: point.latitude)
        let width = columnWidth(row: row)
        return CellKey(row: row, column: Self.wrap(Int32((point.longitude / width).rounded(.down)), width: width))
    }

    private static func columnCount(width: Double) -> Int32 {
        Int32((360 / width).rounded(.up))
    }

    /// Columns wrap at the antimeridian.
    private static func wrap(_ column: Int32, width: Double) -> Int32 {
        let count = columnCount(width: width)
        let shifted = (column + count / 2) % count
        return (shifted < 0 ? shifted + count : shifted) - count / 2
    }
}
