import AppCore
import DemoApps
import Audio
import HAL
import Interchange
import Replay
import Synthesis
import TraceFormat
import Testing

@Suite struct TrainerTests {
    static let question = TrainerConfig.Question(level: 1, prompt: "Which face is happy?", choices: ["happy", "sad", "angry"], answer: "happy")

    static func choice(_ index: Int, of count: Int, at seconds: Double) -> [AppInput] { tap(seconds, (Double(index) + 0.5) / Double(count), 0.75) }

    static func reading(_ seconds: Double, happy: Double?) -> AppInput {
        guard let happy else { return .reading(.expression(.noFace(at: at(seconds)))) }
        return .reading(.expression(ExpressionReading(
            timestamp: at(seconds), face: FaceBox(x: 10, y: 10, width: 50, height: 50), scores: ExpressionScores(peak: .happy, score: happy))))
    }

    @Test func narrationReplaysEvery30SecondsWithNoAnswerOnTheInjectedClockAndIsSpoken() async throws {
        let clock = VirtualClock(advancesOnSleep: true)
        let speaker = CapturingSpeaker(info: DeviceInfo(uri: "capture:t", name: "t", kind: .speaker, backend: "capture"), clock: clock)
        let trainer = try EmotionTrainer(config: TrainerConfig(questions: [Self.question]))
        let log = await events(trainer, Self.choice(1, of: 3, at: 45) + Self.choice(0, of: 3, at: 80), end: 200, speaker: speaker)
        // Spoken at 0 and 30; the wrong answer at 45.08 restarts the wait, so the next is at 75.08; answered at 80.08.
        #expect(log.named("narration.spoken").map(\.timestamp) == [at(0), at(30), at(75.08)])
        #expect(log.named("narration.spoken").last?.attributes["count"] == .int(3))
        #expect(speaker.captures.map(\.item) == Array(repeating: .speech(text: "Which face is happy?", voice: "en"), count: 3))
        #expect(log.last?.name == "stats")
    }

    @Test func wrongAnswersGreyOutAndWhenAllAreUsedTheQuestionMovesToTheBack() async throws {
        let second = TrainerConfig.Question(level: 2, prompt: "Which face is sad?", choices: ["happy", "sad", "angry", "scared"], answer: "sad")
        let trainer = try EmotionTrainer(config: TrainerConfig(questions: [second, Self.question]))
        var inputs = Self.choice(1, of: 3, at: 1) + Self.choice(1, of: 3, at: 2) + Self.choice(2, of: 3, at: 3)  // sad, sad again, angry
        inputs += Self.choice(1, of: 4, at: 4)  // level 2 next: sad is right
        inputs += Self.choice(0, of: 3, at: 5)  // the skipped question again: happy
        let log = await events(trainer, inputs)
        #expect(log.named("answer.wrong").map { $0.attributes["choice"] } == [.string("sad"), .string("angry")])
        #expect(log.named("question.skipped").map(\.timestamp) == [at(3.08)])
        #expect(log.named("question.shown").map { $0.attributes["question"] } == [.int(2), .int(1), .int(2)])
        let stats = try #require(log.named("stats").first)
        #expect(stats.attributes["correct"] == .int(2))
        #expect(stats.attributes["incorrect"] == .int(2))
        #expect(stats.attributes["skipped"] == .int(1))
    }

    /// The readings of one frame with two tracked faces: `first` ranked first.
    static func twoFaces(_ seconds: Double, first: (id: Int, happy: Double), second: (id: Int, happy: Double)) -> [AppInput] {
        [first, second].enumerated().map { rank, face in
            .reading(.expression(ExpressionReading(
                timestamp: at(seconds), face: FaceBox(x: 10 + 300 * rank, y: 10, width: 80 - 20 * rank, height: 80 - 20 * rank),
                scores: ExpressionScores(peak: .happy, score: face.happy), faceID: face.id, rank: rank, faceCount: 2)))
        }
    }

    @Test func withTwoChildrenInViewTheMostProminentIsScoredAndASwitchIsSaidAndBreaksTheHold() async throws {
        let trainer = try EmotionTrainer(config: TrainerConfig(
            questions: [], facialFun: [.init(target: .happy, threshold: 0.7, hold: 1.0)]))
        // Child 1 (ranked first) smiles while child 2 does not: child 2's low score changes nothing.
        var inputs = (0..<6).flatMap { Self.twoFaces(Double($0) / 10, first: (1, 0.9), second: (2, 0.1)) }
        // At 0.6 s child 2 comes forward and smiles: a switch, and the hold starts again from there.
        inputs += (6..<20).flatMap { Self.twoFaces(Double($0) / 10, first: (2, 0.9), second: (1, 0.9)) }
        let log = await events(trainer, inputs)
        #expect(log.named("facialFun.faceFound").map(\.attributes) == [["face": .int(1), "faces": .int(2)]])
        let switched = log.named("facialFun.faceSwitched")
        #expect(switched.map(\.timestamp) == [at(0.6)])
        #expect(switched.first?.attributes == ["from": .int(1), "face": .int(2), "faces": .int(2)])
        #expect(log.named("facialFun.holdBroken").first?.attributes["reason"] == .string("faceSwitched"))
        #expect(log.named("facialFun.holding").map(\.timestamp) == [at(0), at(0.6)])
        #expect(log.named("facialFun.correct").map(\.timestamp) == [at(1.6)])
    }

