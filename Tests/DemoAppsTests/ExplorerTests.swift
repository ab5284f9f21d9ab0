import Foundation
import AppCore
import DemoApps
import HAL
import Testing

@Suite struct ExplorerTests {
    static let library = GeoCoordinate(latitude: 49.26665, longitude: -123.255125)
    static let tower = GeoCoordinate(latitude: 49.267351, longitude: -123.253656)

    static func map(difficulty: Difficulty = .easy, messages: [CampusMessage] = []) -> CampusMap {
        CampusMap(
            places: [
                "library": CampusPlace(name: "Koerner Library", coordinate: library, radius: 30, info: "Books", hint: "Quiet"),
                "tower": CampusPlace(name: "Clock Tower", coordinate: tower, radius: 20, info: "Bells"),
            ],
            route: ["tower", "library"], difficulty: difficulty, messages: messages)
    }

    /// A fix `distance` metres from `place` on `bearing`.
    static func fix(_ seconds: Double, _ distance: Double, from place: GeoCoordinate = tower, bearing: Double = 0, accuracy: Double = 3) -> AppInput {
        .reading(.location(LocationFix(
            timestamp: at(seconds), mode: .threeDimensional, coordinate: place.destination(distance: distance, bearing: bearing),
            horizontalAccuracy: accuracy)))
    }

    static func heading(_ seconds: Double, _ degrees: Double) -> AppInput {
        let radians = degrees * .pi / 180
        let forward = Vector3(x: sin(radians), y: cos(radians), z: 0), right = Vector3(x: cos(radians), y: -sin(radians), z: 0)
        let q = Quaternion(
            rotating: (Vector3(x: 1, y: 0, z: 0), Vector3(x: 0, y: 1, z: 0), Vector3(x: 0, y: 0, z: 1)),
            onto: (right, Vector3(x: 0, y: 0, z: 1), forward * -1))
        return .reading(.attitude(AttitudeSample(timestamp: at(seconds), quaternion: q, frame: .enu)))
    }

    @Test func aNoisyFixAtTheEdgeDoesNotFlicker() async throws {
        // 20 m radius, σ 3 m: fixes wander between 15 and 25 m from the centre.
        var inputs = [Self.fix(0, 60)]
        for second in 1...60 { inputs.append(Self.fix(Double(second), [15.0, 19, 22, 25, 18, 24, 16][second % 7])) }
        let log = await events(try CampusExplorer(map: Self.map()), inputs)
        #expect(log.named("place.arrived").count == 1)
        #expect(log.named("place.left").isEmpty)
    }

    @Test func anInaccurateFixNeitherArrivesNorLeaves() async throws {
        let log = await events(try CampusExplorer(map: Self.map()), [Self.fix(0, 5, accuracy: 80), Self.fix(1, 12, accuracy: 16)])
        // σ 80 m is not used; 12 m + σ (16 m, counted up to half the 20 m radius) > 20 m: not yet sure of being inside.
        #expect(log.named("place.arrived").isEmpty)
        // A fix at the centre arrives even when σ is larger than the radius.
        let centre = await events(try CampusExplorer(map: Self.map()), [Self.fix(0, 3, accuracy: 25)])
        #expect(centre.named("place.arrived").count == 1)
    }

    @Test func gpsLostDuringAnApproachShowsNothingStaleAndArrivesAfterRegaining() async throws {
        var inputs: [AppInput] = [Self.fix(0, 120), Self.fix(1, 80), Self.fix(2, 50)]
        inputs.append(.reading(.location(.noFix(at: at(3)))))
        inputs.append(Self.heading(4, 0))  // pointing at the tower while lost: nothing
        inputs.append(.reading(.location(.noFix(at: at(5)))))
        inputs += [Self.fix(9, 10), Self.fix(10, 8)]
        let log = await events(try CampusExplorer(map: Self.map()), inputs)
        let lost = try #require(log.named("gps.lost").first)
        #expect(lost.timestamp == at(3))
        #expect(log.named("gps.lost").count == 1)
        #expect(log.named("place.pointed").isEmpty)
        #expect(!log.contains { $0.name.hasPrefix("target.") && $0.timestamp > at(3) && $0.timestamp < at(9) })
        let acquired = log.named("gps.acquired").map(\.timestamp)
        #expect(acquired == [at(0), at(9)])
        #expect(log.named("place.arrived").first?.timestamp == at(9))
    }

    @Test func aReceiverThatFallsSilentCountsAsLostAfterFiveSeconds() async throws {
        let log = await events(try CampusExplorer(map: Self.map()), [Self.fix(0, 100), Self.fix(1, 95)], end: 30)
        #expect(log.named("gps.lost").map(\.timestamp) == [at(6)])
        #expect(log.named("gps.lost").first?.attributes["reason"] == .string("no fix for 5 s"))
    }

