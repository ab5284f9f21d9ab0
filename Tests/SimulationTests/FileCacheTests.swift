import Foundation
import Testing
import TestSupport
import HAL
import Synthesis
@testable import TraceFormat

/// A value built from files is shared while, and only while, every file it was built from holds the same bytes.
@Suite struct FileCacheTests {
    struct Numbers: Codable, Equatable {
        var values: [Int]
    }

    /// Counts the builds a cache runs.
    final class Builds: @unchecked Sendable {
        var count = 0
    }

    @Test func aValueIsBuiltAgainExactlyWhenAFileItReadChanged() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/numbers.json"
        try #"{"values": [1, 2]}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let cache = FileCache<String, Numbers>()
        let builds = Builds()
        func load() throws -> Numbers {
            try cache.value(for: path) {
                builds.count += 1
                return try ScriptFile.decode(path: path)
            }
        }
        #expect(try load() == Numbers(values: [1, 2]))
        #expect(try load() == Numbers(values: [1, 2]))
        #expect(builds.count == 1)
        // The same length and a new byte: seen.
        try #"{"values": [1, 3]}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try load() == Numbers(values: [1, 3]))
        #expect(builds.count == 2)
        // A file gone: the build runs, and its error is the caller's; nothing is kept.
        try FileManager.default.removeItem(atPath: path)
        #expect(throws: ScriptError.self) { try load() }
        #expect(builds.count == 3)
    }

    @Test func anInnerHitCountsItsFilesForTheOuterValue() throws {
        let folder = try makeScratchFolder()
        let (inner, outer) = (folder + "/inner.json", folder + "/outer.json")
        try #"{"values": [10]}"#.write(toFile: inner, atomically: true, encoding: .utf8)
        try #"{"values": [1]}"#.write(toFile: outer, atomically: true, encoding: .utf8)
        let inners = FileCache<String, Numbers>(), outers = FileCache<String, Numbers>()
        let builds = Builds()
        func load() throws -> Numbers {
            try outers.value(for: outer) {
                builds.count += 1
                let own: Numbers = try ScriptFile.decode(path: outer)
                let shared = try inners.value(for: inner) { try ScriptFile.decode(path: inner) }
                return Numbers(values: own.values + shared.values)
            }
        }
        // The inner value is cached first, by another caller: the outer build then reads it as a hit.
        _ = try inners.value(for: inner) { try ScriptFile.decode(path: inner) as Numbers }
        #expect(try load() == Numbers(values: [1, 10]))
        #expect(try load() == Numbers(values: [1, 10]))
        #expect(builds.count == 1)
        try #"{"values": [20]}"#.write(toFile: inner, atomically: true, encoding: .utf8)
        #expect(try load() == Numbers(values: [1, 20]))
        #expect(builds.count == 2)
    }

    @Test func aValueNotKeptIsBuiltEachTime() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/numbers.json"
        try #"{"values": [1]}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let cache = FileCache<String, Numbers>()
        let builds = Builds()
        for _ in 0..<3 {
            _ = try cache.value(for: path, keep: { _ in false }) {
                builds.count += 1
                return try ScriptFile.decode(path: path)
            }
        }
        #expect(builds.count == 3)
        #expect(cache.count == 0)
    }

    @Test func aRecordedInputIsReadAgainWhenItsFileChanged() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/taps.jsonl"
        func write(_ count: Int) throws {
            let channel = TraceChannel(id: "touch", kind: .pointer, source: "test", name: "Taps", backend: "test")
            let records = (0..<count).map { index in
                TraceRecord(channel: 0, reading: .pointer(PointerEvent(
                    timestamp: Timestamp(nanoseconds: Int64(index) * 1_000_000), phase: .press, x: 0.5, y: 0.5)))
            }
            try Data(Trace(header: TraceHeader(channels: [channel]), records: records).encoded()).write(to: URL(fileURLWithPath: path))
        }
        try write(3)
        #expect(try Trace.loadInput(path: path).records.count == 3)
        #expect(try Trace.loadInput(path: path).records.count == 3)
        try write(4)
        #expect(try Trace.loadInput(path: path).records.count == 4)
        try FileManager.default.removeItem(atPath: path)
        #expect(throws: TraceError.self) { try Trace.loadInput(path: path) }
    }
}
