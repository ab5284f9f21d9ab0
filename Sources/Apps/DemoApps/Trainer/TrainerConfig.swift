public import AppCore
public import HAL

/// The emotion trainer's content: questions by level, Facial Fun rounds, narration.
public struct TrainerConfig: Sendable, Hashable, Codable {
    /// A multiple-choice question.
    public struct Question: Sendable, Hashable, Codable {
        /// Difficulty, 1–5. Questions are asked in level order.
        public var level: Int
        /// What the narrator asks.
        public var prompt: String
        /// 3–5 distinct choices.
        public var choices: [String]
        /// The right choice.
        public var answer: String

        /// Creates a question.
        public init(level: Int, prompt: String, choices: [String], answer: String) {
            self.level = level
            self.prompt = prompt
            self.choices = choices
            self.answer = answer
        }
    }

    /// A Facial Fun round: show the target expression strongly enough, long enough.
    public struct FacialFunRound: Sendable, Hashable, Codable {
        /// The expression to show.
        public var target: Expression
        /// The score the target must reach, 0…1.
        public var threshold: Double
        /// Seconds the score must stay at or above the threshold, in `hold` mode.
        public var hold: Double
        /// How the expression is judged: `photo` (the default, P.E.T.'s own: the child taps the screen or presses a
        /// key when the face is ready, and that frame is scored) or `hold` (the score must stay up for `hold` s).
        public var capture: Capture?

        /// How a Facial Fun round judges the expression.
        public enum Capture: String, Sendable, Hashable, Codable {
            /// The frame at a tap or a key press is scored.
            case photo
            /// The score must stay at or above the threshold for the hold time.
            case hold
        }

        /// Creates a round.
        public init(target: Expression, threshold: Double, hold: Double, capture: Capture = .photo) {
            self.target = target
            self.threshold = threshold
            self.hold = hold
            self.capture = capture
        }
    }

    /// The clips of the sound feedback, named relative to the config file's folder, or tones (`tone:880,0.1`,
    /// `tone:chime`).
    public struct Sounds: Sendable, Hashable, Codable {
        /// Played on a right answer.
        public var correct: String
        /// Played on a wrong answer.
        public var incorrect: String
        /// Played on every button press; at most 0.5 s long.
        public var click: String

        /// Creates the set.
        public init(correct: String, incorrect: String, click: String) {
            self.correct = correct
            self.incorrect = incorrect
            self.click = click
        }
    }

    /// The player whose statistics are kept first.
    public var player: String?
    /// The narration voice.
    public var voice: String?
    /// Seconds without an answer before the narration replays, 30 by default.
    public var narrationRepeat: Double?
    /// Seconds from showing a question's picture to narrating its prompt, 2 to 3 (2.5 by default).
    public var narrationDelay: Double?
    /// Whether prompts are narrated (the "voice narration" setting), on by default.
    public var narration: Bool?
    /// Whether button clicks and answers make sounds (the "sound feedback" setting), on by default.
    public var soundFeedback: Bool?
    /// The speaker's volume in percent, 25 to 100 in steps of 5 (100 by default).
    public var volume: Int?
    /// The feedback clips; without them only the narrator says "correct".
    public var sounds: Sounds?
    /// Seconds without an expression reading before Facial Fun says there is no camera, 3 by default.
    public var cameraTimeout: Double?
    /// The questions.
    public var questions: [Question]
    /// The Facial Fun rounds, after the questions.
    public var facialFun: [FacialFunRound]?

    /// Creates a config.
    public init(questions: [Question], facialFun: [FacialFunRound] = [], player: String = "player") {
        self.questions = questions
        self.facialFun = facialFun
        self.player = player
    }

    /// The volumes the settings offer, in percent.
    public static let volumes = Set(stride(from: 25, through: 100, by: 5))

    /// Checks the content, naming the first field that breaks a rule.
    public func validate() throws(AppConfigError) {
        for (index, question) in questions.enumerated() {
            let field = "questions[\(index)]"
            guard (1...5).contains(question.level) else { throw AppConfigError(field: "\(field).level", "\(question.level); expected 1–5") }
            guard (3...5).contains(question.choices.count) else {
                throw AppConfigError(field: "\(field).choices", "\(question.choices.count) choices; expected 3–5")
            }
            guard Set(question.choices).count == question.choices.count else { throw AppConfigError(field: "\(field).choices", "a choice appears twice") }
            guard question.choices.contains(question.answer) else {
                throw AppConfigError(field: "\(field).answer", "'\(question.answer)' is not one of the choices")
            }
            guard !question.prompt.isEmpty else { throw AppConfigError(field: "\(field).prompt", "empty") }
        }
        for (index, round) in (facialFun ?? []).enumerated() {
            let field = "facialFun[\(index)]"
            guard (0...1).contains(round.threshold) else { throw AppConfigError(field: "\(field).threshold", "\(round.threshold); expected 0…1") }
            guard (0...60).contains(round.hold) else { throw AppConfigError(field: "\(field).hold", "\(round.hold); expected 0…60 seconds") }
        }
        if questions.isEmpty, (facialFun ?? []).isEmpty { throw AppConfigError(field: "questions", "give questions or Facial Fun rounds") }
        if let repeatAfter = narrationRepeat, !(1...600).contains(repeatAfter) {
            throw AppConfigError(field: "narrationRepeat", "\(repeatAfter); expected 1…600 seconds")
        }
        if let delay = narrationDelay, !(2...3).contains(delay) {
            throw AppConfigError(field: "narrationDelay", "\(delay); expected 2…3 seconds")
        }
        if let volume, !Self.volumes.contains(volume) {
            throw AppConfigError(field: "volume", "\(volume); expected 25…100 in steps of 5")
        }
        if let timeout = cameraTimeout, !(0.5...60).contains(timeout) {
            throw AppConfigError(field: "cameraTimeout", "\(timeout); expected 0.5…60 seconds")
        }
        if let sounds {
            try ClipFiles.check(sounds.correct, field: "sounds.correct")
            try ClipFiles.check(sounds.incorrect, field: "sounds.incorrect")
            try ClipFiles.check(sounds.click, field: "sounds.click")
        }
    }
}
