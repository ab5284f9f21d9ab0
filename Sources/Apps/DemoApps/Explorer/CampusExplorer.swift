public import AppCore
public import HAL

/// The campus exploration game (UBC Explore): GPS arrival at places, guidance to the next target,
/// messages left at places, and pointing the phone at a place to learn about it.
///
/// Inputs: location fixes, attitude (the fused heading) and commands (`signIn user`, `signOut`,
/// `leaveMessage text`, `readMessages`, `addPlace name lat lon description [id] [radius]`, `setDifficulty value`,
/// `showPuzzles`, `solvePuzzle id answer`).
///
/// - **Arrival** shows the place's information (`place.arrived` with `info`).
/// - **Difficulty:** easy gives distance and bearing; medium the place's hint, then warmer or colder; hard as
///   medium, and opens the puzzle list: a solved puzzle scores and unlocks its secret place, which until then
///   neither arrives nor can be pointed at. Asking for the list below hard says to change the difficulty.
/// - **Adding a place** checks the whole form at once and says every problem: the empty fields, coordinates out of
///   range (with the range), illegal characters in the name or description (naming them), and a place that already
///   exists by name or by position (within ``duplicateDistance``).
///
/// - **Arrival and leaving** use the fix's accuracy σ (5 m when unknown) and a margin: a player
///   arrives when `distance + σ ≤ radius` and leaves when `distance − σ > radius + margin`
///   (margin 20 % of the radius, at least 5 m; σ counts up to half the radius). A noisy fix at the
///   edge changes nothing. A fix worse than 50 m is used neither for places nor for pointing.
/// - **A lost fix** (mode `none`, or no fix for 5 s) emits `gps.lost` and hides guidance; places,
///   pointing and notifications wait until `gps.acquired`. Nothing from a stale fix is shown.
/// - **Messages:** arriving within twice a place's radius of a place with messages shows
///   `message.nearby`, hidden after 5 s. `readMessages` works only at the place.
/// - **Pointing:** an attitude whose heading is within ``CampusMap/pointingCone`` of the bearing to a place
///   within ``CampusMap/pointingRange`` shows `place.pointed` with its info, on that same sample
///   (the requirement is within 1 s). No attitude for 1 s ends the pointing.
public struct CampusExplorer: AppLogic {
    /// `explorer`.
    public static let name = "explorer"
    /// Every event the app emits and every command it takes, so that a scenario's typo is refused before the run.
    public static let vocabulary: AppVocabulary? = AppVocabulary(
        events: [
            "difficulty.set", "explorer.started", "gps.acquired", "gps.lost", "message.hidden", "message.left",
            "message.nearby", "message.read", "place.added", "place.arrived", "place.left", "place.pointed",
            "place.unlocked", "pointing.ended", "puzzle.failed", "puzzle.solved", "puzzles.shown", "route.completed",
            "target.colder", "target.guidance", "target.hint", "target.reached", "target.set", "target.warmer",
            "user.signedIn", "user.signedOut",
        ],
        commands: ["signIn", "signOut", "leaveMessage", "readMessages", "addPlace", "showPuzzles", "solvePuzzle", "setDifficulty"],
        attributes: [
            "difficulty.set": ["difficulty"],
            "explorer.started": ["difficulty", "places"],
            "gps.acquired": ["accuracy"],
            "gps.lost": ["reason"],
            "message.hidden": [],
            "message.left": ["author", "place"],
            "message.nearby": ["count", "place"],
            "message.read": ["author", "place", "text"],
            "place.added": ["name", "place"],
            "place.arrived": ["distance", "info", "name", "place"],
            "place.left": ["place"],
            "place.pointed": ["bearing", "distance", "info", "name", "place"],
            "place.unlocked": ["name", "place"],
            "pointing.ended": ["place", "reason"],
            "puzzle.failed": ["puzzle"],
            "puzzle.solved": ["puzzle", "score"],
            "puzzles.shown": ["puzzles", "score", "solved"],
            "route.completed": [],
            "target.colder": ["place"],
            "target.guidance": ["bearing", "direction", "distance", "place"],
            "target.hint": ["hint", "place"],
            "target.reached": ["place"],
            "target.set": ["name", "place"],
            "target.warmer": ["place"],
            "user.signedIn": ["user"],
            "user.signedOut": [],
        ])
    /// Seconds without a fix before the fix counts as lost.
    public static let fixTimeout: Duration = .seconds(5)
    /// Seconds a message notification shows.
    public static let notificationTime: Duration = .seconds(5)
    /// Seconds without an attitude before pointing ends.
    public static let pointingTimeout: Duration = .seconds(1)
    /// Fixes less accurate than this (metres, 1σ) are not used for places.
    public static let worstUsableAccuracy = 50.0
    /// Guidance distances are given in steps of this many metres.
    public static let guidanceStep = 50.0
    /// A new place this close to another (metres) is the same place.
    public static let duplicateDistance = 10.0
    /// What a place's name and description may hold besides letters, digits and spaces.
    public static let allowedPunctuation: Set<Character> = ["'", "-", ",", ".", "&", "(", ")", ":", "!", "?", "’"]