    @Test func anExpressionFlickeringAroundTheThresholdNeverCountsUntilItHolds() async throws {
        let trainer = try EmotionTrainer(config: TrainerConfig(
            questions: [], facialFun: [.init(target: .happy, threshold: 0.7, hold: 1.0)]))
        // 10 Hz for 5 s alternating 0.72 and 0.68: never held for a second.
        let flicker = (0..<50).map { Self.reading(Double($0) / 10, happy: $0 % 2 == 0 ? 0.72 : 0.68) }
        let flickered = await events(trainer, flicker)
        #expect(flickered.named("facialFun.correct").isEmpty)
        #expect(flickered.named("facialFun.holdBroken").count == 25)
        // Held for 1 s from 5.0 s: correct at 6.0 s exactly.
        let held = flicker + (50...60).map { Self.reading(Double($0) / 10, happy: 0.75) }
        let log = await events(trainer, held)
        #expect(log.named("facialFun.correct").map(\.timestamp) == [at(6)])
    }

    @Test func noFaceAndNoCameraGiveClearStatesAndRetryOrSkip() async throws {
        let trainer = try EmotionTrainer(config: TrainerConfig(
            questions: [], facialFun: [.init(target: .happy, threshold: 0.7, hold: 1.0), .init(target: .sad, threshold: 0.6, hold: 0.5)]))
        var inputs = [Self.reading(0.5, happy: 0.9), Self.reading(0.6, happy: nil), Self.reading(0.7, happy: nil), Self.reading(1.2, happy: 0.9)]
        inputs += tap(10, 0.25, 0.95)  // retry after the camera went quiet at 4.2 s
        inputs += tap(20, 0.75, 0.95)  // skip
        let log = await events(trainer, inputs, end: 30)
        #expect(names(log).filter { $0.hasPrefix("facialFun.") } == [
            "facialFun.shown", "facialFun.faceFound", "facialFun.holding", "facialFun.noFace", "facialFun.faceFound", "facialFun.holding",
            "facialFun.noCamera", "facialFun.retry", "facialFun.shown", "facialFun.noCamera", "facialFun.skipped", "facialFun.shown",
            "facialFun.noCamera",
        ])
        #expect(log.named("facialFun.noCamera").map(\.timestamp) == [at(4.2), at(13.08), at(23.08)])
        #expect(log.named("narration.spoken").first?.attributes["text"] == .string("Show me a happy face!"))
    }

    @Test func statisticsAreKeptPerPlayer() async throws {
        let trainer = try EmotionTrainer(config: TrainerConfig(questions: [Self.question, Self.question], player: "ana"))
        var inputs = Self.choice(0, of: 3, at: 2)
        inputs.append(.command(AppCommand(timestamp: at(3), action: "setPlayer", arguments: ["player": "ben"])))
        inputs += Self.choice(2, of: 3, at: 4) + Self.choice(0, of: 3, at: 8)
        let log = await events(trainer, inputs)
        let stats = log.named("stats")
        #expect(stats.map { $0.attributes["player"] } == [.string("ana"), .string("ben")])
        #expect(stats.map { $0.attributes["meanSeconds"] } == [.double(2.1), .double(6)])
        #expect(stats.map { $0.attributes["incorrect"] } == [.int(0), .int(1)])
    }

    @Test func badContentNamesTheField() {
        #expect(throws: AppConfigError(field: "questions[0].choices", "2 choices; expected 3–5")) {
            try EmotionTrainer(config: TrainerConfig(questions: [.init(level: 1, prompt: "?", choices: ["a", "b"], answer: "a")]))
        }
        #expect(throws: AppConfigError(field: "questions[0].level", "6; expected 1–5")) {
            try EmotionTrainer(config: TrainerConfig(questions: [.init(level: 6, prompt: "?", choices: ["a", "b", "c"], answer: "a")]))
        }
        #expect(throws: AppConfigError(field: "questions[0].answer", "'d' is not one of the choices")) {
            try EmotionTrainer(config: TrainerConfig(questions: [.init(level: 1, prompt: "?", choices: ["a", "b", "c"], answer: "d")]))
        }
    }
}
