public import Synthesis
import CLibXML2
import FoundationEssentials
import HAL

/// What a GPX or KML file holds: a track or route as fixes, and named places.
public struct GeoFileImport: Sendable {
    /// The track or route as a location track, when the file has one.
    public var track: LocationTrack?
    /// Waypoints (GPX `wpt`) and point placemarks (KML `Point`), as a places library.
    public var places: [String: WalkScenario.Place]
}

/// A GPX or KML file that cannot be read, naming the file, the line and the element.
public struct GeoFileError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// The 1-based line, 0 when unknown.
    public var line: Int
    /// What is wrong.
    public var message: String

    /// `file:line: message`.
    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}

/// Reads GPX 1.0/1.1 and KML 2.2 into fixes and places.
///
/// - **GPX:** `trk` points with `<time>` keep their timing; a `rte`, or a `trk` without
///   times, is walked at `speed` m/s from its first point (timestamps from the geodesic
///   distance covered). `wpt` become places, named by their `<name>`. Tracks come before
///   routes: a file's first `trk`, else its first `rte`, is the track.
/// - **KML:** a `gx:Track` keeps its `<when>` times; a `LineString` is walked at `speed`;
///   `Point` placemarks become places.
/// - Points with `<ele>` (or a KML altitude) are 3D fixes, others 2D.
/// - Timestamps start at 0 at the first point; fixes with times carry them as UTC.
public enum GeoFiles {
    /// Reads a GPX file.
    public static func importGPX(_ bytes: [UInt8], file: String, speed: Double = 1.4) throws -> GeoFileImport {
        let root = try XMLTree.parse(Data(bytes), file: file)
        guard root.name == "gpx" else { throw GeoFileError(file: file, line: root.line, message: "not GPX: the root element is <\(root.name)>") }
        var places: [String: WalkScenario.Place] = [:]
        for (index, point) in root.children(named: "wpt").enumerated() {
            let place = try point.place(file: file)
            places[point.child("name")?.text.trimmedWhitespace ?? "waypoint-\(index + 1)"] = place
        }
        let trackPoints = root.children(named: "trk").first.map { $0.children(named: "trkseg").flatMap { $0.children(named: "trkpt") } }
        let routePoints = root.children(named: "rte").first?.children(named: "rtept")
        guard let points = trackPoints ?? routePoints, !points.isEmpty else {
            return GeoFileImport(track: nil, places: places)
        }
        var samples: [(Place: WalkScenario.Place, utc: Int64?)] = []
        for point in points {
            let utc = try point.child("time").map { element -> Int64 in
                guard let value = parseTime(element.text.trimmedWhitespace) else {
                    throw GeoFileError(file: file, line: element.line, message: "<time> '\(element.text.trimmedWhitespace)' is not an ISO 8601 time")
                }
                return value
            }
            samples.append((try point.place(file: file), utc))
        }
        return GeoFileImport(track: track(samples, speed: speed, file: file), places: places)
    }