    @Test func easyGivesDistanceAndBearingMediumGivesHints() async throws {
        let easy = await events(try CampusExplorer(map: Self.map()), [Self.fix(0, 180, bearing: 180), Self.fix(30, 120, bearing: 180)])
        let guidance = easy.named("target.guidance")
        #expect(guidance.map { $0.attributes["distance"] } == [.int(200), .int(150)])
        #expect(guidance.first?.attributes["direction"] == .string("N"))
        let medium = await events(
            try CampusExplorer(map: Self.map(difficulty: .medium)),
            [Self.fix(0, 180, bearing: 180), Self.fix(2, 120, bearing: 180), Self.fix(4, 240, bearing: 180)])
        #expect(medium.named("target.guidance").isEmpty)
        #expect(names(medium).filter { $0.hasPrefix("target.warmer") || $0.hasPrefix("target.colder") } == ["target.warmer", "target.colder"])
        // The tower has no hint; after reaching it, the library's hint shows.
        let reached = await events(try CampusExplorer(map: Self.map(difficulty: .medium)), [Self.fix(0, 2)])
        #expect(reached.named("target.hint").first?.attributes["hint"] == .string("Quiet"))
    }

    @Test func pointingShowsThePlaceOnTheSameSampleAndEndsWhenTheHeadingStops() async throws {
        // Standing 100 m south of the tower; the library is to the south-west of the tower.
        let bearingToTower = Self.tower.destination(distance: 100, bearing: 180).bearing(to: Self.tower)
        let inputs = [Self.fix(0, 100, bearing: 180), Self.heading(0.5, bearingToTower + 40), Self.heading(0.6, bearingToTower + 5),
                      Self.heading(0.7, bearingToTower + 4), Self.fix(1, 100, bearing: 180)]
        let log = await events(try CampusExplorer(map: Self.map()), inputs, end: 5)
        let pointed = try #require(log.named("place.pointed").first)
        #expect(pointed.timestamp == at(0.6))  // well within the 1 s requirement
        #expect(pointed.attributes["place"] == .string("tower"))
        #expect(pointed.attributes["info"] == .string("Bells"))
        #expect(log.named("place.pointed").count == 1)
        #expect(log.named("pointing.ended").first?.timestamp == at(1.7))
    }

