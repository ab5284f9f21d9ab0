public import AppCore
public import HAL

/// The emotion-training game (P.E.T.): multiple-choice questions by level, then Facial Fun, where the
/// child shows an expression to the camera and a classifier scores it.
///
/// - **Questions** are asked in level order with their choices in a row of buttons (y 0.6–0.9, equal
///   widths). A wrong choice is greyed out and does nothing when tapped again. When every wrong
///   choice is used, the question is skipped and moved to the back of the queue.
/// - **Narration** speaks the prompt ``TrainerConfig/narrationDelay`` seconds (2.5) after a question or round is
///   shown (after its picture), and again after ``TrainerConfig/narrationRepeat`` seconds (30) with no answer, on
///   the injected clock.
/// - **Feedback** (P.E.T. §4, sound): every button press stops the narration and plays the click; a right answer
///   plays the correct sound and the narrator says "Correct!", a wrong one the incorrect sound. The settings
///   (commands `setNarration on`, `setSoundFeedback on`, `volumeUp`, `volumeDown`, `setVolume percent`) switch
///   narration and sounds, and set the speaker's volume from 25 % to 100 % in steps of 5 (`volume.set`).
/// - **Skip** (y 0.9–1, right half) moves a question to the back of the queue; **Done** (top right, x 0.85–1,
///   y 0–0.1) ends the session on any screen.
/// - **Facial Fun, photo** (the default): the child taps the screen (above the bottom row) or presses Space or
///   Enter when the face is ready, and the latest expression reading (no older than ``holdGap``) is scored:
///   `facialFun.photo`, then `facialFun.correct`, or `facialFun.incorrect` and another chance.
/// - **Facial Fun, hold** (a round's `capture: hold`): the target's score must stay at or above the threshold for the hold time; a
///   reading below it, or with no face, breaks the hold, and so does a gap of more than ``holdGap``
///   between readings (dropped frames): a hold is only as long as readings confirm it. A reading with no face shows
///   `facialFun.noFace`. With several faces in view, the frame's most prominent face (rank 0: the largest, then
///   the most centred) is scored; `facialFun.faceFound` names its tracked id, and `facialFun.faceSwitched` says
///   when another face became the most prominent (which breaks a hold). No reading for
///   ``TrainerConfig/cameraTimeout`` seconds shows
///   `facialFun.noCamera`. **Retry** (y 0.9–1, left half) restarts the round, **skip** (right half) moves on.
/// - **Statistics** per player (command `setPlayer player`): correct, incorrect, skipped and the
///   mean seconds per question, emitted as `stats` when the session ends.
public struct EmotionTrainer: AppLogic {
    /// `trainer`.
    public static let name = "trainer"
    /// Every event the app emits and every command it takes, so that a scenario's typo is refused before the run.
    public static let vocabulary: AppVocabulary? = AppVocabulary(
        events: [
            "answer.correct", "answer.wrong", "facialFun.correct", "facialFun.faceFound", "facialFun.faceSwitched",
            "facialFun.holdBroken", "facialFun.holding", "facialFun.incorrect", "facialFun.noCamera",
            "facialFun.noFace", "facialFun.photo", "facialFun.retry", "facialFun.shown", "facialFun.skipped",
            "narration.spoken", "option.narration", "option.soundFeedback", "player.set", "question.shown",
            "question.skipped", "session.finished", "session.started", "stats", "volume.set",
        ],
        commands: ["setPlayer", "setNarration", "setSoundFeedback", "volumeUp", "volumeDown", "setVolume"],
        attributes: [
            "answer.correct": ["question", "seconds"],
            "answer.wrong": ["choice", "question"],
            "facialFun.correct": ["round", "seconds", "target"],
            "facialFun.faceFound": ["face", "faces"],
            "facialFun.faceSwitched": ["face", "faces", "from"],
            "facialFun.holdBroken": ["gap", "held", "reason", "score"],
            "facialFun.holding": ["score"],
            "facialFun.incorrect": ["round", "score"],
            "facialFun.noCamera": ["seconds"],
            "facialFun.noFace": [],
            "facialFun.photo": ["face", "score"],
            "facialFun.retry": ["round"],
            "facialFun.shown": ["hold", "round", "target", "threshold"],
            "facialFun.skipped": ["round"],
            "narration.spoken": ["count", "text"],
            "option.narration": ["on"],
            "option.soundFeedback": ["on"],
            "player.set": ["player"],
            "question.shown": ["choices", "level", "prompt", "question"],
            "question.skipped": ["question", "reason"],
            "session.finished": ["reason"],
            "session.started": ["narration", "player", "soundFeedback", "volume"],
            "stats": ["correct", "incorrect", "meanSeconds", "player", "skipped"],
            "volume.set": ["percent"],
        ])
    /// The longest gap between expression readings that a hold survives.
    public static let holdGap: Duration = .seconds(1)
    /// The answer buttons.
    public static let choiceRow = ScreenRegion(x: 0, y: 0.6, width: 1, height: 0.3)
    /// Facial Fun's retry button.
    public static let retryButton = ScreenRegion(x: 0, y: 0.9, width: 0.5, height: 0.1)
    /// Facial Fun's skip button, and a question's.
    public static let skipButton = ScreenRegion(x: 0.5, y: 0.9, width: 0.5, height: 0.1)
    /// Leaves the session, on every screen.
    public static let doneButton = ScreenRegion(x: 0.85, y: 0, width: 0.15, height: 0.1)
    /// Keys that take Facial Fun's photo: Space and Enter (`KEY_SPACE`, `KEY_ENTER`).
    public static let photoKeys: Set<Int> = [57, 28]
    /// What the narrator says on a right answer.
    public static let correctWords = "Correct!"