    /// Reads a KML file.
    public static func importKML(_ bytes: [UInt8], file: String, speed: Double = 1.4) throws -> GeoFileImport {
        let root = try XMLTree.parse(Data(bytes), file: file)
        guard root.name == "kml" else { throw GeoFileError(file: file, line: root.line, message: "not KML: the root element is <\(root.name)>") }
        var places: [String: WalkScenario.Place] = [:]
        var samples: [(Place: WalkScenario.Place, utc: Int64?)]?
        for (index, placemark) in root.descendants(named: "Placemark").enumerated() {
            let name = placemark.child("name")?.text.trimmedWhitespace ?? "placemark-\(index + 1)"
            if let point = placemark.descendants(named: "Point").first, let coordinates = point.child("coordinates") {
                guard let place = try coordinatesList(coordinates, file: file).first else { continue }
                places[name] = WalkScenario.Place(name: name, coordinate: place.coordinate, alt: place.alt)
            }
            if samples == nil, let track = placemark.descendants(named: "gx:Track").first {
                let whens = track.children(named: "when")
                let coords = track.children(named: "gx:coord")
                guard whens.count == coords.count else {
                    throw GeoFileError(file: file, line: track.line, message: "<gx:Track> has \(whens.count) <when> but \(coords.count) <gx:coord>")
                }
                samples = try zip(whens, coords).map { when, coord in
                    let parts = coord.text.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
                    guard parts.count >= 2 else { throw GeoFileError(file: file, line: coord.line, message: "<gx:coord> needs 'longitude latitude [altitude]'") }
                    guard let utc = parseTime(when.text.trimmedWhitespace) else {
                        throw GeoFileError(file: file, line: when.line, message: "<when> '\(when.text.trimmedWhitespace)' is not an ISO 8601 time")
                    }
                    return (try validated(lat: parts[1], lon: parts[0], alt: parts.count > 2 ? parts[2] : nil, file: file, line: coord.line), utc)
                }
            } else if samples == nil, let line = placemark.descendants(named: "LineString").first, let coordinates = line.child("coordinates") {
                samples = try coordinatesList(coordinates, file: file).map { ($0, nil) }
            }
        }
        return GeoFileImport(track: samples.flatMap { track($0, speed: speed, file: file) }, places: places)
    }

    /// KML `coordinates`: whitespace-separated `lon,lat[,alt]` tuples.
    private static func coordinatesList(_ element: XMLTree, file: String) throws -> [WalkScenario.Place] {
        try element.text.split(whereSeparator: \.isWhitespace).map { tuple in
            let parts = tuple.split(separator: ",").map { Double($0) }
            guard parts.count >= 2, let lon = parts[0], let lat = parts[1] else {
                throw GeoFileError(file: file, line: element.line, message: "<coordinates> '\(tuple)' is not lon,lat[,alt]")
            }
            return try validated(lat: lat, lon: lon, alt: parts.count > 2 ? parts[2] : nil, file: file, line: element.line)
        }
    }

    static func validated(lat: Double, lon: Double, alt: Double?, file: String, line: Int) throws -> WalkScenario.Place {
        let coordinate = GeoCoordinate(latitude: lat, longitude: lon)
        guard coordinate.isOnEarth else {
            throw GeoFileError(file: file, line: line, message: "latitude \(lat), longitude \(lon) is not on the earth")
        }
        return WalkScenario.Place(name: nil, coordinate: coordinate, alt: alt)
    }

    /// Fixes from points: timed points keep their times; untimed ones are walked at `speed`.
    private static func track(_ samples: [(Place: WalkScenario.Place, utc: Int64?)], speed: Double, file: String) -> LocationTrack? {
        guard let first = samples.first else { return nil }
        let timed = samples.allSatisfy { $0.utc != nil }
        var fixes: [LocationFix] = []
        var elapsed = 0.0
        var previous = first.Place.coordinate
        for (place, utc) in samples {
            let nanoseconds: Int64
            if timed {
                nanoseconds = utc! - first.utc!
                guard nanoseconds >= (fixes.last?.timestamp.nanoseconds ?? .min) else { continue }
            } else {
                elapsed += previous.distance(to: place.coordinate) / speed
                nanoseconds = Int64((elapsed * 1e9).rounded())
            }
            previous = place.coordinate
            fixes.append(LocationFix(
                timestamp: Timestamp(nanoseconds: nanoseconds), utcNanoseconds: timed ? utc : nil,
                mode: place.alt == nil ? .twoDimensional : .threeDimensional, coordinate: place.coordinate, altitude: place.alt))
        }
        return LocationTrack(channel: "gps", fixes: fixes)
    }

