import HALCommandLine
import HALTestDoubles
import AppCore
import DemoApps
import Foundation
import HAL
import Replay
import Session
import Synthesis
import Testing
import TestSupport
import TraceFormat

/// The session library in-process: the same golden logs as `hal run`, at any pacing, and the merge order it documents.
@Suite struct SessionTests {
    static let catalog = AppCatalog(ShippedApps.all)

    @Test(arguments: ShippedApps.all.map { $0.name })
    func eachShippedScenarioGivesItsGoldenLogInProcessAtAnyPacing(app: String) async throws {
        let scenarioPath: String? = try Self.catalog.app(named: app).defaultScenario
        let base = try #require(scenarioPath).dropLast(".run.json".count)
        let golden = try String(contentsOfFile: packageRoot + "/" + base + ".events.log", encoding: .utf8)
        let scenario = try Scenario(path: packageRoot + "/" + base + ".run.json")
        let fast = try await scenario.run(catalog: Self.catalog, outputs: .devices)
        #expect(fast.logLines.map { $0 + "\n" }.joined() == golden)
        #expect(fast.passed, "\(fast.expectations.filter { !$0.passed }.map(\.line))")
        // Paced on a clock that only moves when slept on: ×0.5 of the whole walk, done at once.
        let paced = try await scenario.run(catalog: Self.catalog, outputs: .devices, pacing: .rate(0.5), pacingClock: VirtualClock(advancesOnSleep: true))
        #expect(paced.events == fast.events)
    }

    /// An app whose config names a greeting and a file holding a second one, which it logs at start.
    struct Greeter: RunnableApp {
        static let name = "greeter"
        struct Config: Codable { var greeting: String; var more: String }
        struct More: Codable { var greeting: String }
        var greetings: [String]
        static func load(config: some AppConfigFiles) throws -> Greeter {
            let main = try config.decode(Config.self)
            return Greeter(greetings: [main.greeting, try config.decode(More.self, file: main.more).greeting])
        }
        mutating func start(at time: Timestamp, output: inout AppOutput) {}
        mutating func handle(_ input: AppInput, output: inout AppOutput) {}
    }