    /// Counts for one player.
    public struct Statistics: Sendable, Hashable {
        /// Questions and rounds answered right.
        public var correct = 0
        /// Wrong choices.
        public var incorrect = 0
        /// Questions and rounds skipped.
        public var skipped = 0
        /// Seconds from showing to answering, per question or round answered.
        public var seconds: [Double] = []
    }

    private enum Phase: Sendable, Hashable {
        case question(Int)
        case facialFun(Int)
        case finished
    }

    private enum FaceState: Sendable, Hashable {
        case waiting, face, noFace, noCamera
    }

    private let config: TrainerConfig
    private let soundFolder: String?
    private var narrationOn: Bool
    private var feedbackOn: Bool
    private var volume: Int
    /// The latest reading of the most prominent face, for a photo.
    private var latestFace: ExpressionReading?
    private var queue: [Int]
    private var phase: Phase = .finished
    private var greyed: Set<String> = []
    private var shownAt: Timestamp = .zero
    private var narration: (text: String, count: Int, next: Timestamp)?
    /// The prompt of the question or round shown.
    private var prompt: String?
    private var player: String
    /// Statistics by player.
    public private(set) var statistics: [String: Statistics] = [:]
    private var taps = TapDetector()
    private var keys = KeyPresses()
    private var faceState: FaceState = .waiting
    private var lastReading: Timestamp?
    private var holdStart: Timestamp?
    /// The tracked face being scored, when the expression source tracks faces.
    private var scoredFace: Int?

    /// Creates the game on validated content. Relative sound paths are played from `soundFolder` (the config
    /// file's folder, for `hal run`); the log names them as written.
    public init(config: TrainerConfig, soundFolder: String? = nil) throws(AppConfigError) {
        try config.validate()
        self.config = config
        self.soundFolder = soundFolder
        narrationOn = config.narration ?? true
        feedbackOn = config.soundFeedback ?? true
        volume = config.volume ?? 100
        queue = config.questions.indices.sorted { (config.questions[$0].level, $0) < (config.questions[$1].level, $1) }
        player = config.player ?? "player"
    }

    private var repeatAfter: Duration { .seconds(config.narrationRepeat ?? 30) }
    private var cameraTimeout: Duration { .seconds(config.cameraTimeout ?? 3) }
    private var voice: String { config.voice ?? "en" }
    private var narrationDelay: Duration { .seconds(config.narrationDelay ?? 2.5) }

    public mutating func start(at time: Timestamp, output: inout AppOutput) {
        output.emit("session.started", at: time, [
            "player": .string(player), "narration": .bool(narrationOn), "soundFeedback": .bool(feedbackOn), "volume": .int(Int64(volume)),
        ])
        output.request(.setVolume(Double(volume) / 100))
        next(at: time, output: &output)
    }

    public var nextDeadline: Timestamp? {
        var camera: Timestamp?
        if case .facialFun = phase, faceState != .noCamera { camera = (lastReading ?? shownAt) + cameraTimeout }
        return Timestamp.earliest(narration?.next, camera)
    }

