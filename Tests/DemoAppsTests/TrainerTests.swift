import HALTestDoubles
import AppCore
import DemoApps
import Audio
import HAL
import Foundation
import Testing
import TestSupport

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
        // Spoken 2.5 s after the picture and 30 s later; the wrong answer at 45.08 restarts the wait, so the next is at
        // 75.08; answered at 80.08, and the narrator says so.
        #expect(log.named("narration.spoken").map(\.timestamp) == [at(2.5), at(32.5), at(75.08)])
        #expect(log.named("narration.spoken").last?.attributes["count"] == .int(3))
        #expect(speaker.captures.map(\.item) == Array(repeating: .speech(text: "Which face is happy?", voice: "en"), count: 3)
            + [.speech(text: "Correct!", voice: "en")])
        #expect(log.last(where: { !$0.name.hasPrefix("speaker.") })?.name == "stats")
    }

    static let sounds = TrainerConfig.Sounds(
        correct: packageRoot + "/traces/trainer/sounds/correct.wav", incorrect: packageRoot + "/traces/trainer/sounds/incorrect.wav",
        click: packageRoot + "/traces/trainer/sounds/click.wav")

    static func speaker() -> CapturingSpeaker<VirtualClock> {
        CapturingSpeaker(info: DeviceInfo(uri: "capture:t", name: "t", kind: .speaker, backend: "capture"), clock: VirtualClock(), speech: .estimated)
    }

    static func heard(_ speaker: CapturingSpeaker<VirtualClock>) -> [String] {
        speaker.captures.map { capture in
            switch capture.item {
            case .clip(let name): "\(name.split(separator: "/").last!)@\(capture.start.seconds)"
            case .speech(let text, _): "'\(text)'@\(capture.start.seconds)"
            }
        }
    }

    @Test func answersClickAndSoundRightOrWrongAndTheSettingsSwitchThemAndSetTheVolume() async throws {
        var config = TrainerConfig(questions: [Self.question])
        config.sounds = Self.sounds
        config.volume = 30
        let speaker = Self.speaker()
        var inputs = Self.choice(1, of: 3, at: 1)  // sad: click, incorrect; the narration (due at 2.5) still comes
        inputs.append(.command(AppCommand(timestamp: at(4), action: "setSoundFeedback", arguments: ["on": "false"])))
        inputs += Self.choice(2, of: 3, at: 5)  // angry: silent, and the question moves to the back (itself)
        inputs.append(.command(AppCommand(timestamp: at(6), action: "setSoundFeedback", arguments: ["on": "true"])))
        inputs.append(.command(AppCommand(timestamp: at(7), action: "volumeDown")))
        inputs.append(.command(AppCommand(timestamp: at(8), action: "volumeDown")))  // 25 %: the least
        inputs.append(.command(AppCommand(timestamp: at(9), action: "setVolume", arguments: ["percent": "42"])))
        inputs.append(.command(AppCommand(timestamp: at(10), action: "setNarration", arguments: ["on": "false"])))
        inputs += Self.choice(0, of: 3, at: 11)  // happy: click, correct, and no "Correct!" with narration off
        let log = await events(try EmotionTrainer(config: config), inputs, end: 20, speaker: speaker)
        #expect(Self.heard(speaker) == [
            "click.wav@1.08", "incorrect.wav@1.12", "'Which face is happy?'@2.5", "'Which face is happy?'@7.58",
            "click.wav@11.08", "correct.wav@11.12",
        ])
        #expect(log.named("volume.set").map { $0.attributes["percent"] } == [.int(25)])
        #expect(log.named("command.refused").map { $0.attributes["reason"] } == [
            .string("the volume is already at 25 %"), .string("percent is 25…100 in steps of 5"),
        ])
        // The volume goes to the speaker: 30 % at the start, then 25 %: the click at 25 % is 20·log10(25/30) dB quieter.
        let clicks = speaker.captures.filter { $0.item == .clip(name: Self.sounds.click) }.map(\.loudness.truePeak)  // 40 ms: too short for integrated loudness
        let expected: Double = 20 * log10(25.0 / 30)
        let change: Double = clicks[1] - clicks[0]
        #expect(abs(change - expected) < 0.1, "\(clicks)")
        #expect(throws: AppConfigError(field: "volume", "42; expected 25…100 in steps of 5")) {
            var bad = config
            bad.volume = 42
            try bad.validate()
        }
        #expect(throws: AppConfigError(field: "narrationDelay", "1.0; expected 2…3 seconds")) {
            var bad = config
            bad.narrationDelay = 1
            try bad.validate()
        }
    }

    @Test func narrationSwitchedOffStopsAndSwitchedOnNarratesTheQuestionAgain() async throws {
        var inputs: [AppInput] = [.command(AppCommand(timestamp: at(3), action: "setNarration", arguments: ["on": "false"]))]
        inputs.append(.command(AppCommand(timestamp: at(10), action: "setNarration", arguments: ["on": "true"])))
        let speaker = Self.speaker()
        let log = await events(try EmotionTrainer(config: TrainerConfig(questions: [Self.question])), inputs, end: 50, speaker: speaker)
        // Spoken at 2.5 s, stopped at 3 s; on again at 10 s: spoken at 12.5 s and 30 s later.
        #expect(log.named("narration.spoken").map(\.timestamp) == [at(2.5), at(12.5), at(42.5)])
        #expect(log.named("speaker.stopped").map(\.timestamp) == [at(3)])
    }

    @Test func skipMovesAQuestionBackAndDoneEndsTheSessionOnAnyScreen() async throws {
        let sad = TrainerConfig.Question(level: 2, prompt: "Which face is sad?", choices: ["happy", "sad", "angry"], answer: "sad")
        var inputs = tap(1, 0.75, 0.95)  // skip "happy"
        inputs += Self.choice(1, of: 3, at: 2)  // "sad" answered
        inputs += tap(3, 0.92, 0.05)  // Done, on "happy" again
        inputs += Self.choice(0, of: 3, at: 4)  // after Done: nothing
        let log = await events(try EmotionTrainer(config: TrainerConfig(questions: [Self.question, sad])), inputs, end: 10)
        #expect(log.named("question.skipped").map { $0.attributes["reason"] } == [.string("skip")])
        #expect(log.named("question.shown").map { $0.attributes["prompt"] } == [
            .string("Which face is happy?"), .string("Which face is sad?"), .string("Which face is happy?"),
        ])
        #expect(log.named("session.finished").map { "\($0.timestamp.seconds) \($0.attributes["reason"]!)" } == ["3.08 done"])
        #expect(log.named("answer.correct").count == 1)
        #expect(log.last?.name == "stats" && log.last?.attributes["skipped"] == .int(1))
    }

    @Test func facialFunTakesThePhotoOnATapOrAKeyAndScoresThatFrame() async throws {
        var config = TrainerConfig(questions: [], facialFun: [.init(target: .happy, threshold: 0.7, hold: 0)])
        config.sounds = Self.sounds
        let speaker = Self.speaker()
        var inputs = tap(0.5, 0.5, 0.4)  // no reading yet: no face
        inputs += [Self.reading(1, happy: 0.5)] + tap(1.2, 0.5, 0.4)  // 0.5: not yet
        inputs += [Self.reading(2, happy: 0.9)]  // a high score alone does not count: the photo does
        inputs.append(.reading(.key(KeyEvent(timestamp: at(2.5), code: 30, state: .press))))  // A: not a photo key
        inputs.append(.reading(.key(KeyEvent(timestamp: at(2.6), code: 57, state: .press))))  // Space: the photo
        let log = await events(try EmotionTrainer(config: config), inputs, end: 10, speaker: speaker)
        #expect(log.named("facialFun.photo").map { "\($0.timestamp.seconds) \($0.attributes["face"]!) \($0.attributes["score"]?.description ?? "-")" } == [
            "0.58 false -", "1.28 true 0.5", "2.6 true 0.9",
        ])
        #expect(log.named("facialFun.incorrect").count == 1)
        #expect(log.named("facialFun.correct").map(\.timestamp) == [at(2.6)])
        #expect(Self.heard(speaker).filter { $0.hasPrefix("correct") || $0.hasPrefix("incorrect") || $0.hasPrefix("'Correct") } == [
            "incorrect.wav@0.62", "incorrect.wav@1.32", "correct.wav@2.64", "'Correct!'@3.14",
        ])
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
            questions: [], facialFun: [.init(target: .happy, threshold: 0.7, hold: 1.0, capture: .hold)]))
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
            questions: [], facialFun: [.init(target: .happy, threshold: 0.7, hold: 1.0, capture: .hold)]))
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
            questions: [], facialFun: [.init(target: .happy, threshold: 0.7, hold: 1.0, capture: .hold), .init(target: .sad, threshold: 0.6, hold: 0.5, capture: .hold)]))
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
