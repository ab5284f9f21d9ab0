import Foundation
import Testing

/// The greenhouse command line: the sensor HAL's, under its own name, with the example's app and kind.
@Suite struct GreenhouseToolTests {
    /// The example package's folder, where its traces are.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Greenhouse").path

    @Test func itsOwnCommandLineRunsTheScenarioAndReadsItsTrace() throws {
        // Built beside the test binary.
        let tool = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("greenhouse").path
        func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: Self.root)
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, output)
        }
        // Its name in help and usage.
        let help = try run(["--help"])
        #expect(help.output.contains("USAGE: greenhouse <subcommand>"), "\(help.output)")
        #expect(!help.output.contains("hal "), "\(help.output)")
        // A scenario alone names its app.
        let alone = try run(["run", "traces/day.run.json"])
        #expect(alone.status == 0 && alone.output.contains("probe"), "\(alone.output.prefix(300))")
        let check = try run(["run", "greenhouse", "--check"])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("check: all 7 expectations hold"))
        let info = try run(["info", "traces/day.jsonl"])
        #expect(info.status == 0 && info.output.contains("soil-moisture"), "\(info.output)")
        let replay = try run(["replay", "traces/day.jsonl", "--channels", "bed1"])
        #expect(replay.output.contains("probe 1: 30.0 %VWC"), "\(replay.output.prefix(300))")
        // Its own suite, with its golden log, as hal test runs the package's.
        let suite = try run(["test", "traces"])
        #expect(suite.status == 0 && suite.output.hasSuffix("1 passed, 0 failed, 0 skipped\n"), "\(suite.output)")
    }
}