    public mutating func advance(to time: Timestamp, output: inout AppOutput) {
        if case .facialFun = phase, faceState != .noCamera, (lastReading ?? shownAt) + cameraTimeout <= time {
            let at = (lastReading ?? shownAt) + cameraTimeout
            faceState = .noCamera
            holdStart = nil
            output.emit("facialFun.noCamera", at: at, ["seconds": .rounded((config.cameraTimeout ?? 3))])
        }
        if var current = narration, current.next <= time {
            current.count += 1
            output.emit("narration.spoken", at: current.next, ["text": .string(current.text), "count": .int(Int64(current.count))])
            output.request(.speak(Utterance(text: current.text, voice: voice)))
            current.next = current.next + repeatAfter
            narration = current
        }
    }

    public mutating func handle(_ input: AppInput, output: inout AppOutput) {
        switch input {
        case .reading(.pointer(let event), _):
            if let tap = taps.handle(event) { self.tap(x: tap.x, y: tap.y, at: event.timestamp, output: &output) }
        case .reading(.key(let event), _):
            guard keys.isPress(event), Self.photoKeys.contains(event.code), case .facialFun(let round) = phase,
                  config.facialFun![round].capture ?? .photo == .photo else { break }
            takePhoto(round, at: event.timestamp, output: &output)
        case .reading(.expression(let reading), _):
            handle(reading, output: &output)
        case .command(let command):
            handle(command, output: &output)
        default:
            break
        }
    }

    private mutating func handle(_ command: AppCommand, output: inout AppOutput) {
        let time = command.timestamp
        func on() -> Bool? { command.arguments["on"].flatMap { ["true": true, "false": false][$0] } }
        switch command.action {
        case "setPlayer":
            guard let name = command.arguments["player"], !name.isEmpty else {
                return output.refuse(command, "a player name is needed")
            }
            player = name
            output.emit("player.set", at: time, ["player": .string(name)])
        case "setNarration":
            guard let value = on() else { return output.refuse(command, "on is true or false") }
            narrationOn = value
            output.emit("option.narration", at: time, ["on": .bool(value)])
            if !value, narration?.count ?? 0 > 0 { output.request(.stop) }  // what is being said stops
            // Off: no more narration; on again: the current prompt is narrated after the delay, as when shown.
            narration = nil
            if value, phase != .finished, let prompt { narrate(prompt, at: time, output: &output) }
        case "setSoundFeedback":
            guard let value = on() else { return output.refuse(command, "on is true or false") }
            feedbackOn = value
            output.emit("option.soundFeedback", at: time, ["on": .bool(value)])
        case "volumeUp", "volumeDown", "setVolume":
            let wanted = command.action == "setVolume" ? command.arguments["percent"].flatMap { Int($0) } ?? -1
                : volume + (command.action == "volumeUp" ? 5 : -5)
            guard TrainerConfig.volumes.contains(wanted) else {
                return output.refuse(command, command.action == "setVolume"
                    ? "percent is 25…100 in steps of 5" : "the volume is already at \(volume) %")
            }
            volume = wanted
            output.emit("volume.set", at: time, ["percent": .int(Int64(volume))])
            output.request(.setVolume(Double(volume) / 100))
        default:
            output.refuse(command, "unknown action")
        }
    }

    // MARK: Sound

    private func clip(_ name: String) -> AudioClip { ClipFiles.clip(name, in: soundFolder) }

    /// A button was pressed: the narration gives way, and the click plays.
    private func pressed(output: inout AppOutput) {
        output.request(.stop)
        if feedbackOn, let sounds = config.sounds { output.request(.play(clip(sounds.click))) }
    }

    /// The answer's sound, and on a right answer the narrator's "Correct!".
    private func feedback(correct: Bool, output: inout AppOutput) {
        if feedbackOn, let sounds = config.sounds { output.request(.play(clip(correct ? sounds.correct : sounds.incorrect))) }
        if correct && narrationOn { output.request(.speak(Utterance(text: Self.correctWords, voice: voice))) }
    }

    // MARK: Flow

    private mutating func next(at time: Timestamp, output: inout AppOutput) {
        greyed = []
        shownAt = time
        if let index = queue.first {
            phase = .question(index)
            let question = config.questions[index]
            output.emit("question.shown", at: time, [
                "question": .int(Int64(index + 1)), "level": .int(Int64(question.level)),
                "prompt": .string(question.prompt), "choices": .string(question.choices.joined(separator: ",")),
            ])
            narrate(question.prompt, at: time, output: &output)
            return
        }
        let round: Int
        switch phase {
        case .facialFun(let current): round = current + 1
        default: round = 0
        }
        guard round < (config.facialFun ?? []).count else { return finish(at: time, output: &output) }
        startRound(round, at: time, output: &output)
    }