    /// An app built from a config is kept for the next scenario on that config only while every file the config read
    /// holds the same bytes: a change to either file, even one of the same size written at once, is seen.
    @Test func anAppBuiltFromAConfigIsRebuiltWhenAFileItReadChanges() throws {
        let folder = try makeScratchFolder()
        let (config, more) = (folder + "/greeter.json", folder + "/more.json")
        try #"{"greeting": "hello", "more": "more.json"}"#.write(toFile: config, atomically: false, encoding: .utf8)
        try #"{"greeting": "again"}"#.write(toFile: more, atomically: false, encoding: .utf8)
        let catalog = AppCatalog([Greeter.self])
        func greetings() throws -> [String] { try #require(try catalog.load("greeter", config: config) as? Greeter).greetings }
        #expect(try greetings() == ["hello", "again"])
        #expect(try greetings() == ["hello", "again"])
        try #"{"greeting": "howdy", "more": "more.json"}"#.write(toFile: config, atomically: false, encoding: .utf8)
        #expect(try greetings() == ["howdy", "again"])
        try #"{"greeting": "anew!"}"#.write(toFile: more, atomically: false, encoding: .utf8)
        #expect(try greetings() == ["howdy", "anew!"])
        // A file gone is the file's error, not the kept app.
        try FileManager.default.removeItem(atPath: more)
        #expect(throws: (any Error).self) { try greetings() }
    }

    /// An app that logs every input it is fed, with its channel.
    struct Echo: AppLogic {
        static let name = "echo"
        mutating func start(at time: Timestamp, output: inout AppOutput) {}
        mutating func handle(_ input: AppInput, output: inout AppOutput) {
            switch input {
            case .reading(let reading, let channel): output.emit("reading", at: reading.timestamp, ["channel": .string(channel ?? "-")])
            case .command(let command): output.emit("command", at: command.timestamp, ["action": .string(command.action)])
            case .speakerFailed(let time, _): output.emit("speaker", at: time)
            case .tick: break
            }
        }
    }

    @Test func aResultSummarisesItselfInAFewLines() async throws {
        let header = TraceHeader(channels: [TraceChannel(id: "k", kind: .keys, source: "test:k")])
        let trace = Trace(header: header, records: (0..<40).map {
            TraceRecord(channel: 0, reading: .key(KeyEvent(timestamp: Timestamp(nanoseconds: Int64($0) * 1_000_000), code: 1, state: .press)))
        })
        let result = try await AppSession(Echo(), inputs: trace, expectations: [EventExpectation(event: "reading"), EventExpectation(event: "command")]).run()
        let summary = "\(result)"
        #expect(summary.hasPrefix("echo: 40 events, 1 of 2 expectations hold\n"), "\(summary)")
        #expect(summary.contains("\n  FAIL command"), "\(summary)")
        // The count, the failure, the heading and the last five events: not forty.
        #expect(summary.split(separator: "\n").count == 8, "\(summary)")
        #expect(summary.hasSuffix("0.039 reading channel=k"), "\(summary)")
    }

    @Test func inputsMergeByTimeThenChannelOrderWithCommandsFirstAtATie() async throws {
        func key(_ t: Int64, _ code: Int) -> KeyEvent { KeyEvent(timestamp: Timestamp(nanoseconds: t), code: code, state: .press) }
        let header = TraceHeader(channels: [
            TraceChannel(id: "left", kind: .keys, source: "test:left"), TraceChannel(id: "right", kind: .keys, source: "test:right"),
        ])
        // The right channel's record at 1 s is listed first, but the left channel comes first in the header.
        let trace = Trace(header: header, records: [
            TraceRecord(channel: 1, reading: .key(key(1_000_000_000, 2))), TraceRecord(channel: 0, reading: .key(key(0, 1))),
            TraceRecord(channel: 0, reading: .key(key(1_000_000_000, 1))),
        ])
        let session = AppSession(Echo(), inputs: trace, commands: [ScriptedCommand(at: 1, action: "b"), ScriptedCommand(at: 1, action: "a"), ScriptedCommand(at: 3, action: "late")])
        let result = try await session.run()
        let lines = result.events.map { "\($0.timestamp.nanoseconds / 1_000_000_000) \($0.name) \($0.attributes["channel"] ?? $0.attributes["action"] ?? .string(""))" }
        #expect(lines == ["0 reading left", "1 command b", "1 command a", "1 reading left", "1 reading right", "3 command late"])
    }

    @Test func aScenarioThatFailsItsChecksNamesTheLineColumnAndField() throws {
        let folder = try makeScratchFolder()
        try "{\"app\": \"viewer\", \"config\": \"x.json\",\n \"inputs\": []}".write(toFile: folder + "/empty.run.json", atomically: true, encoding: .utf8)
        #expect {
            try Scenario(path: folder + "/empty.run.json")
        } throws: { "\($0)" == "\(folder)/empty.run.json: line 2, column 12: inputs: give at least one trace or script" }
    }

    /// Under faults a recording holds the inputs as the app received them (a dropped one gone, a duplicate twice),
    /// each at its device time, and a `deliveries` channel says when each late one reached the app. It used to hold
    /// the unfaulted inputs beside events stamped at the faulted delivery times.
    @Test func aRecordingUnderFaultsHoldsTheInputsAsDelivered() async throws {
        let header = TraceHeader(channels: [TraceChannel(id: "k", kind: .keys, source: "test:k")])
        let trace = Trace(header: header, records: (0..<10).map {
            TraceRecord(channel: 0, reading: .key(KeyEvent(timestamp: Timestamp(nanoseconds: Int64($0) * 100_000_000), code: 1, state: .press)))
        })
        let plan = FaultPlan(seed: 1, faults: [
            Fault(.drop, channel: "k", from: 0.2, to: 0.3), Fault(.duplicate, channel: "k", from: 0.5, to: 0.6, probability: 1),
            Fault(.latency, channel: "k", from: 0.7, to: 0.8, magnitude: 0.35),
        ])
        let result = try await AppSession(Echo(), inputs: trace, faults: plan, records: true).run()
        let recording = try #require(result.recording)
        #expect(recording.header.channels.map(\.id) == ["k", "app", "deliveries"])
        let inputs = recording.records.filter { $0.channel == 0 }.map { $0.timestamp.nanoseconds / 1_000_000 }
        #expect(inputs == [0, 100, 300, 400, 500, 500, 600, 700, 800, 900])
        let deliveries = recording.records.filter { $0.channel == 2 }.compactMap { record -> AppEvent? in
            if case .appEvent(let event) = record.reading { return event }
            return nil
        }
        #expect(deliveries.count == 1)
        #expect(deliveries.first?.timestamp == Timestamp(nanoseconds: 1_050_000_000))
        #expect(deliveries.first?.attributes == ["channel": .string("k"), "device": .int(700_000_000)])
        // It is a trace like any other: written and read back, it is the same.
        let folder = try makeScratchFolder()
        try Data(recording.encoded()).write(to: URL(fileURLWithPath: folder + "/recording.jsonl"))
        #expect(try Trace.load(path: folder + "/recording.jsonl").records == recording.records)
        // Without faults, no deliveries channel: every input reached the app at its own time.
        let plain = try #require(try await AppSession(Echo(), inputs: trace, records: true).run().recording)
        #expect(plain.header.channels.map(\.id) == ["k", "app"])
    }

