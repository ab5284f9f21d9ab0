import AppCore
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
/// Points are bucketed in a grid of cells about ``cellSize`` metres on a side: latitude rows of equal
/// height, each cut into as many equal longitude columns as fit around its pole-most edge (so columns
/// tile the circle exactly, across the antimeridian). A lookup visits the cells the query circle's
/// bounding box covers (every column where the circle reaches a pole) and measures great-circle
/// distance (haversine) to their points; a lookup that would visit more cells than there are points
/// scans them instead. Cost grows with the points near the query, not with the index: at 100,000
/// places see `docs/performance.md`.
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
    ///
    /// A lookup that would visit more cells than there are points scans the points instead.
    public func points(within radius: Double, of point: GeoCoordinate) -> [Hit] {
        var hits: [Hit] = []
        let latitudeSpan = radius / Self.metresPerDegree
        let firstRow = row(of: max(-90, point.latitude - latitudeSpan))
        let lastRow = row(of: min(90, point.latitude + latitudeSpan))
        // The query circle's longitude half-width at its pole-most latitude.
        let edge = abs(point.latitude) + latitudeSpan
        let longitudeSpan = edge >= 90 ? 180 : min(180, latitudeSpan / cos(edge * .pi / 180))
        var cellsToVisit = 0
        for row in firstRow...lastRow where cellsToVisit <= points.count {
            cellsToVisit += min(Int(Self.columnCount(row: row, rowHeight: rowHeight)), Int(2 * longitudeSpan / columnWidth(row: row)) + 2)
        }
        if cellsToVisit > points.count {
            for (index, candidate) in points.enumerated() {
                let distance = point.greatCircleDistance(to: candidate)
                if distance <= radius { hits.append(Hit(index: index, distance: distance)) }
            }
        } else {
            for row in firstRow...lastRow {
                let width = columnWidth(row: row)
                let count = Self.columnCount(row: row, rowHeight: rowHeight)
                var first = Int32(((point.longitude - longitudeSpan + 180) / width).rounded(.down))
                var last = Int32(((point.longitude + longitudeSpan + 180) / width).rounded(.down))
                if last - first + 1 >= count {  // all the way round: every column once
                    first = 0
                    last = count - 1
                }
                for column in first...last {
                    guard let bucket = cells[CellKey(row: row, column: Self.wrap(column, count: count))] else { continue }
                    for index in bucket {
                        let distance = point.greatCircleDistance(to: points[Int(index)])
                        if distance <= radius { hits.append(Hit(index: Int(index), distance: distance)) }
                    }
                }
            }
        }
        hits.sort { $0.distance < $1.distance || ($0.distance == $1.distance && $0.index < $1.index) }
        return hits
    }

    private func row(of latitude: Double) -> Int32 {
        Int32(((latitude + 90) / rowHeight).rounded(.down))
    }

    /// Columns per row: as many as fit round the row's pole-most edge at ``cellSize`` each, so that
    /// columns tile the circle exactly and a cell is never narrower than ``cellSize``.
    private static func columnCount(row: Int32, rowHeight: Double) -> Int32 {
        let south = Double(row) * rowHeight - 90, north = south + rowHeight
        let edge = min(89.9, max(abs(south), abs(north)))
        return max(1, Int32(min(1e9, (360 * cos(edge * .pi / 180) / rowHeight).rounded(.down))))
    }

    private func columnWidth(row: Int32) -> Double {
        360 / Double(Self.columnCount(row: row, rowHeight: rowHeight))
    }

    private func key(of point: GeoCoordinate) -> CellKey {
        let row = row(of: point.latitude)
        let column = Int32(((point.longitude + 180) / columnWidth(row: row)).rounded(.down))
        return CellKey(row: row, column: Self.wrap(column, count: Self.columnCount(row: row, rowHeight: rowHeight)))
    }

    /// Columns wrap at the antimeridian.
    private static func wrap(_ column: Int32, count: Int32) -> Int32 {
        let wrapped = column % count
        return wrapped < 0 ? wrapped + count : wrapped
    }
}