    private var map: CampusMap
    private var ids: [String]
    private var index: PlaceIndex
    /// The largest arrival radius, kept with the index: how far a fix's lookup must reach.
    private var largestRadius = 25.0
    /// Each indexed place's arrival radius, by its index.
    private var radii: [Double] = []
    private var difficulty: Difficulty
    private var messages: [String: [CampusMessage]]
    private var targetIndex = 0
    private var fix: LocationFix?
    private var fixTime: Timestamp?
    private var hasFix = false
    private var inside: Set<String> = []
    private var notified: Set<String> = []
    private var notificationHidesAt: Timestamp?
    private var user: String?
    private var lastAttitudeTime: Timestamp?
    private var pointed: String?
    private var guidance: (bucket: Int, direction: String)?
    /// Places a puzzle unlocks, not yet unlocked.
    private var secret: Set<String>
    private var solved: Set<String> = []
    private var score = 0

    /// Creates the game on a validated map.
    public init(map: CampusMap) throws(AppConfigError) {
        try map.validate()
        self.map = map
        difficulty = map.difficulty ?? .easy
        messages = Dictionary(grouping: map.messages ?? [], by: \.place)
        secret = Set((map.puzzles ?? []).map(\.unlocks))
        ids = []
        index = PlaceIndex(points: [])
        reindex()
    }

    private var places: [String: CampusPlace] { map.places ?? [:] }

    private mutating func reindex() {
        ids = places.keys.filter { !secret.contains($0) }.sorted()
        index = PlaceIndex(points: ids.map { places[$0]!.coordinate! }, cellSize: 100)
        radii = ids.map(radius)
        largestRadius = radii.max() ?? 25
    }

    private func radius(_ id: String) -> Double { places[id]?.radius ?? map.arrivalRadius ?? 25 }
    private var target: String? { targetIndex < map.route.count ? map.route[targetIndex] : nil }

    public mutating func start(at time: Timestamp, output: inout AppOutput) {
        output.emit("explorer.started", at: time, ["difficulty": .string(difficulty.rawValue), "places": .int(Int64(ids.count))])
        announceTarget(at: time, output: &output)
    }

    public var nextDeadline: Timestamp? {
        Timestamp.earliest(
            hasFix ? fixTime.map { $0 + Self.fixTimeout } : nil, notificationHidesAt,
            pointed != nil ? lastAttitudeTime.map { $0 + Self.pointingTimeout } : nil)
    }

