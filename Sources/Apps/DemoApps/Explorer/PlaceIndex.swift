import LibC
import AppCore
public import HAL

/// A spatial index of points on the earth, for "what is within r metres of here" lookups.
///
/// Points are bucketed in a grid of cells about ``cellSize`` metres on a side: latitude rows of equal
/// height, each cut into as many equal longitude columns as fit around its pole-most edge (so columns
/// tile the circle exactly, across the antimeridian). A lookup visits the cells the query circle's
/// bounding box covers (every column where the circle reaches a pole); a lookup that would visit more
/// cells than there are points scans them instead.
///
/// Each candidate is first checked by the straight-line (chord) distance between unit vectors, which
/// needs no trigonometry and is the haversine's own quantity: a point passes when its chord is within
/// the radius's chord (plus 1e-9 of it, far above rounding). Only those get the haversine distance
/// (``HAL/GeoCoordinate/Prepared``, with each point's latitude and its cosine kept), which decides, so
/// the hits are exactly those of ``HAL/GeoCoordinate/greatCircleDistance(to:)``. The points of a cell
/// are stored together. Cost grows with the points near the query, not with the index: at 100,000
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
    /// Each cell's run of ``entries``.
    private var cells: [CellKey: (start: Int32, end: Int32)] = [:]
    /// The points' unit vectors and indexes, cell by cell.
    private var entries: [Entry] = []
    /// The points prepared for the haversine, by index.
    private let prepared: [GeoCoordinate.Prepared]
    /// The first row holding a point, and ``columnCount(row:rowHeight:)`` of it and of each row up to the last one
    /// holding a point: a lookup near the points finds its rows' column counts here instead of a cosine each.
    private var firstCountedRow: Int32 = 0
    private var columnCounts: [Int32] = []

    private struct CellKey: Hashable, Sendable {
        var row: Int32
        var column: Int32

        /// One 64-bit word into the hasher, not two.
        func hash(into hasher: inout Hasher) {
            hasher.combine(UInt64(UInt32(bitPattern: row)) << 32 | UInt64(UInt32(bitPattern: column)))
        }
    }

    private struct Entry: Sendable {
        var x: Double, y: Double, z: Double
        var index: Int
    }

    private static let metresPerDegree = 111_195.0  // on the WGS84 mean sphere

    /// Builds an index. `cellSize` should be about the radius of typical lookups.
    public init(points: [GeoCoordinate], cellSize: Double = 100) {
        self.cellSize = cellSize
        self.points = points
        rowHeight = cellSize / Self.metresPerDegree
        prepared = points.map(GeoCoordinate.Prepared.init)
        var members: [CellKey: [Int]] = [:]
        var order: [CellKey] = []
        for (index, point) in points.enumerated() {
            let key = key(of: point)
            if members[key] == nil { order.append(key) }
            members[key, default: []].append(index)
        }
        entries.reserveCapacity(points.count)
        for key in order {
            let start = Int32(entries.count)
            for index in members[key]! {
                let (x, y, z) = Angles(points[index]).unitVector
                entries.append(Entry(x: x, y: y, z: z, index: index))
            }
            cells[key] = (start, Int32(entries.count))
        }
        // At most a million rows (4 MB): points spread over the globe in metre cells compute their counts instead.
        if let first = order.map(\.row).min(), let last = order.map(\.row).max(), Int(last) - Int(first) < 1 << 20 {
            firstCountedRow = first
            columnCounts = (first...last).map { Self.columnCount(row: $0, rowHeight: rowHeight) }
        }
    }

    /// The sines and cosines of a point's latitude and longitude.
    private struct Angles {
        var sinPhi: Double, cosPhi: Double, sinLambda: Double, cosLambda: Double

        init(_ point: GeoCoordinate) {
            let phi = point.latitude * .pi / 180, lambda = point.longitude * .pi / 180
            (sinPhi, cosPhi, sinLambda, cosLambda) = (sin(phi), cos(phi), sin(lambda), cos(lambda))
        }

        /// The point on the unit sphere.
        var unitVector: (Double, Double, Double) { (cosPhi * cosLambda, cosPhi * sinLambda, sinPhi) }
    }

    /// Every point within `radius` metres of `point`, nearest first.
    ///
    /// A lookup that would visit more cells than there are points scans the points instead.
    public func points(within radius: Double, of point: GeoCoordinate) -> [Hit] {
        points(within: radius, of: point, cone: nil)
    }

    /// Every point within `radius` metres of `point` whose bearing from it is within `halfAngle` degrees of
    /// `bearing` (degrees clockwise from north), nearest first: what a device pointing that way may be pointing at.
    ///
    /// The bearing is the great circle's initial bearing on the sphere, found from the unit vectors without
    /// trigonometry: it is within a fraction of a degree of the ellipsoid's (``HAL/GeoCoordinate/bearing(to:)``)
    /// at the ranges a device points, so a caller that decides by the ellipsoid's bearing asks for a degree
    /// more and checks the few that come back. Points closer than a millimetre have no bearing and are left out.
    public func points(within radius: Double, of point: GeoCoordinate, bearing: Double, halfAngle: Double) -> [Hit] {
        points(within: radius, of: point, cone: (bearing, halfAngle))
    }

    private func points(within radius: Double, of point: GeoCoordinate, cone: (bearing: Double, halfAngle: Double)?) -> [Hit] {
        var hits: [Hit] = []
        guard radius >= 0, !points.isEmpty else { return hits }
        hits.reserveCapacity(16)  // one allocation for a typical lookup, not one per doubling
        let query = GeoCoordinate.Prepared(point)
        // The chord of the radius's arc, squared, with a margin: chord² = 4·sin²(θ/2) is the haversine's h·4.
        let halfArc = min(Double.pi / 2, radius / GeoCoordinate.meanRadius / 2)
        let chordLimit = 4 * sin(halfArc) * sin(halfArc) * (1 + 1e-9) + 1e-300
        let angles = Angles(point)
        let (qx, qy, qz) = angles.unitVector
        // For a cone: the pointing direction in the tangent plane at the query, and the cosine of the half-angle.
        // The chord's component in that plane points along the great circle's initial bearing.
        var direction = (x: 0.0, y: 0.0, z: 0.0), cosHalfAngle = -2.0
        if let cone {
            let heading = cone.bearing * .pi / 180, (sinHeading, cosHeading) = (sin(heading), cos(heading))
            let east = (x: -angles.sinLambda, y: angles.cosLambda, z: 0.0)
            let north = (x: -angles.sinPhi * angles.cosLambda, y: -angles.sinPhi * angles.sinLambda, z: angles.cosPhi)
            direction = (east.x * sinHeading + north.x * cosHeading, east.y * sinHeading + north.y * cosHeading,
                         east.z * sinHeading + north.z * cosHeading)
            cosHalfAngle = cone.halfAngle >= 180 ? -2 : cos(max(0, cone.halfAngle) * .pi / 180)
        }
        // `hits` goes in as an argument: captured and mutated, it would be boxed and access-checked on every call.
        func check(_ entry: Entry, into hits: inout [Hit]) {
            let dx = entry.x - qx, dy = entry.y - qy, dz = entry.z - qz
            let chord = dx * dx + dy * dy + dz * dz
            guard chord <= chordLimit else { return }
            if cosHalfAngle > -2 {
                // The chord less its component along the query's vertical, against the pointing direction.
                let up = dx * qx + dy * qy + dz * qz
                let tx = dx - up * qx, ty = dy - up * qy, tz = dz - up * qz
                let length = (tx * tx + ty * ty + tz * tz).squareRoot()
                guard length > 1.5e-10,  // a millimetre on the unit sphere
                    tx * direction.x + ty * direction.y + tz * direction.z >= cosHalfAngle * length
                else { return }
            }
            let distance = query.greatCircleDistance(to: prepared[entry.index])
            if distance <= radius { hits.append(Hit(index: entry.index, distance: distance)) }
        }

        let latitudeSpan = radius / Self.metresPerDegree
        let firstRow = row(of: max(-90, point.latitude - latitudeSpan))
        let lastRow = row(of: min(90, point.latitude + latitudeSpan))
        // The query circle's longitude half-width at its pole-most latitude.
        let edge = abs(point.latitude) + latitudeSpan
        let longitudeSpan = edge >= 90 ? 180 : min(180, latitudeSpan / cos(edge * .pi / 180))
        // Columns are narrowest in the pole-most row: at most this many cells per row.
        let poleMostRow = abs(firstRow - row(of: 0)) > abs(lastRow - row(of: 0)) ? firstRow : lastRow
        let poleMostCount = columnCount(row: poleMostRow)
        let columnsPerRow = min(Int(poleMostCount), Int(2 * longitudeSpan / (360 / Double(poleMostCount))) + 2)
        if (Int(lastRow - firstRow) + 1) * columnsPerRow > points.count {
            for entry in entries { check(entry, into: &hits) }
        } else {
            for row in firstRow...lastRow {
                let count = columnCount(row: row)
                let width = 360 / Double(count)
                var first = Int32(((point.longitude - longitudeSpan + 180) / width).rounded(.down))
                var last = Int32(((point.longitude + longitudeSpan + 180) / width).rounded(.down))
                if last - first + 1 >= count {  // all the way round: every column once
                    first = 0
                    last = count - 1
                }
                for column in first...last {
                    guard let cell = cells[CellKey(row: row, column: Self.wrap(column, count: count))] else { continue }
                    for position in Int(cell.start)..<Int(cell.end) { check(entries[position], into: &hits) }
                }
            }
        }
        if hits.count > 1 { hits.sort { $0.distance < $1.distance || ($0.distance == $1.distance && $0.index < $1.index) } }
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

    /// ``columnCount(row:rowHeight:)``, from the rows counted at build time where it can.
    private func columnCount(row: Int32) -> Int32 {
        let offset = Int(row) - Int(firstCountedRow)
        return columnCounts.indices.contains(offset) ? columnCounts[offset] : Self.columnCount(row: row, rowHeight: rowHeight)
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
