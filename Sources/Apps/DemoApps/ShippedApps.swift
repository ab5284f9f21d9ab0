public import AppCore

/// The five apps of the original specs, as the `hal` tool and the tests know them.
public enum ShippedApps {
    /// Every shipped app, for `HALCommandLine` and the session library's catalog.
    public static let all: [any RunnableApp.Type] = [
        CampusExplorer.self, TalkBoard.self, ExperienceViewer.self, EmotionTrainer.self, FieldGuide.self,
    ]
}

extension CampusExplorer: RunnableApp {
    /// Loads the campus map and the places library it names.
    public static func load(config: some AppConfigFiles) throws -> CampusExplorer {
        var map = try config.decode(CampusMap.self)
        if let library = map.placesFile { map.merge(library: try config.decode(CampusMap.Library.self, file: library)) }
        return try CampusExplorer(map: map)
    }
    /// The Main Mall walk.
    public static var defaultScenario: String? { "traces/ubc/explorer.run.json" }
}

extension TalkBoard: RunnableApp {
    /// Loads the board.
    public static func load(config: some AppConfigFiles) throws -> TalkBoard { try TalkBoard(board: config.decode(WordBoard.self)) }
    /// A messaging session.
    public static var defaultScenario: String? { "traces/talkboard/session.run.json" }
}

extension ExperienceViewer: RunnableApp {
    /// Loads the experience; its clips are beside the config file.
    public static func load(config: some AppConfigFiles) throws -> ExperienceViewer {
        try ExperienceViewer(config: config.decode(ViewerConfig.self), clipFolder: config.folder)
    }
    /// The school tour.
    public static var defaultScenario: String? { "traces/viewer/school.run.json" }
}

extension EmotionTrainer: RunnableApp {
    /// Loads the trainer's questions and levels.
    public static func load(config: some AppConfigFiles) throws -> EmotionTrainer {
        try EmotionTrainer(config: config.decode(TrainerConfig.self), soundFolder: config.folder)
    }
    /// The Facial Fun level.
    public static var defaultScenario: String? { "traces/trainer/facial-fun.run.json" }
}

extension FieldGuide: RunnableApp {
    /// Loads the guide's species and settings.
    public static func load(config: some AppConfigFiles) throws -> FieldGuide {
        try FieldGuide(config: config.decode(FieldGuideConfig.self))
    }
    /// A guided walk.
    public static var defaultScenario: String? { "traces/fieldguide/walk.run.json" }
}