    private mutating func startRound(_ round: Int, at time: Timestamp, output: inout AppOutput) {
        let target = config.facialFun![round]
        phase = .facialFun(round)
        faceState = .waiting
        holdStart = nil
        lastReading = nil
        latestFace = nil
        scoredFace = nil
        shownAt = time
        output.emit("facialFun.shown", at: time, [
            "round": .int(Int64(round + 1)), "target": .string(target.target.rawValue),
            "threshold": .double(target.threshold), "hold": .double(target.hold),
        ])
        narrate("Show me a \(Self.adjective(target.target)) face!", at: time, output: &output)
    }

    /// Narrates `text` after the picture has shown for the narration delay (the first time of ``advance(to:output:)``).
    private mutating func narrate(_ text: String, at time: Timestamp, output: inout AppOutput) {
        prompt = text
        narration = narrationOn ? (text, 0, time + narrationDelay) : nil
    }

    private mutating func finish(at time: Timestamp, reason: String = "complete", output: inout AppOutput) {
        phase = .finished
        narration = nil
        output.emit("session.finished", at: time, ["reason": .string(reason)])
        for (name, stats) in statistics.sorted(by: { $0.key < $1.key }) {
            let mean = stats.seconds.isEmpty ? 0 : stats.seconds.reduce(0, +) / Double(stats.seconds.count)
            output.emit("stats", at: time, [
                "player": .string(name), "correct": .int(Int64(stats.correct)), "incorrect": .int(Int64(stats.incorrect)),
                "skipped": .int(Int64(stats.skipped)), "meanSeconds": .rounded(mean),
            ])
        }
    }

    private mutating func record(_ change: (inout Statistics) -> Void) {
        change(&statistics[player, default: Statistics()])
    }

    // MARK: Questions

    private mutating func tap(x: Double, y: Double, at time: Timestamp, output: inout AppOutput) {
        if phase != .finished, Self.doneButton.contains(x: x, y: y) {
            pressed(output: &output)
            return finish(at: time, reason: "done", output: &output)
        }
        switch phase {
        case .question(let index):
            let question = config.questions[index]
            if Self.skipButton.contains(x: x, y: y) {
                pressed(output: &output)
                output.emit("question.skipped", at: time, ["question": .int(Int64(index + 1)), "reason": .string("skip")])
                record { $0.skipped += 1 }
                queue.append(queue.removeFirst())
                return next(at: time, output: &output)
            }
            guard let cell = Self.choiceRow.cell(x: x, y: y, columns: question.choices.count, rows: 1),
                  !greyed.contains(question.choices[cell]) else { return }
            pressed(output: &output)
            answer(question.choices[cell], question: index, at: time, output: &output)
        case .facialFun(let round):
            if Self.retryButton.contains(x: x, y: y) {
                pressed(output: &output)
                output.emit("facialFun.retry", at: time, ["round": .int(Int64(round + 1))])
                startRound(round, at: time, output: &output)
            } else if Self.skipButton.contains(x: x, y: y) {
                pressed(output: &output)
                output.emit("facialFun.skipped", at: time, ["round": .int(Int64(round + 1))])
                record { $0.skipped += 1 }
                next(at: time, output: &output)
            } else if y < Self.retryButton.y, config.facialFun![round].capture ?? .photo == .photo {
                takePhoto(round, at: time, output: &output)
            }
        case .finished:
            break
        }
    }

    private mutating func answer(_ choice: String, question index: Int, at time: Timestamp, output: inout AppOutput) {
        let question = config.questions[index]
        guard !greyed.contains(choice) else { return }
        let seconds = shownAt.duration(to: time).seconds
        if choice == question.answer {
            output.emit("answer.correct", at: time, ["question": .int(Int64(index + 1)), "seconds": .rounded(seconds)])
            feedback(correct: true, output: &output)
            record { $0.correct += 1; $0.seconds.append(seconds) }
            queue.removeFirst()
            return next(at: time, output: &output)
        }
        greyed.insert(choice)
        record { $0.incorrect += 1 }
        output.emit("answer.wrong", at: time, ["question": .int(Int64(index + 1)), "choice": .string(choice)])
        feedback(correct: false, output: &output)
        // An answer is activity: a narration already spoken waits again before it replays.
        if let spoken = narration, spoken.count > 0 { narration = (spoken.text, spoken.count, time + repeatAfter) }
        if greyed.count == question.choices.count - 1 {
            output.emit("question.skipped", at: time, ["question": .int(Int64(index + 1)), "reason": .string("every wrong choice used")])
            record { $0.skipped += 1 }
            queue.append(queue.removeFirst())
            next(at: time, output: &output)
        }
    }