    public mutating func advance(to time: Timestamp, output: inout AppOutput) {
        if let hide = notificationHidesAt, hide <= time {
            output.emit("message.hidden", at: hide)
            notificationHidesAt = nil
        }
        if hasFix, let fixTime, fixTime + Self.fixTimeout <= time {
            loseFix(reason: "no fix for 5 s", at: fixTime + Self.fixTimeout, output: &output)
        }
        if let pointed, let last = lastAttitudeTime, last + Self.pointingTimeout <= time {
            output.emit("pointing.ended", at: last + Self.pointingTimeout, ["place": .string(pointed), "reason": .string("no heading")])
            self.pointed = nil
        }
    }

    public mutating func handle(_ input: AppInput, output: inout AppOutput) {
        switch input {
        case .reading(.location(let fix), _): handle(fix, output: &output)
        case .reading(.attitude(let attitude), _): handle(attitude, output: &output)
        case .command(let command): handle(command, output: &output)
        default: break
        }
    }

    // MARK: Location

    private mutating func handle(_ newFix: LocationFix, output: inout AppOutput) {
        let time = newFix.timestamp
        guard newFix.mode != .none, let position = newFix.coordinate else {
            if hasFix { loseFix(reason: "no fix", at: time, output: &output) }
            return
        }
        fix = newFix
        fixTime = time
        if !hasFix {
            hasFix = true
            output.emit("gps.acquired", at: time, ["accuracy": newFix.horizontalAccuracy.map { .rounded($0) } ?? .string("unknown")])
        }
        let sigma = newFix.horizontalAccuracy ?? 5
        guard sigma <= Self.worstUsableAccuracy else { return }
        updatePlaces(at: position, sigma: sigma, time: time, output: &output)
        if let target, !inside.contains(target) { guide(from: position, to: target, time: time, output: &output) }
    }

    private mutating func loseFix(reason: String, at time: Timestamp, output: inout AppOutput) {
        hasFix = false
        fix = nil
        guidance = nil
        output.emit("gps.lost", at: time, ["reason": .string(reason)])
        if let pointed {
            output.emit("pointing.ended", at: time, ["place": .string(pointed), "reason": .string("no fix")])
            self.pointed = nil
        }
    }

    private mutating func updatePlaces(at position: GeoCoordinate, sigma: Double, time: Timestamp, output: inout AppOutput) {
        let near = index.points(within: 2 * largestRadius + sigma, of: position)
        // Each hit's distance on the ellipsoid, by the hits' order, worked out only where it is needed: the index's
        // distance on the sphere is within 0.6 % of it (the ellipsoid's radii of curvature lie within that of the
        // sphere's), so a comparison that the sphere's distance passes or fails by more than 1 % goes the same way.
        var exact = [Double?](repeating: nil, count: near.count)
        func distance(_ hit: Int) -> Double {
            if let known = exact[hit] { return known }
            let distance = position.distance(to: index.points[near[hit].index])
            exact[hit] = distance
            return distance
        }
        /// `test` of hit `hit`'s distance, a test that turns at about `bound`: of the sphere's distance where that is
        /// far enough from the bound, of the ellipsoid's where it is not.
        func decide(_ hit: Int, near bound: Double, _ test: (Double) -> Bool) -> Bool {
            let sphere = near[hit].distance
            return test(abs(sphere - bound) > 0.01 * sphere + 1e-6 ? sphere : distance(hit))
        }
        // σ counts up to half a radius: a fix good enough to use can always arrive at the centre.
        func doubt(_ r: Double) -> Double { min(sigma, r / 2) }
        for id in inside.sorted() {
            let r = radius(id)
            let gone = { (distance: Double) in distance - doubt(r) > r + max(5, 0.2 * r) }
            guard near.indices.first(where: { ids[near[$0].index] == id }).map({ decide($0, near: r + max(5, 0.2 * r) + doubt(r), gone) }) ?? true
            else { continue }
            inside.remove(id)
            output.emit("place.left", at: time, ["place": .string(id)])
        }
        for hit in near.indices {
            let id = ids[near[hit].index]
            let r = radii[near[hit].index]
            if !inside.contains(id), decide(hit, near: r - doubt(r), { $0 + doubt(r) <= r }) {
                inside.insert(id)
                var arrived: [String: AppEventValue] = ["place": .string(id), "name": .string(places[id]?.name ?? id), "distance": .rounded(distance(hit))]
                if let info = places[id]?.info { arrived["info"] = .string(info) }
                output.emit("place.arrived", at: time, arrived)
                if id == target { reachTarget(at: time, output: &output) }
            }
            let count = messages[id]?.count ?? 0
            if count > 0, !notified.contains(id), decide(hit, near: 2 * r, { $0 <= 2 * r }) {
                notified.insert(id)
                if notificationHidesAt != nil { output.emit("message.hidden", at: time) }  // the newer one replaces it
                notificationHidesAt = time + Self.notificationTime
                output.emit("message.nearby", at: time, ["place": .string(id), "count": .int(Int64(count))])
            } else if decide(hit, near: 3 * r, { $0 > 3 * r }) {
                notified.remove(id)
            }
        }
    }