    static func parseTime(_ text: String) -> Int64? {
        if let exact = UTCTime.parse(text) { return exact }
        // Other offsets than Z, with or without fractions of a second.
        let styles = [Date.ISO8601FormatStyle(includingFractionalSeconds: true), Date.ISO8601FormatStyle()]
        guard let date = styles.lazy.compactMap({ try? $0.parse(text) }).first else { return nil }
        // Outside 1677–2262 the time does not fit 64-bit nanoseconds: refused, not a trap (found by scripts/fuzz).
        let milliseconds = (date.timeIntervalSince1970 * 1e3).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 9.2e15 else { return nil }
        let (nanoseconds, overflow) = Int64(milliseconds).multipliedReportingOverflow(by: 1_000_000)
        return overflow ? nil : nanoseconds
    }
}

private extension XMLTree {
    /// A GPX point's position from its `lat` and `lon` attributes and `<ele>`.
    func place(file: String) throws -> WalkScenario.Place {
        guard let lat = attributes["lat"].flatMap(Double.init), let lon = attributes["lon"].flatMap(Double.init) else {
            throw GeoFileError(file: file, line: line, message: "<\(name)> needs numeric lat and lon attributes")
        }
        let altitude = try child("ele").map { element -> Double in
            guard let value = Double(element.text.trimmedWhitespace) else {
                throw GeoFileError(file: file, line: element.line, message: "<ele> '\(element.text.trimmedWhitespace)' is not a number")
            }
            return value
        }
        return try GeoFiles.validated(lat: lat, lon: lon, alt: altitude, file: file, line: line)
    }
}

/// A small element tree read with libxml2's streaming reader (`CLibXML2`), with line numbers for errors.
final class XMLTree {
    let name: String
    let attributes: [String: String]
    let line: Int
    var children: [XMLTree] = []
    var text = ""

    init(name: String, attributes: [String: String], line: Int) {
        self.name = name
        self.attributes = attributes
        self.line = line
    }

    func child(_ name: String) -> XMLTree? { children.first { $0.name == name } }
    func children(named name: String) -> [XMLTree] { children.filter { $0.name == name } }
    func descendants(named name: String) -> [XMLTree] {
        children.flatMap { ($0.name == name ? [$0] : []) + $0.descendants(named: name) }
    }

    static func parse(_ data: Data, file: String) throws -> XMLTree {
        if let refusal = refusal(of: data) {
            let line = data[..<refusal.at].filter { $0 == UInt8(ascii: "\n") }.count + 1
            throw GeoFileError(file: file, line: line, message: refusal.message)
        }
        if let failure = CLibXML2_load(nil) { throw GeoFileError(file: file, line: 0, message: String(cString: failure)) }
        var builder = Builder()
        var error = hal_xml_error()
        let status = data.withUnsafeBytes { bytes in
            withUnsafeMutablePointer(to: &builder) { context in
                var events = hal_xml_events(
                    start: { context, name, attributes, line in
                        guard let context, let name else { return }
                        var values: [String: String] = [:]
                        var index = 0
                        while let key = attributes?[index], let value = attributes?[index + 1] {
                            values[String(cString: key)] = String(cString: value)
                            index += 2
                        }
                        context.assumingMemoryBound(to: Builder.self).pointee.start(String(cString: name), values, Int(line))
                    },
                    end: { context, _ in context?.assumingMemoryBound(to: Builder.self).pointee.end() },
                    text: { context, text in
                        guard let context, let text else { return }
                        context.assumingMemoryBound(to: Builder.self).pointee.stack.last?.text += String(cString: text)
                    })
                return hal_xml_parse(bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count, &events, context, &error)
            }
        }
        guard status == 0, let root = builder.root, builder.stack.isEmpty else {
            let line = error.code != 0 ? Int(error.line) : 0
            let reason = error.code != 0 ? Self.describe(error, open: builder.stack.last) : "no root element"
            throw GeoFileError(file: file, line: line, message: "not well-formed XML: \(reason)")
        }
        return root
    }