    @Test func messagesNeedASignedInUserAndAreReadOnlyAtTheirPlace() async throws {
        let map = Self.map(messages: [CampusMessage(place: "tower", author: "ana", text: "Bells at noon")])
        let long = String(repeating: "x", count: 241)
        let inputs: [AppInput] = [
            Self.fix(0, 35), Self.fix(1, 5),
            .command(AppCommand(timestamp: at(2), action: "leaveMessage", arguments: ["text": "hi"])),
            .command(AppCommand(timestamp: at(3), action: "signIn", arguments: ["user": "maya"])),
            .command(AppCommand(timestamp: at(4), action: "leaveMessage", arguments: ["text": long])),
            .command(AppCommand(timestamp: at(5), action: "leaveMessage", arguments: ["text": String(repeating: "y", count: 240)])),
            Self.fix(5.5, 4),
            .command(AppCommand(timestamp: at(6), action: "readMessages")),
            Self.fix(7, 300), .command(AppCommand(timestamp: at(8), action: "readMessages")),
        ]
        let log = await events(try CampusExplorer(map: map), inputs, end: 20)
        let nearby = try #require(log.named("message.nearby").first)
        #expect(nearby.timestamp == at(0))
        #expect(log.named("message.hidden").map(\.timestamp) == [at(5)])
        let refused = log.named("command.refused").map { $0.attributes["reason"]!.description }
        #expect(refused == [
            "sign in to leave a message", "a message has 1–240 characters; this has 241", "messages can be read only at their place",
        ])
        #expect(log.named("message.left").count == 1)
        #expect(log.named("message.read").count == 2)
    }

    @Test func addingAPlaceReportsEveryProblemAtOnceWithTheValidRanges() async throws {
        let commands: [[String: String]] = [
            ["name": "Fountain", "lat": "91", "lon": "east"],
            ["name": " ", "lat": "49", "description": "A pond"],
            ["name": "Pond <b>", "lat": "49.2", "lon": "-123.2", "description": "Ducks; frogs", "radius": "2"],
            ["name": "clock tower", "lat": "49.2", "lon": "-123.2", "description": "Again"],
            ["name": "Bell", "lat": "\(Self.tower.latitude)", "lon": "\(Self.tower.longitude + 0.0001)", "description": "Right by the tower"],
            ["name": "!?", "lat": "49.1", "lon": "-123.1", "description": "Punctuation only"],
            ["name": "Duck Pond", "lat": "49.2661", "lon": "-123.2540", "description": "Ducks, frogs & reeds", "radius": "15"],
        ]
        let inputs = commands.enumerated().map { AppInput.command(AppCommand(timestamp: at(Double($0.offset)), action: "addPlace", arguments: $0.element)) }
        let log = await events(try CampusExplorer(map: Self.map()), inputs + [Self.fix(10, 3, from: GeoCoordinate(latitude: 49.2661, longitude: -123.2540))])
        #expect(log.named("command.refused").map { $0.attributes["reason"]!.description } == [
            "fill in every field; empty: description; lat 91 is not a valid coordinate; expected −90…90 degrees; lon east is not a valid coordinate; expected −180…180 degrees",
            "fill in every field; empty: name, lon",
            "name has illegal characters: '<' '>'; description has illegal characters: ';'; radius 2 is out of range; expected 5…500 m",
            "'clock tower' already exists: Clock Tower (tower)",
            "Clock Tower (tower) is already at that position",
            "the id '' needs letters, digits and dashes only, and at least one letter or digit",
        ])
        #expect(log.named("place.added").map { $0.attributes["place"] } == [.string("duck-pond")])
        #expect(log.named("place.arrived").first?.attributes["info"] == .string("Ducks, frogs & reeds"))
    }

    @Test func hardDifficultyOpensThePuzzlesAndASolvedOneUnlocksItsSecretPlace() async throws {
        var map = Self.map()
        map.places?["garden"] = CampusPlace(name: "Secret Garden", coordinate: GeoCoordinate(latitude: 49.2661, longitude: -123.2540), radius: 20, info: "Hidden")
        map.puzzles = [CampusPuzzle(id: "bells", question: "What rings on Main Mall?", answer: "The  Carillon", unlocks: "garden")]
        let garden = GeoCoordinate(latitude: 49.2661, longitude: -123.2540)
        var inputs = [Self.fix(0, 3, from: garden)]  // at the secret place: it does not arrive
        inputs += [("showPuzzles", [:]), ("setDifficulty", ["value": "hard"]), ("showPuzzles", [:]),
                   ("solvePuzzle", ["id": "bells", "answer": "bells"]), ("solvePuzzle", ["id": "bells", "answer": "the carillon"]),
                   ("solvePuzzle", ["id": "bells", "answer": "the carillon"])]
            .enumerated().map { AppInput.command(AppCommand(timestamp: at(Double($0.offset + 1)), action: $0.element.0, arguments: $0.element.1)) }
        inputs.append(Self.fix(10, 3, from: garden))
        let log = await events(try CampusExplorer(map: map), inputs)
        #expect(log.named("command.refused").map { $0.attributes["reason"]!.description } == [
            "please change your difficulty level to hard", "'bells' is already solved",
        ])
        #expect(log.named("puzzles.shown").map { $0.attributes["puzzles"] } == [.string("bells")])
        #expect(log.named("puzzle.failed").count == 1)
        #expect(log.named("puzzle.solved").map { $0.attributes["score"] } == [.int(10)])
        #expect(log.named("place.unlocked").map { $0.attributes["place"] } == [.string("garden")])
        #expect(log.named("place.arrived").map(\.timestamp) == [at(10)])
        #expect(throws: AppConfigError(field: "puzzles[0].unlocks", "'tower' is on the route, so it cannot be secret")) {
            var bad = map
            bad.puzzles?[0].unlocks = "tower"
            _ = try CampusExplorer(map: bad)
        }
    }

    /// A place's position is one `GeoCoordinate`, written as `lat` and `lon` beside its other fields; one without the
    /// other is refused, naming the one missing.
    @Test func aPlaceKeepsItsPositionAsOneCoordinate() throws {
        let place = try JSONDecoder().decode(CampusPlace.self, from: Data(#"{"name":"Tower","lat":49.5,"lon":-123.25,"radius":20}"#.utf8))
        #expect(place.coordinate == GeoCoordinate(latitude: 49.5, longitude: -123.25) && place.radius == 20)
        let written = try JSONSerialization.jsonObject(with: JSONEncoder().encode(place)) as? [String: Any]
        #expect(written?["lat"] as? Double == 49.5 && written?["lon"] as? Double == -123.25 && written?["coordinate"] == nil)
        #expect(try JSONDecoder().decode(CampusPlace.self, from: Data(#"{"name":"Tower"}"#.utf8)).coordinate == nil)
        for (json, missing) in [(#"{"lat":49.5}"#, "lon"), (#"{"lon":-123.25}"#, "lat")] {
            do {
                _ = try JSONDecoder().decode(CampusPlace.self, from: Data(json.utf8))
                Issue.record("\(json) was taken")
            } catch DecodingError.keyNotFound(let key, _) {
                #expect(key.stringValue == missing)
            }
        }
    }

    @Test func aMapWithABadPlaceIsRefusedNamingTheField() throws {
        var map = Self.map()
        map.places?["tower"]?.coordinate?.longitude = 200
        #expect(throws: AppConfigError(field: "places.tower.lon", "200.0; expected −180…180 degrees")) { try CampusExplorer(map: map) }
        var route = Self.map()
        route.route.append("moon")
        #expect(throws: AppConfigError(field: "route[2]", "'moon' is not a place")) { try CampusExplorer(map: route) }
    }
}
