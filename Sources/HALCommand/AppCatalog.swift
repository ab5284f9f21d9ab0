import Apps
import Simulator

/// The apps `hal run` knows, their config files and their shipped scenarios.
enum AppCatalog {
    /// App names and the scenario each runs when none is named.
    static let defaultScenarios: [String: String] = [
        CampusExplorer.name: "traces/ubc/explorer.run.json",
        TalkBoard.name: "traces/talkboard/session.run.json",
        ExperienceViewer.name: "traces/viewer/school.run.json",
        EmotionTrainer.name: "traces/trainer/facial-fun.run.json",
        FieldGuide.name: "traces/fieldguide/walk.run.json",
    ]

    static var names: [String] { defaultScenarios.keys.sorted() }

    /// Loads an app's config and builds the app. Errors name the file and the field.
    static func makeApp(_ name: String, config path: String) throws -> any AppLogic {
        do {
            switch name {
            case CampusExplorer.name:
                var map: CampusMap = try ScriptFile.decode(path: path)
                if let library = map.placesFile {
                    map.merge(library: try ScriptFile.decode(path: TracePath.resolve(library, inTraceAt: path)))
                }
                return try CampusExplorer(map: map)
            case TalkBoard.name:
                return try TalkBoard(board: ScriptFile.decode(path: path))
            case ExperienceViewer.name:
                return try ExperienceViewer(config: ScriptFile.decode(path: path), clipFolder: TracePath.folder(ofTraceAt: path))
            case EmotionTrainer.name:
                return try EmotionTrainer(config: ScriptFile.decode(path: path))
            case FieldGuide.name:
                return try FieldGuide(config: ScriptFile.decode(path: path))
            default:
                throw ScriptError(file: nil, "no app '\(name)'; the apps are \(names.joined(separator: ", "))")
            }
        } catch let error as AppConfigError {
            throw ScriptError(file: path, error.description)
        }
    }
}