    // MARK: Facial Fun

    /// How the narration names an expression.
    static func adjective(_ expression: Expression) -> String {
        switch expression {
        case .angry: "angry"
        case .disgust: "disgusted"
        case .fear: "scared"
        case .happy: "happy"
        case .sad: "sad"
        case .surprise: "surprised"
        case .neutral: "calm"
        }
    }

    /// The round's expression was shown: counted, sounded, and on to the next.
    private mutating func roundWon(_ round: Int, at time: Timestamp, output: inout AppOutput) {
        let seconds = shownAt.duration(to: time).seconds
        output.emit("facialFun.correct", at: time, [
            "round": .int(Int64(round + 1)), "target": .string(config.facialFun![round].target.rawValue), "seconds": .rounded(seconds),
        ])
        feedback(correct: true, output: &output)
        record { $0.correct += 1; $0.seconds.append(seconds) }
        next(at: time, output: &output)
    }

    /// Scores the latest frame's face (no older than ``holdGap``) against the round's target.
    private mutating func takePhoto(_ round: Int, at time: Timestamp, output: inout AppOutput) {
        let target = config.facialFun![round]
        pressed(output: &output)
        guard let face = latestFace, face.timestamp.duration(to: time) <= Self.holdGap, let scores = face.scores else {
            output.emit("facialFun.photo", at: time, ["face": .bool(false)])
            return feedback(correct: false, output: &output)
        }
        let score = scores[target.target]
        output.emit("facialFun.photo", at: time, ["face": .bool(true), "score": .rounded(score, places: 3)])
        if score >= target.threshold {
            roundWon(round, at: time, output: &output)
        } else {
            output.emit("facialFun.incorrect", at: time, ["round": .int(Int64(round + 1)), "score": .rounded(score, places: 3)])
            feedback(correct: false, output: &output)
            record { $0.incorrect += 1 }
        }
    }

    private mutating func handle(_ reading: ExpressionReading, output: inout AppOutput) {
        guard case .facialFun(let round) = phase else { return }
        // Several faces in view: the frame's most prominent one (rank 0: the largest, then the most centred) is scored.
        guard reading.rank == 0 else { return }
        latestFace = reading
        let time = reading.timestamp
        let target = config.facialFun![round]
        if let start = holdStart, let previous = lastReading, previous.duration(to: time) > Self.holdGap {
            holdStart = nil
            output.emit("facialFun.holdBroken", at: time, [
                "held": .rounded(start.duration(to: previous).seconds), "gap": .rounded(previous.duration(to: time).seconds),
            ])
        }
        lastReading = time
        guard let scores = reading.scores else {
            if faceState != .noFace {
                faceState = .noFace
                output.emit("facialFun.noFace", at: time)
            }
            holdStart = nil
            scoredFace = nil
            return
        }
        let tracked: [String: AppEventValue] = reading.faceID.map { ["face": .int(Int64($0)), "faces": .int(Int64(reading.faceCount))] } ?? [:]
        if faceState != .face {
            faceState = .face
            output.emit("facialFun.faceFound", at: time, tracked)
        } else if let previous = scoredFace, let current = reading.faceID, previous != current {
            // Another child is now the most prominent: the hold was someone else's.
            output.emit("facialFun.faceSwitched", at: time, tracked.merging(["from": .int(Int64(previous))]) { $1 })
            if let start = holdStart {
                holdStart = nil
                output.emit("facialFun.holdBroken", at: time, ["reason": .string("faceSwitched"), "held": .rounded(start.duration(to: time).seconds)])
            }
        }
        scoredFace = reading.faceID
        guard target.capture == .hold else { return }  // a photo round scores the frame of the tap
        let score = scores[target.target]
        if score >= target.threshold {
            if holdStart == nil {
                holdStart = time
                output.emit("facialFun.holding", at: time, ["score": .rounded(score, places: 3)])
            }
            if let start = holdStart, start.duration(to: time).seconds >= target.hold {
                roundWon(round, at: time, output: &output)
            }
        } else if let start = holdStart {
            holdStart = nil
            output.emit("facialFun.holdBroken", at: time, ["score": .rounded(score, places: 3), "held": .rounded(start.duration(to: time).seconds)])
        }
    }
}
