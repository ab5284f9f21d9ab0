// Place lookups at campus scale: "which places are within r metres of the player", for 100,000
// places, through the app's PlaceIndex, a linear scan, and SQLite's R*Tree (the peer), in one run.
//
// Usage: SpatialLookup [PLACES] [QUERIES]
//        SpatialLookup profile RADIUS [QUERIES]   only the index's lookups at RADIUS, through one function that is
//                                                 never inlined, for callgrind (docs/performance.md)
// Prints one RESULT line per contender and radius: p50 and p99 microseconds per lookup, and the
// speed-up of the index over the scan. Every contender must return the same places for every query.
// Then the pointing lookup: within 250 m and 16° of a random bearing, the index's cone lookup against
// the R*Tree's candidates checked by distance and the sphere's bearing formula.

import AppCore
import DemoApps
import CSQLite
import Foundation
import HAL
import Interchange
import Replay
import Synthesis
import TraceFormat

let arguments = CommandLine.arguments
let profileRadius = arguments.count > 2 && arguments[1] == "profile" ? Double(arguments[2]) : nil
let placeCount = profileRadius != nil ? 100_000 : arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
let queryCount = arguments.count > (profileRadius != nil ? 3 : 2) ? Int(arguments.last!) ?? 20_000 : 20_000

// Places and queries spread over a 10 km square around UBC: 1,000 places per km².
var random = SeededRandom(seed: 2026)
let south = 49.21, west = -123.29, span = (latitude: 0.09, longitude: 0.138)
@MainActor func randomPoint() -> GeoCoordinate {
    GeoCoordinate(latitude: south + random.unit() * span.latitude, longitude: west + random.unit() * span.longitude)
}
let places = (0..<placeCount).map { _ in randomPoint() }
let queries = (0..<queryCount).map { _ in randomPoint() }

func percentile(_ sorted: [Double], _ fraction: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))] }

/// Runs every query through `lookup`, timing each; returns sorted microseconds and the results.
@MainActor func measure(_ lookup: (GeoCoordinate) -> [Int], queries: [GeoCoordinate]) -> (micros: [Double], results: [[Int]]) {
    let clock = ContinuousClock()
    var micros: [Double] = []
    var results: [[Int]] = []
    micros.reserveCapacity(queries.count)
    for query in queries {
        let start = clock.now
        let found = lookup(query)
        micros.append((clock.now - start).seconds * 1e6)
        results.append(found)
    }
    return (micros.sorted(), results)
}

// The app's index.
let buildStart = ContinuousClock.now
let index = PlaceIndex(points: places, cellSize: 100)
let buildSeconds = (ContinuousClock.now - buildStart).seconds

if let profileRadius {
    /// Every query's lookup and nothing else, kept out of line so that callgrind counts it on its own.
    @inline(never) func lookups() -> Int {
        var found = 0
        for query in queries { found += index.points(within: profileRadius, of: query).count }
        return found
    }
    print("PROFILE lookups=\(queries.count) found=\(lookups())")
    exit(0)
}

// SQLite R*Tree in memory: bounding boxes, then the same haversine check on the candidates.
var database: OpaquePointer?
guard sqlite3_open(":memory:", &database) == SQLITE_OK else { fatalError("sqlite3_open failed") }
@MainActor func execute(_ sql: String) {
    guard sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK else { fatalError(String(cString: sqlite3_errmsg(database))) }
}
execute("CREATE VIRTUAL TABLE places USING rtree(id, minLat, maxLat, minLon, maxLon)")
execute("BEGIN")
var insert: OpaquePointer?
sqlite3_prepare_v2(database, "INSERT INTO places VALUES (?, ?, ?, ?, ?)", -1, &insert, nil)
let sqliteBuildStart = ContinuousClock.now
for (id, place) in places.enumerated() {
    sqlite3_bind_int64(insert, 1, Int64(id))
    sqlite3_bind_double(insert, 2, place.latitude)
    sqlite3_bind_double(insert, 3, place.latitude)
    sqlite3_bind_double(insert, 4, place.longitude)
    sqlite3_bind_double(insert, 5, place.longitude)
    guard sqlite3_step(insert) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(database))) }
    sqlite3_reset(insert)
}
execute("COMMIT")
let sqliteBuildSeconds = (ContinuousClock.now - sqliteBuildStart).seconds
var select: OpaquePointer?
sqlite3_prepare_v2(database, "SELECT id FROM places WHERE maxLat >= ? AND minLat <= ? AND maxLon >= ? AND minLon <= ?", -1, &select, nil)

