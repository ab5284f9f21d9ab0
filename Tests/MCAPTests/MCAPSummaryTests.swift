import Foundation
import MCAP
import TestSupport
import Testing

/// `MCAPFileSummary`, what `hal info` shows of any MCAP file, on the conformance files (`MCAPConformanceTests`' 23
/// variants written by PyPI `mcap`), two files with no summary section at all (`Fixtures/mcap_summary.py`) and one
/// of our writer's: the same figures from the summary and from a scan, the message count the reader streams, and
/// what PyPI `mcap` finds reading every record.
@Suite struct MCAPSummaryTests {
    static let script = packageRoot + "/Tests/MCAPTests/Fixtures/mcap_summary.py"

    /// The files, written into a scratch folder: their paths by name (without `.mcap`).
    static func files() async throws -> [String: String] {
        let folder = try makeScratchFolder()
        var names: [String] = []
        for script in [MCAPConformanceTests.script, Self.script] {
            let run = try await runProcess("/usr/bin/env", ["python3", script, "write", folder], timeout: 120)
            try #require(run.status == 0, "\(run.output)")
            names += run.output.split(separator: "\n").map(String.init)
        }
        var options = MCAPWriter.Options()
        options.chunkSize = 100
        options.profile = "x-ours"
        let writer = try MCAPWriter(path: folder + "/ours.mcap", options: options)
        let schema = try writer.addSchema(name: "test.Gyro", encoding: "jsonschema", data: Array(#"{"type":"object"}"#.utf8))
        let gyro = try writer.addChannel(topic: "/gyro", messageEncoding: "json", schemaID: schema)
        _ = try writer.addChannel(topic: "/silent", messageEncoding: "json", schemaID: schema)
        for index in 0..<12 {
            try writer.add(MCAPMessage(channelID: gyro, logTime: 2_000_000_000 + UInt64(index) * 250_000_000, data: Array(#"{"i":\#(index)}"#.utf8)))
        }
        try writer.addAttachment(MCAPAttachment(logTime: 3, createTime: 4, name: "a.bin", mediaType: "application/octet-stream", data: [1, 2, 3]))
        try writer.addMetadata(MCAPMetadata(name: "run", values: ["operator": "qa"]))
        try writer.finish()
        names.append("ours")
        #expect(names.count == 23 + 2 + 1)
        return Dictionary(uniqueKeysWithValues: names.map { ($0, folder + "/\($0).mcap") })
    }

    /// A summary as the canonical lines `mcap_summary.py summarise` prints.
    static func lines(_ summary: MCAPFileSummary) -> [String] {
        var lines = [
            "library=\(summary.library) profile=\(summary.profile)",
            "messages=\(summary.messageCount) start=\(summary.timeRange.map { String($0.lowerBound) } ?? "-") end=\(summary.timeRange.map { String($0.upperBound) } ?? "-")",
        ]
        for channel in summary.channels {
            let schema = channel.schemaName.map { "\($0)/\(channel.schemaEncoding ?? "")" } ?? "-"
            lines.append("channel id=\(channel.id) topic=\(channel.topic) schema=\(schema) encoding=\(channel.messageEncoding) messages=\(channel.messageCount)")
        }
        for chunks in summary.compressions {
            lines.append("chunks compression=\(chunks.name) count=\(chunks.chunkCount) compressed=\(chunks.compressedSize) uncompressed=\(chunks.uncompressedSize)")
        }
        lines += summary.attachments.map { "attachment name=\($0.name) media=\($0.mediaType) size=\($0.size) log=\($0.logTime)" }
        lines += summary.metadataNames.map { "metadata name=\($0)" }
        return lines
    }

    /// Every file is summarised; the message count is what the reader streams, channel by channel; the summary's
    /// figures are the scan's; and the files whose summary lacks statistics or an index (or that have none) are the
    /// ones scanned.
    @Test func everyFileIsSummarisedWithTheMessagesTheReaderStreams() async throws {
        var scanned: Set<String> = []
        for (name, path) in try await Self.files() {
            let summary = try MCAPFileSummary(path: path)
            var streamed: [UInt16: UInt64] = [:]
            try MCAPReader(path: path).scan({ _ in }, messages: { streamed[$0.channelID, default: 0] += 1 })
            #expect(summary.messageCount == streamed.values.reduce(0, +), "\(name)")
            #expect(summary.channels.filter { $0.messageCount > 0 }.map { [UInt64($0.id), $0.messageCount] }
                == streamed.sorted { $0.key < $1.key }.map { [UInt64($0.key), $0.value] }, "\(name)")
            #expect(summary.channels.map(\.id) == summary.channels.map(\.id).sorted(), "\(name): channels by id")
            var byScan = try MCAPFileSummary(reader: MCAPReader(path: path), scanning: true)
            #expect(byScan.source == .scan)
            if summary.source == .summary {
                byScan.source = .summary
            } else {
                scanned.insert(name)
            }
            #expect(summary == byScan, "\(name): the summary's figures against the scan's\n\(Self.lines(summary))\n\(Self.lines(byScan))")
            #expect(summary.chunkCount == summary.compressions.reduce(0) { $0 + $1.chunkCount }, "\(name)")
            // The chunk walk finds what the summary indexes.
            if let indexes = try MCAPReader(path: path).summary()?.chunkIndexes, !indexes.isEmpty {
                #expect(try MCAPReader(path: path).dataSectionChunks() == indexes, "\(name)")
            }
        }
        #expect(scanned == ["no-statistics", "no-indexes", "out-of-order-no-indexes", "attachments-and-metadata-no-indexes", "no-summary", "no-summary-unchunked"])
    }

    /// Every figure of every file is what PyPI `mcap` finds reading all of its records.
    @Test func theFiguresAreWhatPyPIMCAPFinds() async throws {
        let files = try await Self.files()
        let run = try await runProcess("/usr/bin/env", ["python3", Self.script, "summarise"] + files.values.sorted(), timeout: 120)
        try #require(run.status == 0, "\(run.output)")
        let theirs = try JSONDecoder().decode([String: [String]].self, from: Data(run.output.utf8))
        #expect(theirs.count == files.count)
        for (name, path) in files {
            let ours = Self.lines(try MCAPFileSummary(path: path))
            #expect(ours == theirs[name + ".mcap"], "\(name)\n\(LineComparison(ours, theirs[name + ".mcap"] ?? []))")
        }
    }

    /// Chunks without compression, from the summary: every figure, as PyPI `mcap` 1.6.0 writes the file.
    @Test func aChunkedFileFromItsSummary() async throws {
        let summary = try MCAPFileSummary(path: try #require(try await Self.files()["chunked-none"]))
        #expect(summary.source == .summary)
        #expect(summary.library == "mcap_conformance.py" && summary.profile == "conformance")
        #expect(summary.messageCount == 40 && summary.timeRange == 1_000_000_000...1_390_000_000 && summary.duration == 390_000_000)
        #expect(summary.chunkCount == 6)
        #expect(summary.compressions == [MCAPFileSummary.Compression(name: "", chunkCount: 6, compressedSize: 1808, uncompressedSize: 1808)])
        #expect(summary.channels == [
            MCAPFileSummary.Channel(id: 1, topic: "/gyro", messageEncoding: "json", schemaID: 1, schemaName: "test.Gyro", schemaEncoding: "jsonschema", messageCount: 20),
            MCAPFileSummary.Channel(id: 2, topic: "/pose", messageEncoding: "json", schemaID: 2, schemaName: "test.Pose", schemaEncoding: "jsonschema", messageCount: 20),
        ])
        // 20 messages in 0.39 s.
        #expect(abs(try #require(summary.frequency(of: summary.channels[0])) - 51.282_051) < 1e-5)
        #expect(summary.attachments.isEmpty && summary.metadataNames.isEmpty)
    }

    /// A file with no summary section, chunked with lz4, with a schemaless channel, an attachment and metadata: all
    /// from a scan.
    @Test func aFileWithoutASummaryByAScan() async throws {
        let reader = try MCAPReader(path: try #require(try await Self.files()["no-summary"]))
        #expect(try reader.summary() == nil)
        let summary = try MCAPFileSummary(reader: reader)
        #expect(summary.source == .scan)
        #expect(summary.library == "mcap_summary.py" && summary.profile == "x-summary-test")
        #expect(summary.messageCount == 30 && summary.timeRange == 5_000_000_000...7_900_000_000)
        #expect(summary.chunkCount == 5 && summary.compressions.map(\.name) == ["lz4"] && summary.compressions[0].uncompressedSize == 1314)
        #expect(summary.channels == [
            MCAPFileSummary.Channel(id: 1, topic: "/imu", messageEncoding: "json", schemaID: 1, schemaName: "test.Imu", schemaEncoding: "jsonschema", messageCount: 20),
            MCAPFileSummary.Channel(id: 2, topic: "/log", messageEncoding: "text", schemaID: 0, schemaName: nil, schemaEncoding: nil, messageCount: 10),
        ])
        #expect(summary.attachments == [MCAPFileSummary.Attachment(name: "map.yaml", mediaType: "application/yaml", size: 15, logTime: 5_000_000_001, createTime: 1)])
        #expect(summary.metadataNames == ["robot"])
    }

    /// Attachments and metadata, from the summary's indexes and, in the variant without indexes, by a scan: the same.
    @Test func attachmentsAndMetadata() async throws {
        let files = try await Self.files()
        let indexed = try MCAPFileSummary(path: try #require(files["attachments-and-metadata"]))
        let unindexed = try MCAPFileSummary(path: try #require(files["attachments-and-metadata-no-indexes"]))
        #expect(indexed.source == .summary && unindexed.source == .scan)
        #expect(indexed.attachments == [
            MCAPFileSummary.Attachment(name: "calibration-5.txt", mediaType: "text/plain", size: 12, logTime: 1_000_000_005, createTime: 5),
            MCAPFileSummary.Attachment(name: "calibration-25.txt", mediaType: "text/plain", size: 13, logTime: 1_000_000_025, createTime: 25),
        ])
        #expect(indexed.metadataNames == ["run-5", "run-25"])
        #expect(indexed.chunkCount == 6 && indexed.compressions.map(\.name) == ["zstd"] && indexed.compressions[0].uncompressedSize == 1808)
        #expect({ var copy = unindexed; copy.source = .summary; return copy }() == indexed)
    }

    /// An empty file: no messages, no time range, no frequency; one with a channel that has no messages.
    @Test func emptyFilesAndSilentChannels() async throws {
        let files = try await Self.files()
        let empty = try MCAPFileSummary(path: try #require(files["empty"]))
        #expect(empty.messageCount == 0 && empty.timeRange == nil && empty.duration == nil && empty.channels.isEmpty && empty.chunkCount == 0)
        let ours = try MCAPFileSummary(path: try #require(files["ours"]))
        #expect(ours.channels.map(\.messageCount) == [12, 0] && ours.profile == "x-ours" && ours.library == "swift-sensor-hal")
        #expect(ours.timeRange == 2_000_000_000...4_750_000_000 && ours.frequency(of: ours.channels[1]) == 0)
    }

    /// A file cut short is an error naming the file and where, not a summary of what is left.
    @Test func aFileCutShortIsAnError() async throws {
        let path = try #require(try await Self.files()["chunked-zstd"])
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes.removeLast(bytes.count / 2)
        #expect {
            _ = try MCAPFileSummary(reader: MCAPReader(bytes: bytes, name: "cut.mcap"))
        } throws: { error in
            "\(error)".hasPrefix("cut.mcap: byte ")
        }
    }
}