    private mutating func reachTarget(at time: Timestamp, output: inout AppOutput) {
        guard let target else { return }
        output.emit("target.reached", at: time, ["place": .string(target)])
        targetIndex += 1
        guidance = nil
        announceTarget(at: time, output: &output)
    }

    private mutating func announceTarget(at time: Timestamp, output: inout AppOutput) {
        guard let target else {
            output.emit("route.completed", at: time)
            return
        }
        output.emit("target.set", at: time, ["place": .string(target), "name": .string(places[target]?.name ?? target)])
        if difficulty != .easy, let hint = places[target]?.hint {
            output.emit("target.hint", at: time, ["place": .string(target), "hint": .string(hint)])
        }
    }

    private mutating func guide(from position: GeoCoordinate, to target: String, time: Timestamp, output: inout AppOutput) {
        guard let goal = places[target]?.coordinate else { return }
        // One geodesic for both: what `distance(to:)` and `bearing(to:)` give, at half the cost.
        let geodesic = try? position.geodesic(to: goal)
        let distance = geodesic?.distance ?? position.greatCircleDistance(to: goal)
        let bearing = geodesic?.initialBearing ?? 0
        let bucket = Int((distance / Self.guidanceStep).rounded(.up))
        let direction = Self.compassPoint(bearing)
        switch difficulty {
        case .easy:
            guard guidance?.bucket != bucket || guidance?.direction != direction else { return }
            output.emit("target.guidance", at: time, [
                "place": .string(target), "distance": .int(Int64(bucket) * Int64(Self.guidanceStep)),
                "bearing": .rounded(bearing, places: 0), "direction": .string(direction),
            ])
        case .medium, .hard:
            guard let previous = guidance, previous.bucket != bucket else {
                if guidance == nil { guidance = (bucket, direction) }
                return
            }
            output.emit(bucket < previous.bucket ? "target.warmer" : "target.colder", at: time, ["place": .string(target)])
        }
        guidance = (bucket, direction)
    }

    static func compassPoint(_ bearing: Double) -> String {
        let points = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
        return points[Int(((bearing + 22.5) / 45).rounded(.down)) % 8]
    }

    // MARK: Pointing

    private mutating func handle(_ attitude: AttitudeSample, output: inout AppOutput) {
        let time = attitude.timestamp
        lastAttitudeTime = time
        guard hasFix, let position = fix?.coordinate, (fix?.horizontalAccuracy ?? 5) <= Self.worstUsableAccuracy else { return }
        let heading = attitude.heading()
        let cone = map.pointingCone ?? 15
        var best: (id: String, offset: Double, distance: Double, bearing: Double)?
        // The index keeps to a cone a degree wider, by the sphere's bearing; the ellipsoid's bearing decides.
        let candidates = index.points(within: map.pointingRange ?? 200, of: position, bearing: heading, halfAngle: cone + 1)
        for hit in candidates where hit.distance >= 5 {
            let id = ids[hit.index]
            let bearing = position.bearing(to: index.points[hit.index])
            var offset = abs(bearing - heading).truncatingRemainder(dividingBy: 360)
            if offset > 180 { offset = 360 - offset }
            guard offset <= cone else { continue }
            if best == nil || offset < best!.offset { best = (id, offset, hit.distance, bearing) }
        }
        guard best?.id != pointed else { return }
        if let pointed { output.emit("pointing.ended", at: time, ["place": .string(pointed), "reason": .string("turned away")]) }
        pointed = best?.id
        if let best {
            output.emit("place.pointed", at: time, [
                "place": .string(best.id), "name": .string(places[best.id]?.name ?? best.id),
                "distance": .rounded(best.distance, places: 0), "bearing": .rounded(best.bearing, places: 0),
                "info": .string(places[best.id]?.info ?? ""),
            ])
        }
    }

