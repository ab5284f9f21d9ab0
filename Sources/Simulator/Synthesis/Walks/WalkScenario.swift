import TraceFormat
public import HAL

/// A scripted GPS walk for QA: places, a route with speeds and dwell times, and how the
/// receiver misbehaves on the way (noise, dropouts, degraded accuracy, multipath jumps).
///
/// The format is JSON, described in `docs/gps-walks.md`. ``generate(source:)`` turns a
/// scenario into a trace with one `gps` location channel; the same scenario and seed give
/// the same bytes.
public struct WalkScenario: Sendable, Hashable, Codable {
    /// A name, copied into the trace's metadata.
    public var title: String?
    /// UTC time of the first fix, ISO 8601 (`2026-09-08T17:00:00Z`).
    public var start: String
    /// Fixes per second.
    public var rate: Double
    /// The seed of every random part.
    public var seed: UInt64
    /// A places library to load, relative to the scenario file.
    public var placesFile: String?
    /// Places defined in the scenario itself (they override the library's).
    public var places: [String: Place]?
    /// The route: the first step is where the walk starts (`at`); the rest go `to` places.
    public var route: [Step]
    /// Position noise; none when absent.
    public var noise: Noise?
    /// When or where the receiver has no fix.
    public var dropouts: [Region]?
    /// When or where accuracy is worse by a factor.
    public var degraded: [Region]?
    /// Sudden position jumps, as from signals reflected off buildings.
    public var multipath: [Jump]?
    /// Times the walker holds the phone up toward a place: adds a `heading` attitude channel.
    public var pointing: [Pointing]?

    /// A named place: `{"name": …, "lat": …, "lon": …, "alt": …}`.
    public struct Place: Sendable, Hashable, Codable {
        /// A display name.
        public var name: String?
        /// Where it is.
        public var coordinate: GeoCoordinate
        /// Altitude above mean sea level, metres.
        public var alt: Double?

        /// Creates a place.
        public init(name: String?, coordinate: GeoCoordinate, alt: Double?) {
            self.name = name
            self.coordinate = coordinate
            self.alt = alt
        }

        private enum CodingKeys: String, CodingKey { case name, alt }

        /// Decodes a place; its `lat` and `lon` are required.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            alt = try container.decodeIfPresent(Double.self, forKey: .alt)
            guard let coordinate = try GeoCoordinate.members(of: decoder) else {
                throw DecodingError.keyNotFound(
                    GeoCoordinate.MemberKeys.lat, .init(codingPath: decoder.codingPath, debugDescription: "a place has a 'lat' and a 'lon'"))
            }
            self.coordinate = coordinate
        }

