import Foundation
import MCAP
import TestSupport
import Testing

/// The conformance runner: files covering the specification's variants, written by PyPI `mcap` (the format's
/// reference implementation; `Fixtures/mcap_conformance.py`) and by our writer, each read by both: every record in
/// file order (our checked scan, with repeated records; its stream reader), the messages in log-time order (our
/// `messages()`, through the indexes where there are some; its seeking reader) and in file order, the attachments
/// and the metadata. Each as canonical lines, compared line for line.
@Suite struct MCAPConformanceTests {
    static let script = packageRoot + "/Tests/MCAPTests/Fixtures/mcap_conformance.py"

    /// What PyPI `mcap` reads in a file.
    static func theirs(_ path: String) async throws -> [String: [String]] {
        let run = try await runProcess("/usr/bin/env", ["python3", script, "read", path], timeout: 120)
        try #require(run.status == 0, "\(path): \(run.output)")
        return try JSONDecoder().decode([String: [String]].self, from: Data(run.output.utf8))
    }

    /// `[('a', 'b'), ('c', 'd')]`, as Python prints a sorted list of string pairs.
    static func pairs(_ map: [String: String]) -> String {
        "[" + map.sorted { $0.key < $1.key }.map { "('\($0.key)', '\($0.value)')" }.joined(separator: ", ") + "]"
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func line(_ record: MCAPReader.Record) -> String {
        switch record {
        case .header(let profile, let library): return "Header profile=\(profile) library=\(library)"
        case .schema(let s): return "Schema id=\(s.id) name=\(s.name) encoding=\(s.encoding) data=\(hex(s.data))"
        case .channel(let c): return "Channel id=\(c.id) schema=\(c.schemaID) topic=\(c.topic) encoding=\(c.messageEncoding) metadata=\(pairs(c.metadata))"
        case .message(let m, _): return "Message channel=\(m.channelID) seq=\(m.sequence) log=\(m.logTime) pub=\(m.publishTime) data=\(hex(m.data))"
        case .messageIndex(let i): return "MessageIndex channel=\(i.channelID) entries=[" + i.entries.map { "[\($0.logTime), \($0.offset)]" }.joined(separator: ", ") + "]"
        case .chunkIndex(let i):
            return "ChunkIndex start=\(i.messageStartTime) end=\(i.messageEndTime) offset=\(i.chunkStartOffset) length=\(i.chunkLength) "
                + "compression=\(i.compression) sizes=\(i.compressedSize),\(i.uncompressedSize)"
        case .attachment(let a): return "Attachment name=\(a.name) media=\(a.mediaType) log=\(a.logTime) create=\(a.createTime) data=\(hex(a.data))"
        case .attachmentIndex(let i): return "AttachmentIndex offset=\(i.offset) length=\(i.length) name=\(i.name) media=\(i.mediaType) size=\(i.dataSize)"
        case .metadata(let m): return "Metadata name=\(m.name) values=\(pairs(m.values))"
        case .metadataIndex(let i): return "MetadataIndex offset=\(i.offset) length=\(i.length) name=\(i.name)"
        case .statistics(let s):
            let counts = "[" + s.channelMessageCounts.sorted { $0.key < $1.key }.map { "(\($0.key), \($0.value))" }.joined(separator: ", ") + "]"
            return "Statistics messages=\(s.messageCount) schemas=\(s.schemaCount) channels=\(s.channelCount) attachments=\(s.attachmentCount) "
                + "metadata=\(s.metadataCount) chunks=\(s.chunkCount) times=\(s.messageStartTime),\(s.messageEndTime) counts=\(counts)"
        case .summaryOffset(let o): return "SummaryOffset opcode=\(o.groupOpcode) start=\(o.groupStart) length=\(o.groupLength)"
        case .dataEnd(let crc): return "DataEnd crc=\(crc)"
        case .footer(let f): return "Footer summary=\(f.summaryStart) offsets=\(f.summaryOffsetStart) crc=\(f.summaryCRC)"
        case .unknown(let opcode, _): return "Unknown opcode \(opcode)"
        }
    }

    static func messageLine(_ message: MCAPMessage, _ channel: MCAPChannel, _ schema: MCAPSchema?) -> String {
        "\(channel.topic) schema=\(schema?.name ?? "-") seq=\(message.sequence) log=\(message.logTime) pub=\(message.publishTime) data=\(hex(message.data))"
    }

    /// What our reader reads in a file, in the same lines.
    static func ours(_ path: String) throws -> [String: [String]] {
        var records: [String] = [], streamed: [String] = []
        var schemas: [UInt16: MCAPSchema] = [:]
        try MCAPReader(path: path).scan(repeats: true) { record in
            records.append(line(record))
            if case .schema(let schema) = record { schemas[schema.id] = schema }
            if case .message(let message, let channel) = record { streamed.append(messageLine(message, channel, schemas[channel.schemaID])) }
        }
        var indexed: [String] = []
        try MCAPReader(path: path).messages { message, channel, schema in indexed.append(messageLine(message, channel, schema)) }
        let attachments = try MCAPReader(path: path).attachments().map { line(.attachment($0)) }
        let metadata = try MCAPReader(path: path).metadata().map { line(.metadata($0)) }
        return ["records": records, "indexed": indexed, "streamed": streamed, "attachments": attachments, "metadata": metadata]
    }

    /// Ours and theirs agree on every line. The attachments and metadata are checked against the records their stream
    /// reader finds: its seeking reader gives none where the file has no index for them, and ours scans for them.
    static func compare(_ path: String) async throws {
        let theirs = try await theirs(path), ours = try ours(path)
        let name = URL(fileURLWithPath: path).lastPathComponent
        #expect(ours["records"] == theirs["records"], "\(name): records\n\(LineComparison(ours["records"]!, theirs["records"]!))")
        #expect(ours["indexed"] == theirs["indexed"], "\(name): messages in log-time order\n\(LineComparison(ours["indexed"]!, theirs["indexed"]!))")
        #expect(ours["streamed"] == theirs["streamed"], "\(name): messages in file order")
        let records = theirs["records"]!
        #expect(ours["attachments"] == records.filter { $0.hasPrefix("Attachment ") }, "\(name): attachments")
        #expect(ours["metadata"] == records.filter { $0.hasPrefix("Metadata ") }, "\(name): metadata")
        if records.contains(where: { $0.hasPrefix("AttachmentIndex ") }) { #expect(ours["attachments"] == theirs["attachments"], "\(name)") }
        if records.contains(where: { $0.hasPrefix("MetadataIndex ") }) { #expect(ours["metadata"] == theirs["metadata"], "\(name)") }
        // Something to compare: every file but the empty one has messages.
        #expect(name == "empty.mcap" || !ours["indexed"]!.isEmpty)
    }

    @Test func filesTheReferenceWritesReadAlike() async throws {
        let folder = try makeScratchFolder()
        let run = try await runProcess("/usr/bin/env", ["python3", Self.script, "write", folder], timeout: 120)
        try #require(run.status == 0, "\(run.output)")
        let names = run.output.split(separator: "\n").map(String.init)
        #expect(names.count == 23)
        for name in names { try await Self.compare(folder + "/\(name).mcap") }
    }

    @Test func filesWeWriteReadAlike() async throws {
        let folder = try makeScratchFolder()
        for (name, compression, chunkSize) in [("ours-zstd", MCAPCompression.zstd, 200), ("ours-lz4", .lz4, 1 << 20), ("ours-none", .none, 64)] {
            var options = MCAPWriter.Options()
            options.compression = compression
            options.chunkSize = chunkSize
            options.profile = "conformance"
            let writer = try MCAPWriter(path: folder + "/\(name).mcap", options: options)
            let schema = try writer.addSchema(name: "test.Gyro", encoding: "jsonschema", data: Array(#"{"type":"object"}"#.utf8))
            let gyro = try writer.addChannel(topic: "/gyro", messageEncoding: "json", schemaID: schema, metadata: ["unit": "rad/s"])
            let raw = try writer.addChannel(topic: "/raw", messageEncoding: "raw", schemaID: 0)
            for index in 0..<30 {
                try writer.add(MCAPMessage(
                    channelID: index % 3 == 0 ? raw : gyro, sequence: UInt32(index), logTime: 1_000_000_000 + UInt64(index / 2) * 10_000_000,
                    publishTime: 2_000_000_000 + UInt64(index), data: Array(#"{"i":\#(index)}"#.utf8)))
                if index == 10 {
                    try writer.addAttachment(MCAPAttachment(logTime: 1_000_000_010, createTime: 7, name: "calibration.txt", mediaType: "text/plain", data: Array("offsets 0.1 0.2 0.3".utf8)))
                    try writer.addMetadata(MCAPMetadata(name: "run", values: ["operator": "qa"]))
                }
            }
            try writer.finish()
            try await Self.compare(folder + "/\(name).mcap")
        }
    }

    /// A summary that repeats channels but not schemas is valid MCAP: `summary()` takes the schemas from the data
    /// section, and says it did.
    @Test func aSummaryWithoutSchemasIsCompletedByAScan() async throws {
        let folder = try makeScratchFolder()
        let run = try await runProcess("/usr/bin/env", ["python3", Self.script, "write", folder], timeout: 120)
        try #require(run.status == 0, "\(run.output)")
        let partial = try #require(try MCAPReader(path: folder + "/summary-channels-not-schemas.mcap").summary())
        #expect(partial.completedByScan && partial.schemas.count == 2 && partial.channels.count == 2)
        let none = try #require(try MCAPReader(path: folder + "/summary-without-schemas-or-channels.mcap").summary())
        #expect(none.completedByScan && none.schemas.count == 2 && none.channels.count == 2)
        let whole = try #require(try MCAPReader(path: folder + "/chunked-zstd.mcap").summary())
        #expect(!whole.completedByScan && whole.schemas.count == 2)
    }

    /// A damaged attachment is refused by its CRC, naming the file, the offset and the record.
    @Test func attachmentsAreCheckedByTheirCRC() throws {
        let writer = MCAPWriter()
        try writer.addAttachment(MCAPAttachment(logTime: 1, createTime: 2, name: "a.bin", mediaType: "application/octet-stream", data: [1, 2, 3, 4]))
        try writer.finish()
        let bytes = writer.bytes
        #expect(try MCAPReader(bytes: bytes, name: "a.mcap").attachments(named: "a.bin").map(\.data) == [[1, 2, 3, 4]])
        #expect(try MCAPReader(bytes: bytes, name: "a.mcap").attachments(named: "b.bin").isEmpty)
        var damaged = bytes
        let at = try #require(damaged.firstRange(of: [1, 2, 3, 4] as [UInt8])).lowerBound
        damaged[at] = 9
        for read in [{ try MCAPReader(bytes: damaged, name: "a.mcap").attachments() }, {
            var found: [MCAPAttachment] = []
            let reader = MCAPReader(bytes: damaged, name: "a.mcap")
            reader.checksCRCs = true
            try reader.scan { if case .attachment(let attachment) = $0 { found.append(attachment) } }
            return found
        }] {
            #expect {
                _ = try read()
            } throws: { error in
                "\(error)".contains("a.mcap") && "\(error)".contains("Attachment") && "\(error)".contains("CRC mismatch")
            }
        }
    }
}

/// The first line where two lists differ, for a failure message.
struct LineComparison: CustomStringConvertible {
    let ours: [String], theirs: [String]

    init(_ ours: [String], _ theirs: [String]) {
        self.ours = ours
        self.theirs = theirs
    }

    var description: String {
        let index = zip(ours, theirs).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(ours.count, theirs.count)
        return "\(ours.count) lines against \(theirs.count); first difference at \(index):\n  ours:   \(index < ours.count ? ours[index] : "-")\n  theirs: \(index < theirs.count ? theirs[index] : "-")"
    }
}
