import Exploration
import Foundation
import PlantedBug
import Replay
import Session

// Times finding and shrinking the planted failure (`Tests/PlantedBug`): explores seed 1 until a variant fails, then
// shrinks it, REPEATS times. Prints a RESULT line per round and the median. Usage: ExploreShrink [REPEATS]
let repeats = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 5 : 5
let folder = NSTemporaryDirectory() + "explore-shrink-\(getpid())"
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }
let catalog = AppCatalog([Wayfinder.self])
let explorer = try ScenarioExplorer(scenario: Scenario(path: wayfinderScenario(in: folder)), catalog: catalog)
let clock = ContinuousClock()
var times: [Double] = []
for round in 1...repeats {
    let started = clock.now
    var found: Variant?
    var tried = 0
    while found == nil {
        let variant = explorer.variant(tried, seed: 1)
        tried += 1
        if await explorer.run(variant).failed { found = variant }
    }
    let explored = started.duration(to: clock.now)
    let minimal = try await Shrinker(explorer: explorer).shrink(found!)
    let total = started.duration(to: clock.now)
    let shrinking = (total - explored).seconds
    times.append(shrinking)
    let faults = minimal.plan.faults.map { "\($0.kind.rawValue)(\($0.channel ?? "*"))" }.joined(separator: " + ")
    print(String(format: "RESULT round %d: found at variant %d in %.3f s; shrunk in %.3f s, %d runs: %@ → %@; %@", round, tried - 1,
        explored.seconds, shrinking, minimal.runs, "\(minimal.before)", "\(minimal.after)", faults))
}
print(String(format: "RESULT shrink median %.3f s over %d rounds", times.sorted()[times.count / 2], repeats))

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