        /// Encodes the place as it is decoded.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(name, forKey: .name)
            try container.encodeIfPresent(alt, forKey: .alt)
            try coordinate.encodeMembers(to: encoder)
        }
    }

    /// A place by name, or a coordinate written out.
    public enum Target: Sendable, Hashable, Codable {
        /// A place of the library or the scenario.
        case named(String)
        /// A coordinate.
        case point(Place)

        /// The place itself, or the named one of `places` (`nil` when it has no such name).
        public func place(in places: [String: Place]) -> Place? {
            switch self {
            case .named(let name): places[name]
            case .point(let place): place
            }
        }

        /// Decodes a string as a name and an object as a point.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let name = try? container.decode(String.self) {
                self = .named(name)
            } else {
                self = .point(try container.decode(Place.self))
            }
        }

        /// Encodes a name as a string and a point as an object.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .named(let name): try container.encode(name)
            case .point(let place): try container.encode(place)
            }
        }
    }

    /// One step of the route.
    public struct Step: Sendable, Hashable, Codable {
        /// Where the walk starts (first step only).
        public var at: Target?
        /// Where this leg goes.
        public var to: Target?
        /// Walking speed, m/s (1.4 is a stroll).
        public var speed: Double?
        /// Or the leg's duration, seconds.
        public var duration: Double?
        /// Seconds to stay on arrival.
        public var dwell: Double?
    }

    /// Gauss-Markov position noise: it drifts like a real receiver's error instead of jumping.
    public struct Noise: Sendable, Hashable, Codable {
        /// 1σ horizontal error radius, metres.
        public var horizontal: Double
        /// 1σ vertical error, metres.
        public var vertical: Double?
        /// The error's correlation time, seconds.
        public var correlation: Double
    }

    /// A stretch of time, or an area, or both (then it applies inside the area during the time).
    public struct Region: Sendable, Hashable, Codable {
        /// Start, seconds from the walk's start.
        public var from: Double?
        /// End, seconds from the walk's start.
        public var to: Double?
        /// The centre of a circular area.
        public var inside: Target?
        /// The circle's radius, metres.
        public var radius: Double?
        /// For degraded regions: how many times worse the accuracy is.
        public var factor: Double?
    }

    /// A multipath jump: the position is off by `jump` metres towards `bearing` for `seconds`.
    public struct Jump: Sendable, Hashable, Codable {
        /// When it starts, seconds from the walk's start.
        public var at: Double
        /// How long it lasts.
        public var seconds: Double
        /// How far off, metres.
        public var jump: Double
        /// Which way, degrees from north; random (seeded) when absent.
        public var bearing: Double?
    }

    /// The phone held upright with its back camera toward a place, from the walker's true position.
    public struct Pointing: Sendable, Hashable, Codable {
        /// Seconds after the start.
        public var at: Double
        /// How long, seconds.
        public var seconds: Double
        /// The place pointed at.
        public var toward: Target
        /// Attitude samples per second, 10 by default.
        public var rate: Double?
        /// Degrees added to the true bearing (a compass error, or aiming off on purpose).
        public var offset: Double?
    }

    /// A places library file: `{"places": {"id": {"name": …, "lat": …, "lon": …, "alt": …}}}`.
    public struct Library: Sendable, Hashable, Codable {
        /// The places by id.
        public var places: [String: Place]

        /// Creates a library.
        public init(places: [String: Place]) {
            self.places = places
        }
    }

    /// Reads a scenario and its places library, refusing unknown fields and unknown places. A library is decoded once
    /// per process while its file holds the same bytes: the walks of a suite share one.
    public static func load(path: String) throws -> (WalkScenario, places: [String: Place]) {
        let scenario: WalkScenario = try ScriptFile.decode(path: path)
        var places: [String: Place] = [:]
        if let library = scenario.placesFile {
            let file = TracePath.resolve(library, inTraceAt: path)
            places = try libraries.value(for: file) { try (ScriptFile.decode(path: file) as Library).places }
        }
        places.merge(scenario.places ?? [:]) { _, own in own }
        try scenario.validate(places: places, file: path)
        return (scenario, places)
    }

    /// The places libraries decoded, by path.
    private static let libraries = FileCache<String, [String: Place]>(capacity: 8)

    /// Checks the scenario against its places.
    public func validate(places: [String: Place], file: String? = nil) throws {
        guard UTCTime.parse(start) != nil else { throw ScriptError.located(file: file, "start: '\(start)' is not an ISO 8601 UTC time") }
        guard rate > 0, rate <= 100 else { throw ScriptError.located(file: file, "rate: \(rate) is not within 0 to 100 Hz") }
        func check(_ target: Target?, _ place: String) throws {
            if let target, target.place(in: places) == nil, case .named(let name) = target {
                let known = places.keys.sorted().joined(separator: ", ")
                throw ScriptError.located(file: file, "\(place): no place '\(name)' (places: \(known))")
            }
        }
        guard let first = route.first, first.at != nil, first.to == nil else {
            throw ScriptError.located(file: file, "route[0]: the route starts with {\"at\": PLACE}")
        }
        for (index, step) in route.enumerated() {
            try check(step.at, "route[\(index)].at")
            try check(step.to, "route[\(index)].to")
            if index > 0 {
                guard step.to != nil, step.at == nil else { throw ScriptError.located(file: file, "route[\(index)]: a leg goes {\"to\": PLACE}") }
                guard (step.speed == nil) != (step.duration == nil), (step.speed ?? step.duration!) > 0 else {
                    throw ScriptError.located(file: file, "route[\(index)]: give a positive speed or duration, one of them")
                }
            }
            if let dwell = step.dwell, dwell < 0 { throw ScriptError.located(file: file, "route[\(index)].dwell: must not be negative") }
        }
        for (name, regions) in [("dropouts", dropouts ?? []), ("degraded", degraded ?? [])] {
            for (index, region) in regions.enumerated() {
                let place = "\(name)[\(index)]"
                try check(region.inside, place + ".inside")
                guard region.inside != nil || region.from != nil || region.to != nil else {
                    throw ScriptError.located(file: file, "\(place): give a time (from, to), an area (inside, radius), or both")
                }
                if region.inside != nil, !((region.radius ?? 0) > 0) { throw ScriptError.located(file: file, "\(place).radius: an area needs a positive radius") }
                if name == "degraded", !((region.factor ?? 0) >= 1) { throw ScriptError.located(file: file, "\(place).factor: a factor of 1 or more") }
            }
        }
        if let noise, !(noise.horizontal >= 0 && (noise.vertical ?? 0) >= 0 && noise.correlation > 0) {
            throw ScriptError.located(file: file, "noise: horizontal and vertical must be 0 or more and correlation positive")
        }
        for (index, jump) in (multipath ?? []).enumerated() where !(jump.at >= 0 && jump.seconds >= 0 && jump.jump >= 0) {
            throw ScriptError.located(file: file, "multipath[\(index)]: at, seconds and jump must be 0 or more")
        }
        for (index, pointing) in (pointing ?? []).enumerated() {
            try check(pointing.toward, "pointing[\(index)].toward")
            guard pointing.at >= 0, pointing.seconds > 0, (pointing.rate ?? 10) > 0, (pointing.rate ?? 10) <= 100 else {
                throw ScriptError.located(file: file, "pointing[\(index)]: at must be 0 or more, seconds positive, rate within 0 to 100 Hz")
            }
        }
        var points: [(String, Place)] = (places.map { ("place '\($0.key)'", $0.value) })
        for (index, step) in route.enumerated() {
            for target in [step.at, step.to] { if case .point(let place) = target { points.append(("route[\(index)]", place)) } }
        }
        for (place, point) in points where !point.coordinate.isOnEarth {
            throw ScriptError.located(file: file, "\(place): latitude \(point.coordinate.latitude), longitude \(point.coordinate.longitude) is not on the earth")
        }
        try ScriptFile.checkRecordCount(recordEstimate(places: places), file: file)
    }

    /// About how many records the walk makes with `places`: fixes at its rate over the route, and the pointing.
    public func recordEstimate(places: [String: Place]) -> Double {
        let seconds = legs(places: places).last?.end ?? 0
        let pointed = (pointing ?? []).map { $0.seconds * ($0.rate ?? 10) }.reduce(0, +)
        return seconds * rate + 1 + pointed
    }
}