    /// What the parser is not given, checked before parsing, with where it is (found by
    /// scripts/fuzz unless said otherwise).
    private static func refusal(of data: Data) -> (at: Data.Index, message: String)? {
        // GPX and KML are UTF-8. Foundation's XMLParser, used before libxml2's reader, trapped on names that are not.
        if let invalid = firstInvalidUTF8(in: data) {
            return (invalid, "not UTF-8 text (byte \(invalid - data.startIndex + 1)); GPX and KML files are UTF-8")
        }
        // XML forbids control characters, and GPX and KML are UTF-8: a NUL or a declared encoding would make
        // the parser guess or switch encodings (stopping Foundation's parser at an error there crashed it).
        if let control = data.firstIndex(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) {
            return (control, "control character 0x\(String(data[control], radix: 16)) (byte \(control - data.startIndex + 1)) is not allowed in XML")
        }
        if let declaration = data.firstRange(of: Data("<?xml".utf8)),
           let end = data[declaration.upperBound...].firstRange(of: Data("?>".utf8)),
           let text = String(data: data[declaration.upperBound..<end.lowerBound], encoding: .utf8), text.contains("encoding"),
           !text.lowercased().contains("utf-8") {
            return (declaration.lowerBound, "the XML declaration names an encoding other than UTF-8; GPX and KML are UTF-8")
        }
        // GPX and KML have no DTD. One would make a parser that substitutes entities expand
        // whatever the file declares (a billion-laughs file). Refused, as XML hardening advises.
        if let doctype = data.firstRange(of: Data("<!DOCTYPE".utf8)) {
            return (doctype.lowerBound, "a DOCTYPE is not allowed; GPX and KML files have no DTD")
        }
        // A processing instruction with no data (`<?name?>`) crashed Foundation's parser, which took the
        // length of the missing data.
        if let instruction = emptyProcessingInstruction(in: data) {
            return (instruction, "a processing instruction with no data (<?name?>) is not allowed")
        }
        return nil
    }

    /// Where the first byte that is not part of valid UTF-8 is, in one pass.
    private static func firstInvalidUTF8(in data: Data) -> Data.Index? {
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = data.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &bytes) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error: return data.startIndex + offset
            }
        }
    }

    /// Where the first `<?name?>` starts: a processing instruction whose name is followed at once by `?>`.
    private static func emptyProcessingInstruction(in data: Data) -> Data.Index? {
        let bytes = [UInt8](data)
        var index = 0
        while index + 1 < bytes.count {
            defer { index += 1 }
            guard bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "?") else { continue }
            var end = index + 2
            while end < bytes.count, bytes[end] != UInt8(ascii: "?"), ![0x20, 0x09, 0x0A, 0x0D].contains(bytes[end]) { end += 1 }
            if end + 1 < bytes.count, bytes[end] == UInt8(ascii: "?"), bytes[end + 1] == UInt8(ascii: ">") {
                return data.startIndex + index
            }
        }
        return nil
    }

    /// libxml2's first error, in words, with the element left open when that is what is wrong.
    private static func describe(_ error: hal_xml_error, open: XMLTree?) -> String {
        let message = withUnsafeBytes(of: error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let column = error.column > 0 ? " (column \(error.column))" : ""
        switch error.code {
        case 4: return "the document is empty"
        case 5, 77:
            if let open { return "<\(open.name)> from line \(open.line) is never closed" }
            return "the document ends before every element is closed"
        case 41: return "an attribute has no value\(column)"
        case 73, 76:
            let expected = open.map { ": </\($0.name)> (opened on line \($0.line)) was expected" } ?? ""
            return "an end tag does not match its start tag\(expected)\(column)"
        default: return "\(message) (libxml2 error \(error.code))\(column)"
        }
    }

    /// The tree as the parse builds it.
    private struct Builder {
        var root: XMLTree?
        var stack: [XMLTree] = []

        mutating func start(_ name: String, _ attributes: [String: String], _ line: Int) {
            let element = XMLTree(name: name, attributes: attributes, line: line)
            if let parent = stack.last { parent.children.append(element) } else { root = element }
            stack.append(element)
        }

        mutating func end() { _ = stack.popLast() }
    }
}
