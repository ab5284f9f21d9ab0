public import AppCore
public import HAL

/// A place of the campus game: `{"name": …, "lat": …, "lon": …, "alt": …, "radius": …, "info": …, "hint": …}`. Any
/// field may be left out where a places library supplies it; `lat` and `lon` come together.
public struct CampusPlace: Sendable, Hashable, Codable {
    /// The name shown.
    public var name: String?
    /// Where it is, WGS84.
    public var coordinate: GeoCoordinate?
    /// Altitude, metres (kept for libraries shared with walk scenarios).
    public var alt: Double?
    /// The arrival radius in metres; the map's ``CampusMap/arrivalRadius`` when absent.
    public var radius: Double?
    /// What pointing at the place shows.
    public var info: String?
    /// The medium-difficulty hint for finding it.
    public var hint: String?

    /// Creates a place.
    public init(
        name: String? = nil, coordinate: GeoCoordinate? = nil, radius: Double? = nil, info: String? = nil, hint: String? = nil
    ) {
        self.name = name
        self.coordinate = coordinate
        self.radius = radius
        self.info = info
        self.hint = hint
    }

    private enum CodingKeys: String, CodingKey { case name, alt, radius, info, hint }

    /// Decodes a place, with its position in `lat` and `lon`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        coordinate = try GeoCoordinate.members(of: decoder)
        alt = try container.decodeIfPresent(Double.self, forKey: .alt)
        radius = try container.decodeIfPresent(Double.self, forKey: .radius)
        info = try container.decodeIfPresent(String.self, forKey: .info)
        hint = try container.decodeIfPresent(String.self, forKey: .hint)
    }

    /// Encodes the place as it is decoded.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(name, forKey: .name)
        try coordinate?.encodeMembers(to: encoder)
        try container.encodeIfPresent(alt, forKey: .alt)
        try container.encodeIfPresent(radius, forKey: .radius)
        try container.encodeIfPresent(info, forKey: .info)
        try container.encodeIfPresent(hint, forKey: .hint)
    }
}

/// A message a signed-in user left at a place, readable only there.
public struct CampusMessage: Sendable, Hashable, Codable {
    /// The place's id.
    public var place: String
    /// Who left it.
    public var author: String
    /// The text, at most ``CampusMap/Limits/messageLength`` characters.
    public var text: String

    /// Creates a message.
    public init(place: String, author: String, text: String) {
        self.place = place
        self.author = author
        self.text = text
    }
}

/// How the game guides the player to the next place.
public enum Difficulty: String, Sendable, Hashable, Codable, CaseIterable {
    /// Distance and bearing to the target.
    case easy
    /// The place's hint, then warmer or colder as the distance changes.
    case medium
    /// As medium, and the puzzle list opens: solving a puzzle scores and unlocks a secret place.
    case hard
}

/// A hard-difficulty puzzle: a question whose answer unlocks a secret place.
public struct CampusPuzzle: Sendable, Hashable, Codable {
    /// The puzzle's id.
    public var id: String
    /// What the player is asked.
    public var question: String
    /// The answer, compared without case or surrounding spaces.
    public var answer: String
    /// The secret place it unlocks: one of the map's places, left out of arrival and pointing until then.
    public var unlocks: String
    /// The score for solving it.
    public var score: Int?

    /// Creates a puzzle.
    public init(id: String, question: String, answer: String, unlocks: String, score: Int? = nil) {
        self.id = id
        self.question = question
        self.answer = answer
        self.unlocks = unlocks
        self.score = score
    }
}

/// The campus explorer's configuration: places, the route of targets, messages and tuning.
///
/// `placesFile` names a places library (`{"places": {ID: {name, lat, lon, alt}}}`, as walk scenarios use);
/// entries in `places` add places or add details (radius, info, hint) to the library's.
public struct CampusMap: Sendable, Hashable, Codable {
    /// A places library to start from, relative to the config file.
    public var placesFile: String?
    /// Places by id.
    public var places: [String: CampusPlace]?
    /// The targets, in order, by place id.
    public var route: [String]
    /// The guidance given.
    public var difficulty: Difficulty?
    /// The arrival radius of places without their own, metres.
    public var arrivalRadius: Double?
    /// The half-angle of the pointing cone, degrees.
    public var pointingCone: Double?
    /// How far away a place can be pointed at, metres.
    public var pointingRange: Double?
    /// Messages already left.
    public var messages: [CampusMessage]?
    /// The hard difficulty's puzzles; the places they unlock are secret until then.
    public var puzzles: [CampusPuzzle]?

    /// The rules a place or message must keep.
    public enum Limits {
        /// The longest message, characters.
        public static let messageLength = 240
        /// A place name's length, characters.
        public static let nameLength = 1...64
        /// An arrival radius, metres.
        public static let radius = 5.0...500.0
        /// How far pointing reaches, metres.
        public static let pointingRange = 10.0...5000.0
        /// A latitude, degrees.
        public static let latitude = -90.0...90.0
        /// A longitude, degrees.
        public static let longitude = -180.0...180.0