    @Test func theRecordingHoldsTheInputsAndAnAppChannel() async throws {
        let trace = try Trace.load(path: packageRoot + "/traces/talkboard/session.jsonl")
        let result = try await AppSession(Echo(), inputs: trace, records: true).run()
        let recording = try #require(result.recording)
        #expect(recording.header.channels.map(\.id) == trace.header.channels.map(\.id) + ["app"])
        #expect(recording.records.filter { recording.header.channels[$0.channel].id == "app" }.count == result.events.count)
    }

    /// The field guide in-process, twice over one in-memory storage: the second run restores the first's entries;
    /// a folder storage keeps an app inside its folder.
    @Test func anAppRestoresWhatItStoredAndStorageNamesStayInTheFolder() async throws {
        let trace = try Trace.merging([Trace.loadInput(path: packageRoot + "/traces/fieldguide/walk.jsonl")])  // frame paths from here
        let storage = InMemoryAppStorage.forReplay()
        var config = FieldGuideConfig(maxFixAge: 3)
        config.cropBeforeSaving = true
        for run in 0..<2 {
            let result = try await AppSession(try FieldGuide(config: config), inputs: trace, outputs: .devices, storage: storage).run()
            #expect(!result.events.contains { $0.name == "storage.failed" }, "\(result.logLines.filter { $0.contains("storage") })")
            #expect(result.events.first?.attributes["entries"] == .int(Int64(2 * run)))
            #expect(result.events.filter { $0.name == "capture.saved" }.map { $0.attributes["entry"] } == [.int(Int64(2 * run + 1)), .int(Int64(2 * run + 2))])
        }
        #expect(storage.contents.keys.sorted() == ["entries.json", "entry-1.png", "entry-2.png", "entry-3.png", "entry-4.png"])
        let folder = FolderAppStorage(path: try makeScratchFolder() + "/store")
        #expect(throws: AppStorageError.self) { try folder.write(.bytes([1]), as: "../escape") }
        #expect(throws: AppStorageError.self) { try folder.write(.bytes([1]), as: "a/b") }
        try folder.write(.bytes([1, 2]), as: "ok")
        #expect(try folder.read("ok") == [1, 2] && folder.read("missing") == nil)
        // What cannot be written or read is said in words, never as a Foundation error's dump.
        let scratch = try makeScratchFolder()
        try Data("x".utf8).write(to: URL(fileURLWithPath: scratch + "/plain"))
        #expect {
            try FolderAppStorage(path: scratch + "/plain/store").write(.bytes([1]), as: "a")
        } throws: { "\($0)" == "\(scratch)/plain/store/a: cannot write the stored file: \(scratch)/plain/store: cannot write: a folder on the path is a file" }
        try FileManager.default.createDirectory(atPath: scratch + "/store/dir", withIntermediateDirectories: true)
        #expect {
            try FolderAppStorage(path: scratch + "/store").read("dir")
        } throws: { "\($0)" == "\(scratch)/store/dir: cannot read the stored file: is a directory, not a file" }
        #expect {
            try FolderAppStorage(path: scratch + "/store").write(.copy(ofFile: scratch + "/gone.png"), as: "b")
        } throws: { "\($0)" == "\(scratch)/gone.png: cannot read the file to store: no such file" }
    }
}