    // MARK: Commands

    private mutating func handle(_ command: AppCommand, output: inout AppOutput) {
        let time = command.timestamp
        let arguments = command.arguments
        func refuse(_ reason: String) {
            output.refuse(command, reason)
        }
        switch command.action {
        case "signIn":
            guard let name = arguments["user"], !name.isEmpty else { return refuse("a user name is needed") }
            user = name
            output.emit("user.signedIn", at: time, ["user": .string(name)])
        case "signOut":
            user = nil
            output.emit("user.signedOut", at: time)
        case "leaveMessage":
            guard let user else { return refuse("sign in to leave a message") }
            guard hasFix, let place = inside.sorted().first else { return refuse("messages are left at a place; you are not at one") }
            let text = arguments["text"] ?? ""
            guard !text.isEmpty, text.count <= CampusMap.Limits.messageLength else {
                return refuse("a message has 1–\(CampusMap.Limits.messageLength) characters; this has \(text.count)")
            }
            messages[place, default: []].append(CampusMessage(place: place, author: user, text: text))
            output.emit("message.left", at: time, ["place": .string(place), "author": .string(user)])
        case "readMessages":
            guard hasFix, let place = inside.sorted().first(where: { messages[$0] != nil }) else {
                return refuse("messages can be read only at their place")
            }
            for message in messages[place] ?? [] {
                output.emit("message.read", at: time, ["place": .string(place), "author": .string(message.author), "text": .string(message.text)])
            }
        case "addPlace":
            switch checkedPlace(arguments) {
            case .failure(let problems):
                return refuse(problems.joined(separator: "; "))
            case .success(let (id, place)):
                map.places = (map.places ?? [:]).merging([id: place]) { _, new in new }
                reindex()
                output.emit("place.added", at: time, ["place": .string(id), "name": .string(place.name ?? id)])
            }
        case "showPuzzles" where difficulty != .hard, "solvePuzzle" where difficulty != .hard:
            refuse("please change your difficulty level to hard")
        case "showPuzzles":
            let puzzles = map.puzzles ?? []
            output.emit("puzzles.shown", at: time, [
                "puzzles": .string(puzzles.map(\.id).joined(separator: ",")),
                "solved": .string(puzzles.map(\.id).filter(solved.contains).joined(separator: ",")), "score": .int(Int64(score)),
            ])
        case "solvePuzzle":
            guard let puzzle = map.puzzles?.first(where: { $0.id == arguments["id"] }) else { return refuse("no such puzzle") }
            guard !solved.contains(puzzle.id) else { return refuse("'\(puzzle.id)' is already solved") }
            func normal(_ text: String) -> String { text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            guard normal(arguments["answer"] ?? "") == normal(puzzle.answer) else {
                return output.emit("puzzle.failed", at: time, ["puzzle": .string(puzzle.id)])
            }
            solved.insert(puzzle.id)
            score += puzzle.score ?? 10
            secret.remove(puzzle.unlocks)
            reindex()
            output.emit("puzzle.solved", at: time, ["puzzle": .string(puzzle.id), "score": .int(Int64(score))])
            output.emit("place.unlocked", at: time, ["place": .string(puzzle.unlocks), "name": .string(places[puzzle.unlocks]?.name ?? puzzle.unlocks)])
        case "setDifficulty":
            guard let value = arguments["value"].flatMap(Difficulty.init(rawValue:)) else { return refuse("difficulty is easy, medium or hard") }
            difficulty = value
            guidance = nil
            output.emit("difficulty.set", at: time, ["difficulty": .string(value.rawValue)])
        default:
            refuse("unknown action")
        }
    }

    /// The add-place form checked whole: every problem, or the place and its id (the name's, in lower case with
    /// dashes, when the form gives none).
    private func checkedPlace(_ form: [String: String]) -> Result<(String, CampusPlace), FormProblems> {
        var problems: [String] = []
        func text(_ key: String) -> String? { form[key].flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 } }
        let empty = ["name", "lat", "lon", "description"].filter { text($0) == nil }
        if !empty.isEmpty { problems.append("fill in every field; empty: \(empty.joined(separator: ", "))") }
        func coordinate(_ key: String, _ range: ClosedRange<Double>) -> Double? {
            guard let given = text(key) else { return nil }
            guard let value = Double(given), range.contains(value) else {
                problems.append("\(key) \(given) is not a valid coordinate; expected \(CampusMap.Limits.text(range, "degrees"))")
                return nil
            }
            return value
        }
        let lat = coordinate("lat", CampusMap.Limits.latitude), lon = coordinate("lon", CampusMap.Limits.longitude)
        for key in ["name", "description"] {
            guard let value = text(key) else { continue }
            let illegal = value.filter { !($0.isLetter || $0.isNumber || $0 == " " || Self.allowedPunctuation.contains($0)) }
            if !illegal.isEmpty { problems.append("\(key) has illegal characters: \(String(Set(illegal)).sorted().map { "'\($0)'" }.joined(separator: " "))") }
        }
        if let name = text("name"), !CampusMap.Limits.nameLength.contains(name.count) {
            problems.append("name has \(name.count) characters; expected \(CampusMap.Limits.nameText)")
        }
        let radius = text("radius").flatMap(Double.init)
        if let given = text("radius"), radius.map({ !CampusMap.Limits.radius.contains($0) }) ?? true {
            problems.append("radius \(given) is out of range; expected \(CampusMap.Limits.text(CampusMap.Limits.radius, "m"))")
        }
        let name = text("name") ?? ""
        let id = text("id") ?? name.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: "-")
        if !name.isEmpty, id.isEmpty || id.contains(where: { !($0.isLetter || $0.isNumber || $0 == "-") }) {
            problems.append("the id '\(id)' needs letters, digits and dashes only, and at least one letter or digit")
        }
        // Places in id order, so that a refusal names the same place every run; a secret place is not named.
        let known = places.sorted { $0.key < $1.key }
        func named(_ entry: (key: String, value: CampusPlace)) -> String {
            secret.contains(entry.key) ? "a place" : "\(entry.value.name ?? entry.key) (\(entry.key))"
        }
        if let same = known.first(where: { $0.value.name?.lowercased() == name.lowercased() && !name.isEmpty }) {
            problems.append("'\(name)' already exists: \(named(same))")
        } else if places[id] != nil, !id.isEmpty {
            problems.append("the id '\(id)' is already a place")
        }
        let here = lat.flatMap { lat in lon.map { GeoCoordinate(latitude: lat, longitude: $0) } }
        if let here, let near = known.first(where: { ($0.value.coordinate?.distance(to: here) ?? .infinity) <= Self.duplicateDistance }) {
            problems.append("\(named(near)) is already at that position")
        }
        guard problems.isEmpty else { return .failure(FormProblems(problems)) }
        return .success((id, CampusPlace(name: name, coordinate: here, radius: radius, info: text("description"))))
    }
}

/// What is wrong with a form, every problem in order.
struct FormProblems: Error {
    var problems: [String]
    init(_ problems: [String]) { self.problems = problems }
    func joined(separator: String) -> String { problems.joined(separator: separator) }
}
