import Foundation
import HAL
import Testing
import TestSupport
@testable import TraceFormat

/// A container plugged in by registration: reading and writing go through it by the file's name, and any other
/// name stays JSON Lines.
@Suite struct TraceContainerTests {
    /// A container for `*.copied-trace` files that keeps a JSON Lines trace under another name, counting its uses.
    struct CopiedTrace: TraceContainer {
        var name: String { "copied" }
        func holds(path: String) -> Bool { path.hasSuffix(".copied-trace") }
        func writes(path: String) -> Bool { path.hasSuffix(".copied-trace") }
        func header(path: String) throws(TraceError) -> TraceHeader { try TraceReader(path: path).header }
        func load(path: String, from offset: Duration?, progress: (Double) -> Void) throws(TraceError) -> (trace: Trace, framePaths: [Int: String]) {
            var trace = try Trace(header: header(path: path), records: [], path: path)
            let reader = try TraceReader(path: path)
            while let record = try reader.next() { trace.records.append(record) }
            if let offset { trace.dropRecords(before: offset) }
            trace.header.metadata["read-by"] = name
            return (trace, [:])
        }
        func makeWriter(path: String, header: TraceHeader, durability: TraceWriter.Durability, frameFolderOf: String?) throws(TraceError) -> any TraceSink {
            var header = header
            header.metadata["written-by"] = name
            return try TraceWriter(path: path, header: header, durability: durability)
        }
    }

    @Test func aRegisteredContainerReadsAndWritesItsFiles() throws {
        TraceContainers.register(CopiedTrace())
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let header = TraceHeader(channels: [TraceChannel(id: "t", kind: .temperature, source: "sim:t")])
        for (name, container) in [("a.copied-trace", true), ("b.jsonl", false)] {
            let sink = try TraceFiles.makeWriter(path: folder + "/" + name, header: header)
            try sink.write(TraceRecord(channel: 0, reading: .custom(CustomReading(ScalarSample(timestamp: .zero, kind: .temperature, value: 20)))))
            try sink.close()
            let trace = try Trace.load(path: folder + "/" + name)
            #expect(trace.records.count == 1)
            #expect((trace.header.metadata["written-by"] == "copied") == container, "\(name)")
            #expect((trace.header.metadata["read-by"] == "copied") == container, "\(name)")
        }
        #expect(TraceContainers.container(holding: folder + "/a.copied-trace")?.name == "copied")
        #expect(TraceContainers.container(holding: folder + "/b.jsonl") == nil)
    }

    /// A file in a container the package has, with that container not registered, is refused by name: never read or
    /// written as JSON Lines. (Checked on the refusal itself: other suites of this process register MCAP.)
    @Test func anUnregisteredMCAPFileIsRefusedWithWhatToRegister() throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mcap = folder + "/walk.mcap"
        try Data([0x89, 0x4D, 0x43, 0x41, 0x50, 0x30, 0x0D, 0x0A, 0x01]).write(to: URL(fileURLWithPath: mcap))
        #expect { try TraceContainers.refuseUnregistered(reading: mcap) } throws: {
            ($0 as? TraceError)?.kind == .badContainer && "\($0)".contains("MCAPTraceContainer")
        }
        #expect { try TraceContainers.refuseUnregistered(writing: folder + "/new.mcap") } throws: { "\($0)".contains("MCAPTraceContainer") }
        // A JSON Lines trace, and a name that asks for no container, pass.
        try "{}\n".write(toFile: folder + "/t.jsonl", atomically: true, encoding: .utf8)
        try TraceContainers.refuseUnregistered(reading: folder + "/t.jsonl")
        try TraceContainers.refuseUnregistered(writing: folder + "/new.jsonl")
    }
}
