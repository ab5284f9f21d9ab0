import HALCommandLine
import AppCore
import DemoApps
import HAL
import Session
import Testing
import TestSupport

/// Each shipped app's vocabulary holds what its shipped scenario shows it emitting: every event of the app's own (the
/// runner's, ``AppVocabulary/runnerEvents``, aside) is named in `events` and carries only the attributes `attributes`
/// declares for it, and every name in `events` has an `attributes` entry. A scenario that asks an event for an
/// attribute it does carry is then never refused, and one that asks for a misspelled attribute always is.
@Suite struct VocabularyAttributesTests {
    static let catalog = AppCatalog(ShippedApps.all)

    @Test(arguments: ShippedApps.all.map { $0.name })
    func everyEventNameInTheVocabularyDeclaresItsAttributes(app: String) throws {
        let appType = try Self.catalog.app(named: app)
        let declared: AppVocabulary? = appType.vocabulary
        let vocabulary = try #require(declared, "\(app) declares no vocabulary")
        for name in vocabulary.events.sorted() where vocabulary.attributes[name] == nil {
            Issue.record("\(app): \(name) is in vocabulary.events but has no vocabulary.attributes entry")
        }
        for name in vocabulary.attributes.keys.sorted() where !vocabulary.events.contains(name) {
            Issue.record("\(app): vocabulary.attributes declares \(name), which is not in vocabulary.events")
        }
    }

    @Test(arguments: ShippedApps.all.map { $0.name })
    func everyEventTheShippedScenarioEmitsCarriesOnlyDeclaredAttributes(app: String) async throws {
        let appType = try Self.catalog.app(named: app)
        let declared: AppVocabulary? = appType.vocabulary
        let vocabulary = try #require(declared, "\(app) declares no vocabulary")
        let scenarioPath: String? = appType.defaultScenario
        let shipped = try #require(scenarioPath, "\(app) ships no scenario")
        let scenario = try Scenario(path: packageRoot + "/" + shipped)
        // The outputs `hal run` uses, so that the run is the golden log's.
        let result = try await scenario.run(catalog: Self.catalog, outputs: .devices)
        // The keys each of the app's own events carried, over the whole run.
        var carried: [String: Set<String>] = [:]
        for event in result.events where !AppVocabulary.runnerEvents.contains(event.name) {
            carried[event.name, default: []].formUnion(event.attributes.keys)
        }
        #expect(!carried.isEmpty, "\(app): the shipped scenario emitted none of the app's events")
        for (name, keys) in carried.sorted(by: { $0.key < $1.key }) {
            guard vocabulary.events.contains(name) else {
                Issue.record("\(app): emits \(name), which is not in vocabulary.events")
                continue
            }
            guard let allowed = vocabulary.attributes[name] else {
                Issue.record("\(app): \(name) has no vocabulary.attributes entry; it carries \(keys.sorted().joined(separator: ", "))")
                continue
            }
            for key in keys.subtracting(allowed).sorted() {
                Issue.record("\(app): \(name) carries '\(key)', which vocabulary.attributes[\"\(name)\"] does not declare")
            }
        }
    }
}