        /// A range as the refusals say it, such as `−90…90 degrees`.
        static func text(_ range: ClosedRange<Double>, _ unit: String) -> String {
            func number(_ value: Double) -> String {
                (value < 0 ? "−" : "") + (abs(value).rounded() == abs(value) ? "\(Int(abs(value)))" : "\(abs(value))")
            }
            return "\(number(range.lowerBound))…\(number(range.upperBound)) \(unit)"
        }

        /// A name's length as the refusals say it.
        static var nameText: String { "\(nameLength.lowerBound)–\(nameLength.upperBound)" }
    }

    /// A places library file: `{"places": {ID: place}}`.
    public struct Library: Sendable, Hashable, Codable {
        /// Places by id.
        public var places: [String: CampusPlace]
    }

    /// Creates a map.
    public init(places: [String: CampusPlace], route: [String], difficulty: Difficulty = .easy, messages: [CampusMessage] = []) {
        self.places = places
        self.route = route
        self.difficulty = difficulty
        self.messages = messages
    }

    /// Fills in what this map's places leave out from a library, and adds the library's other places.
    public mutating func merge(library: Library) {
        var merged = library.places
        for (id, place) in places ?? [:] {
            var base = merged[id] ?? CampusPlace()
            if let name = place.name { base.name = name }
            if let coordinate = place.coordinate { base.coordinate = coordinate }
            if let alt = place.alt { base.alt = alt }
            if let radius = place.radius { base.radius = radius }
            if let info = place.info { base.info = info }
            if let hint = place.hint { base.hint = hint }
            merged[id] = base
        }
        places = merged
    }

    /// Checks the whole map, naming the first field that breaks a rule.
    public func validate() throws(AppConfigError) {
        for (id, place) in (places ?? [:]).sorted(by: { $0.key < $1.key }) {
            try Self.validate(place, id: id, field: "places.\(id)")
        }
        for (index, id) in route.enumerated() where places?[id] == nil {
            throw AppConfigError(field: "route[\(index)]", "'\(id)' is not a place")
        }
        if let cone = pointingCone, !(1...90).contains(cone) {
            throw AppConfigError(field: "pointingCone", "\(cone) is out of range; expected 1…90 degrees")
        }
        if let range = pointingRange, !Limits.pointingRange.contains(range) {
            throw AppConfigError(field: "pointingRange", "\(range) is out of range; expected \(Limits.text(Limits.pointingRange, "m"))")
        }
        if let radius = arrivalRadius, !Limits.radius.contains(radius) {
            throw AppConfigError(field: "arrivalRadius", "\(radius) is out of range; expected \(Limits.text(Limits.radius, "m"))")
        }
        for (index, puzzle) in (puzzles ?? []).enumerated() {
            if places?[puzzle.unlocks] == nil { throw AppConfigError(field: "puzzles[\(index)].unlocks", "'\(puzzle.unlocks)' is not a place") }
            if puzzle.answer.allSatisfy(\.isWhitespace) { throw AppConfigError(field: "puzzles[\(index)].answer", "empty") }
            if route.contains(puzzle.unlocks) {
                throw AppConfigError(field: "puzzles[\(index)].unlocks", "'\(puzzle.unlocks)' is on the route, so it cannot be secret")
            }
        }
        for (index, message) in (messages ?? []).enumerated() {
            if places?[message.place] == nil { throw AppConfigError(field: "messages[\(index)].place", "'\(message.place)' is not a place") }
            if message.text.count > Limits.messageLength {
                throw AppConfigError(field: "messages[\(index)].text", "\(message.text.count) characters; at most \(Limits.messageLength)")
            }
        }
    }

    /// Checks one place against ``Limits``: its name's length, latitude, longitude and radius.
    public static func validate(_ place: CampusPlace, id: String, field: String) throws(AppConfigError) {
        if id.isEmpty { throw AppConfigError(field: field, "a place needs an id") }
        guard let name = place.name else { throw AppConfigError(field: "\(field).name", "missing; expected \(Limits.nameText) characters") }
        if !Limits.nameLength.contains(name.count) {
            throw AppConfigError(field: "\(field).name", "\(name.count) characters; expected \(Limits.nameText)")
        }
        let latitude = place.coordinate?.latitude, longitude = place.coordinate?.longitude
        guard let latitude, Limits.latitude.contains(latitude) else {
            throw AppConfigError(field: "\(field).lat", "\(latitude.map { "\($0)" } ?? "missing"); expected \(Limits.text(Limits.latitude, "degrees"))")
        }
        guard let longitude, Limits.longitude.contains(longitude) else {
            throw AppConfigError(field: "\(field).lon", "\(longitude.map { "\($0)" } ?? "missing"); expected \(Limits.text(Limits.longitude, "degrees"))")
        }
        if let radius = place.radius, !Limits.radius.contains(radius) {
            throw AppConfigError(field: "\(field).radius", "\(radius) m is out of range; expected \(Limits.text(Limits.radius, "m"))")
        }
    }
}