print("# \(placeCount) places over 10 km × 10 km, \(queryCount) lookups per radius; SQLite \(String(cString: sqlite3_libversion()))")
print("# build: PlaceIndex \(String(format: "%.1f", buildSeconds * 1000)) ms, SQLite R*Tree \(String(format: "%.1f", sqliteBuildSeconds * 1000)) ms")
/// The R*Tree's places within `radius` of `query` (its bounding box, then the haversine) that `keep` accepts, sorted.
@MainActor func rtreeLookup(_ query: GeoCoordinate, radius: Double, keep: (Int) -> Bool = { _ in true }) -> [Int] {
    let latitudeSpan = radius / 111_195
    let longitudeSpan = latitudeSpan / cos((abs(query.latitude) + latitudeSpan) * .pi / 180)
    sqlite3_bind_double(select, 1, query.latitude - latitudeSpan)
    sqlite3_bind_double(select, 2, query.latitude + latitudeSpan)
    sqlite3_bind_double(select, 3, query.longitude - longitudeSpan)
    sqlite3_bind_double(select, 4, query.longitude + longitudeSpan)
    var found: [Int] = []
    while sqlite3_step(select) == SQLITE_ROW {
        let id = Int(sqlite3_column_int64(select, 0))
        if query.greatCircleDistance(to: places[id]) <= radius, keep(id) { found.append(id) }
    }
    sqlite3_reset(select)
    return found.sorted()
}

for radius in [50.0, 250.0] {
    let indexRun = measure({ query in index.points(within: radius, of: query).map(\.index).sorted() }, queries: queries)
    let rtreeRun = measure({ query in rtreeLookup(query, radius: radius) }, queries: queries)
    // The scan is slow: a tenth of the queries is enough for its percentiles.
    let scanQueries = Array(queries.prefix(max(1, queryCount / 10)))
    let scanRun = measure({ query in places.indices.filter { query.greatCircleDistance(to: places[$0]) <= radius } }, queries: scanQueries)
    guard indexRun.results == rtreeRun.results, Array(indexRun.results.prefix(scanQueries.count)) == scanRun.results else {
        fatalError("the contenders disagree at radius \(radius)")
    }
    let found = Double(indexRun.results.map(\.count).reduce(0, +)) / Double(queryCount)
    for (name, run) in [("PlaceIndex", indexRun.micros), ("SQLite R*Tree", rtreeRun.micros), ("linear scan", scanRun.micros)] {
        let padded = name.padding(toLength: 14, withPad: " ", startingAt: 0)
        print("RESULT \(padded) " + String(format: "r=%3.0f m  p50 %8.2f µs  p99 %8.2f µs  (%.1f places found on average)",
                     radius, percentile(run, 0.5), percentile(run, 0.99), found))
    }
    print(String(format: "RESULT speed-up at r=%.0f m: %.0f× the scan, %.1f× the R*Tree (p50)", radius,
                 percentile(scanRun.micros, 0.5) / percentile(indexRun.micros, 0.5), percentile(rtreeRun.micros, 0.5) / percentile(indexRun.micros, 0.5)))
}

// Pointing: within 250 m and 16° (the explorer's cone and a degree) of a bearing.
let bearings = (0..<queryCount).map { _ in random.unit() * 360 }
func sphericalOffset(from a: GeoCoordinate, to b: GeoCoordinate, bearing: Double) -> Double {
    let phi1 = a.latitude * .pi / 180, phi2 = b.latitude * .pi / 180, dLambda = (b.longitude - a.longitude) * .pi / 180
    let y = sin(dLambda) * cos(phi2), x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda)
    let difference = abs(atan2(y, x) * 180 / .pi - bearing).truncatingRemainder(dividingBy: 360)
    return difference > 180 ? 360 - difference : difference
}
do {
    let radius = 250.0, halfAngle = 16.0
    var queryIndex = 0
    let cone = measure({ query in
        defer { queryIndex += 1 }
        return index.points(within: radius, of: query, bearing: bearings[queryIndex], halfAngle: halfAngle).map(\.index).sorted()
    }, queries: queries)
    queryIndex = 0
    let rtree = measure({ query in
        defer { queryIndex += 1 }
        return rtreeLookup(query, radius: radius) { sphericalOffset(from: query, to: places[$0], bearing: bearings[queryIndex]) <= halfAngle }
    }, queries: queries)
    // The two bearings are the same angle by different arithmetic: they may part only right at the cone's edge.
    for (number, (a, b)) in zip(cone.results, rtree.results).enumerated() where a != b {
        for id in Set(a).symmetricDifference(b) where abs(sphericalOffset(from: queries[number], to: places[id], bearing: bearings[number]) - halfAngle) > 1e-6 {
            fatalError("the pointing contenders disagree on place \(id) of lookup \(number)")
        }
    }
    let found = Double(cone.results.map(\.count).reduce(0, +)) / Double(queryCount)
    for (name, run) in [("PlaceIndex", cone.micros), ("SQLite R*Tree", rtree.micros)] {
        let padded = name.padding(toLength: 14, withPad: " ", startingAt: 0)
        print("RESULT \(padded) " + String(format: "pointing r=250 m, 16°  p50 %8.2f µs  p99 %8.2f µs  (%.1f places found on average)",
                     percentile(run, 0.5), percentile(run, 0.99), found))
    }
}
