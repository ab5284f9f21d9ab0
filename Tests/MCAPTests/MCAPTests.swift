import Foundation
import MCAP
import TestSupport
import Testing

/// The MCAP container against the field's reference implementation, PyPI `mcap` (Fixtures/mcap_peer.py): files we
/// write are read by its indexed and stream readers with CRCs checked, and files it writes are read by us. Bad input
/// gives an error naming the file, the byte offset and the record, after the records before it.
@Suite struct MCAPTests {
    static let peer = packageRoot + "/Tests/MCAPTests/Fixtures/mcap_peer.py"

    /// Runs the peer and returns its JSON.
    static func peer(_ arguments: [String]) async throws -> [String: Any] {
        let run = try await runProcess("/usr/bin/env", ["python3", peer] + arguments, timeout: 120)
        try #require(run.status == 0, "mcap_peer.py \(arguments.joined(separator: " ")): \(run.output)")
        guard arguments.first == "read" else { return [:] }
        return try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
    }

    /// A sample file's messages: two channels, one with a schema, times in order, payloads that differ.
    static func sampleMessages(_ count: Int) -> [MCAPMessage] {
        (0..<count).map { (index: Int) -> MCAPMessage in
            let time = UInt64(index) * 1_000_000
            let data: [UInt8] = Array("{\"n\":\(index)}".utf8) + [UInt8(index % 256)]
            let channel: UInt16 = index % 3 == 0 ? 2 : 1
            return MCAPMessage(channelID: channel, sequence: UInt32(index), logTime: time + 5, publishTime: time + 9, data: data)
        }
    }

    /// Writes the sample file with our writer.
    static func writeSample(_ path: String?, compression: MCAPCompression, count: Int, chunkSize: Int = 4096) throws -> MCAPWriter {
        var options = MCAPWriter.Options()
        options.compression = compression
        options.chunkSize = chunkSize
        options.profile = "hal-test"
        let writer = try path.map { path throws(MCAPError) in try MCAPWriter(path: path, options: options) } ?? MCAPWriter(options: options)
        let schema = try writer.addSchema(name: "Counter", encoding: "jsonschema", data: Array("{\"type\":\"object\"}".utf8))
        #expect(try writer.addChannel(topic: "/counter", messageEncoding: "json", schemaID: schema, metadata: ["unit": "1", "a": "b"]) == 1)
        #expect(try writer.addChannel(topic: "/raw", messageEncoding: "", schemaID: 0) == 2)
        try writer.addMetadata(MCAPMetadata(name: "trace", values: ["format": "hal-trace", "version": "1"]))
        for message in sampleMessages(count) { try writer.add(message) }
        try writer.finish()
        return writer
    }

    @Test(arguments: MCAPCompression.allCases)
    func filesWeWriteAreReadByTheReferenceReaderWithEveryMessageAndCRC(compression: MCAPCompression) async throws {
        let folder = try makeScratchFolder()
        let path = folder + "/ours.mcap"
        _ = try Self.writeSample(path, compression: compression, count: 1_000)
        let read = try await Self.peer(["read", path])
        #expect(read["profile"] as? String == "hal-test")
        #expect(read["library"] as? String == "swift-sensor-hal")
        let messages = try #require(read["messages"] as? [[Any]])
        let expected = Self.sampleMessages(1_000)
        #expect(messages.count == expected.count)
        for (row, message) in zip(messages, expected) {
            #expect(row[0] as? String == (message.channelID == 1 ? "/counter" : "/raw"))
            #expect(row[1] as? String == (message.channelID == 1 ? "Counter" : ""))
            #expect((row[2] as? NSNumber)?.uint64Value == message.logTime)
            #expect((row[3] as? NSNumber)?.uint64Value == message.publishTime)
            #expect((row[4] as? NSNumber)?.uint32Value == message.sequence)
            #expect(row[5] as? String == message.data.map { String(format: "%02x", $0) }.joined())
        }
        #expect((read["streamed"] as? Int) == 1_000)
        #expect(read["compressions"] as? [String] == [compression.rawValue])
        let statistics = try #require(read["statistics"] as? [String: Any])
        #expect(statistics["message_count"] as? Int == 1_000)
        #expect(statistics["channel_count"] as? Int == 2 && statistics["schema_count"] as? Int == 1)
        #expect(statistics["metadata_count"] as? Int == 1)
        #expect((statistics["start"] as? NSNumber)?.uint64Value == 5 && (statistics["end"] as? NSNumber)?.uint64Value == 999_000_005)
        #expect(statistics["per_channel"] as? [String: Int] == ["1": 666, "2": 334])
        let chunks = try #require(statistics["chunk_count"] as? Int)
        #expect(chunks > 3 && read["chunk_indexes"] as? Int == chunks)
        let metadata = try #require(read["metadata"] as? [[Any]])
        #expect(metadata.first?.first as? String == "trace")
    }

    @Test(arguments: ["zstd", "lz4", "none"])
    func filesTheReferenceWriterWritesAreReadByUs(compression: String) async throws {
        let folder = try makeScratchFolder()
        let path = folder + "/theirs.mcap"
        _ = try await Self.peer(["write", path, compression, "500"])
        let reader = try MCAPReader(path: path)
        var scanned: [(MCAPMessage, MCAPChannel)] = []
        var declared: [String] = []
        try reader.scan { record in
            switch record {
            case .header(_, let library): declared.append("header \(library)")
            case .schema(let schema): declared.append("schema \(schema.name)")
            case .channel(let channel): declared.append("channel \(channel.topic)")
            case .message(let message, let channel): scanned.append((message, channel))
            case .metadata(let metadata): declared.append("metadata \(metadata.name) \(metadata.values["count"] ?? "")")
            default: break
            }
        }
        #expect(declared == ["header python mcap", "schema Counter", "channel /counter", "channel /raw", "metadata origin 500"])
        #expect(scanned.count == 500)
        for (index, (message, channel)) in scanned.enumerated() {
            #expect(message.logTime == UInt64(index) * 1_000_000 && message.publishTime == message.logTime + 7)
            #expect(message.sequence == UInt32(index))
            #expect(channel.topic == (index % 3 == 0 ? "/raw" : "/counter"))
            if index % 3 != 0 { #expect(String(decoding: message.data, as: UTF8.self) == "{\"n\": \(index)}") }
        }
        let summary = try #require(try reader.summary())
        #expect(summary.statistics?.messageCount == 500 && summary.schemas[1]?.encoding == "jsonschema")
        #expect(summary.channels.values.map(\.topic).sorted() == ["/counter", "/raw"])
        #expect(summary.channels[1]?.metadata == ["unit": "1"])
        #expect(summary.chunkIndexes.count == Int(summary.statistics?.chunkCount ?? 0) && summary.chunkIndexes.count > 1)
        var indexed: [UInt64] = []
        try reader.messages { message, _ in indexed.append(message.logTime) }
        #expect(indexed == scanned.map(\.0.logTime))
        #expect(try reader.metadata().map(\.name) == ["origin"])
    }

    @Test(arguments: MCAPCompression.allCases)
    func aRoundTripInMemoryKeepsEveryMessageAndTheSummary(compression: MCAPCompression) throws {
        let writer = try Self.writeSample(nil, compression: compression, count: 300, chunkSize: 1_000)
        let reader = MCAPReader(bytes: writer.bytes, name: "sample.mcap")
        var messages: [MCAPMessage] = []
        try reader.messages { message, _ in messages.append(message) }
        #expect(messages == Self.sampleMessages(300))
        let summary = try #require(try reader.summary())
        #expect(summary.statistics?.channelMessageCounts == [1: 200, 2: 100])
        #expect(summary.chunkIndexes.allSatisfy { $0.compression == compression.rawValue })
        #expect(summary.chunkIndexes.map(\.messageStartTime) == summary.chunkIndexes.map(\.messageStartTime).sorted())
        // The same file twice gives the same bytes.
        #expect(try Self.writeSample(nil, compression: compression, count: 300, chunkSize: 1_000).bytes == writer.bytes)
    }

    /// Messages written out of time order into one chunk come back in log-time order from an indexed read (and in
    /// file order from a scan).
    @Test func anIndexedReadGivesLogTimeOrderWithinAChunk() throws {
        let writer = MCAPWriter()
        let channel = try writer.addChannel(topic: "/t", messageEncoding: "", schemaID: 0)
        for (time, tag) in [(3, 0), (1, 1), (2, 2), (1, 3)] as [(UInt64, UInt8)] {
            try writer.add(MCAPMessage(channelID: channel, logTime: time, data: [tag]))
        }
        try writer.finish()
        let reader = MCAPReader(bytes: writer.bytes)
        var indexed: [UInt8] = [], scanned: [UInt8] = []
        try reader.messages { message, _ in indexed.append(message.data[0]) }
        try reader.scan { if case .message(let message, _) = $0 { scanned.append(message.data[0]) } }
        #expect(indexed == [1, 3, 2, 0] && scanned == [0, 1, 2, 3])
    }

    /// A zstd chunk whose frame claims 4 GiB in a 145-byte file is refused before the memory is taken.
    @Test func aFrameThatClaimsMoreThanItHoldsTakesNoMemoryForIt() throws {
        let path = packageRoot + "/Tests/SimulationTests/Fixtures/fuzz-regressions/mcap/zstd-frame-claiming-4gib.mcap"
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let error = #expect(throws: MCAPError.self) { try MCAPReader(bytes: bytes, name: "claim.mcap").scan { _ in } }
        #expect(error?.record == "Chunk" && error?.reason.hasPrefix("the records do not decompress: zstd") == true, "\(String(describing: error))")
    }

    /// Records that compress far more than 4:1 outgrow the first output the reader makes for them (four times the
    /// compressed bytes, at least 64 KiB), which then doubles until it holds them: every message comes back whole.
    @Test(arguments: [MCAPCompression.zstd, .lz4])
    func aChunkThatCompressesFarMoreThanFourToOneComesBackWhole(compression: MCAPCompression) throws {
        var options = MCAPWriter.Options()
        options.compression = compression
        options.chunkSize = 4 << 20
        let writer = MCAPWriter(options: options)
        let channel = try writer.addChannel(topic: "/zeros", messageEncoding: "", schemaID: 0)
        let messages = (0..<40).map { index in
            MCAPMessage(channelID: channel, logTime: UInt64(index), data: [UInt8](repeating: UInt8(index), count: 100_000))
        }
        for message in messages { try writer.add(message) }
        try writer.finish()
        let chunks = try #require(try MCAPReader(bytes: writer.bytes).summary()).chunkIndexes
        // One chunk, whose records are many times four times its compressed size.
        #expect(chunks.count == 1 && chunks[0].uncompressedSize > 16 * chunks[0].compressedSize + (1 << 16))
        var read: [MCAPMessage] = []
        try MCAPReader(bytes: writer.bytes).scan { if case .message(let message, _) = $0 { read.append(message) } }
        #expect(read == messages)
    }

    /// A time range in a large chunked file reads only the chunks its index names: about a hundred kilobytes of 19 MB.
    @Test func seekingThroughTheChunkIndexReadsOnlyTheChunksItNeeds() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/large.mcap"
        var options = MCAPWriter.Options()
        options.chunkSize = 64 << 10
        let writer = try MCAPWriter(path: path, options: options)
        let channel = try writer.addChannel(topic: "/gyro", messageEncoding: "raw", schemaID: 0)
        var random = SystemRandomNumberGenerator()
        let count = 500_000
        for index in 0..<count {
            // Incompressible payloads, so that the file is as large as its messages.
            let data = (0..<2).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } }
            try writer.add(MCAPMessage(channelID: channel, logTime: UInt64(index) * 1_000_000, data: data))
        }
        try writer.finish()
        let reader = try MCAPReader(path: path)
        #expect(reader.size > 15_000_000)
        var found: [UInt64] = []
        try reader.messages(from: 300_000_000_000, to: 300_010_000_000) { message, _ in found.append(message.logTime) }
        #expect(found == (300_000...300_010).map { UInt64($0) * 1_000_000 })
        // The footer, the summary (about 360 chunk indexes) and one or two chunks of 64 KiB.
        #expect(reader.bytesRead < 250_000, "read \(reader.bytesRead) of \(reader.size) bytes")
        // A scan reads it all.
        let scanner = try MCAPReader(path: path)
        var scanned = 0
        try scanner.scan { if case .message = $0 { scanned += 1 } }
        #expect(scanned == count)
        #expect(scanner.bytesRead > 15_000_000)  // the data section, through to Data End
    }

    // MARK: Bad input

    /// The error a scan of `bytes` gives, and the messages it handed over first.
    static func scanError(_ bytes: [UInt8]) -> (error: MCAPError?, messages: Int) {
        var messages = 0
        do {
            try MCAPReader(bytes: bytes, name: "bad.mcap").scan { if case .message = $0 { messages += 1 } }
            return (nil, messages)
        } catch {
            return (error as? MCAPError, messages)
        }
    }

    /// An unchunked file (so that records can be found and broken by hand): header, schema, channel, ten messages.
    static func plainFile() -> (bytes: [UInt8], messageOffsets: [Int]) {
        var out = [UInt8]()
        func record(_ opcode: UInt8, _ content: [UInt8]) {
            out.append(opcode)
            withUnsafeBytes(of: UInt64(content.count).littleEndian) { out.append(contentsOf: $0) }
            out += content
        }
        func u16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        func u32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        func u64(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        func string(_ text: String) -> [UInt8] { u32(UInt32(text.utf8.count)) + Array(text.utf8) }
        out += mcapMagic
        record(0x01, string("") + string("hand"))
        record(0x04, u16(1) + u16(0) + string("/a") + string("") + u32(0))
        var offsets: [Int] = []
        for index in 0..<10 {
            offsets.append(out.count)
            record(0x05, u16(1) + u32(0) + u64(UInt64(index)) + u64(UInt64(index)) + [UInt8(index)])
        }
        record(0x0F, u32(0))
        record(0x02, u64(0) + u64(0) + u32(0))
        out += mcapMagic
        return (out, offsets)
    }

    @Test func badInputNamesTheFileTheOffsetAndTheRecordAndKeepsWhatCameBefore() throws {
        let (plain, offsets) = Self.plainFile()
        #expect(Self.scanError(plain).error == nil && Self.scanError(plain).messages == 10)

        // A bad magic.
        var badMagic = plain
        badMagic[1] = UInt8(ascii: "X")
        let magic = try #require(Self.scanError(badMagic).error)
        #expect(magic.file == "bad.mcap" && magic.offset == 0 && magic.record == "file")
        #expect(magic.reason.hasPrefix("not an MCAP file"))

        // A message on a channel no Channel record declares: the fifth message names channel 9.
        var undeclared = plain
        undeclared[offsets[4] + 9] = 9
        let channel = Self.scanError(undeclared)
        #expect(channel.messages == 4)
        #expect(channel.error?.offset == UInt64(offsets[4]) && channel.error?.record == "Message")
        #expect(channel.error?.reason == "a message on channel 9, which no Channel record declares")

        // A file cut in the middle of a record.
        let cut = Self.scanError(Array(plain[..<(offsets[7] + 12)]))
        #expect(cut.messages == 7)
        #expect(cut.error?.offset == UInt64(offsets[7]) && cut.error?.record == "Message")
        #expect(cut.error?.reason.contains("cut short") == true)
        #expect(cut.error.map(String.init(describing:)) == "bad.mcap: byte \(offsets[7]): Message record: its length is 23 bytes but 3 are left (cut short?)")
    }

    /// A chunked file's bytes, and the offsets of its chunks.
    static func chunkedFile(compression: MCAPCompression) throws -> (bytes: [UInt8], chunks: [MCAPChunkIndex]) {
        let bytes = try writeSample(nil, compression: compression, count: 100, chunkSize: 600).bytes
        let chunks = try #require(try MCAPReader(bytes: bytes).summary()).chunkIndexes
        return (bytes, chunks)
    }

    @Test func badChunksNameTheChunkAndKeepTheMessagesOfTheChunksBefore() throws {
        // A CRC mismatch: a byte of the third chunk's (uncompressed) records changed.
        let (plain, chunks) = try Self.chunkedFile(compression: .none)
        #expect(chunks.count > 4)
        let before = try (0..<2).map { index in try Self.messagesIn(plain, chunk: chunks[index]) }.reduce(0, +)
        var flipped = plain
        flipped[Int(chunks[2].chunkStartOffset + chunks[2].chunkLength) - 3] ^= 0xFF
        let crc = Self.scanError(flipped)
        #expect(crc.messages == before)
        #expect(crc.error?.offset == chunks[2].chunkStartOffset && crc.error?.record == "Chunk")
        #expect(crc.error?.reason.hasPrefix("CRC mismatch: the records' CRC-32 is") == true)

        // An unknown compression: the third chunk's "" becomes "br" (the record's length grows by two).
        var unknown = Array(plain[..<Int(chunks[2].chunkStartOffset)])
        var chunk = Array(plain[Int(chunks[2].chunkStartOffset)..<Int(chunks[2].chunkStartOffset + chunks[2].chunkLength)])
        let compressionAt = 9 + 8 + 8 + 8 + 4
        chunk.replaceSubrange(compressionAt..<(compressionAt + 4), with: [2, 0, 0, 0, UInt8(ascii: "b"), UInt8(ascii: "r")])
        let length = UInt64(chunk.count - 9)
        withUnsafeBytes(of: length.littleEndian) { for index in 0..<8 { chunk[1 + index] = $0[index] } }
        unknown += chunk + plain[Int(chunks[2].chunkStartOffset + chunks[2].chunkLength)...]
        let compression = Self.scanError(unknown)
        #expect(compression.messages == before)
        #expect(compression.error?.offset == chunks[2].chunkStartOffset && compression.error?.record == "Chunk")
        #expect(compression.error?.reason == "unknown compression 'br' (known: none, zstd, lz4)")

        // A truncated zstd chunk: the file ends inside the third chunk.
        let (zstd, zstdChunks) = try Self.chunkedFile(compression: .zstd)
        let truncated = Self.scanError(Array(zstd[..<Int(zstdChunks[2].chunkStartOffset + 40)]))
        #expect(truncated.messages == before)
        #expect(truncated.error?.offset == zstdChunks[2].chunkStartOffset && truncated.error?.record == "Chunk")
        #expect(truncated.error?.reason.contains("cut short") == true)

        // Damaged compressed bytes: zstd's own error, named.
        var damaged = zstd
        for offset in Int(zstdChunks[2].chunkStartOffset) + 60..<Int(zstdChunks[2].chunkStartOffset) + 70 { damaged[offset] ^= 0x5A }
        let zstdError = Self.scanError(damaged)
        #expect(zstdError.messages == before)
        #expect(zstdError.error?.offset == zstdChunks[2].chunkStartOffset)
        #expect(zstdError.error.map { $0.reason.hasPrefix("the records do not decompress: zstd:") || $0.reason.hasPrefix("CRC mismatch") } == true)
    }

    /// Two CRC-32s and the second string's length give the CRC-32 of both, as zlib's crc32_combine does: what a scan
    /// uses for a chunk checked on the other thread.
    @Test func crcsCombineAsTheCRCOfBothStrings() {
        var state: UInt32 = 0x2026_1126  // a seeded byte stream (a 32-bit LCG's high bytes)
        func byte() -> UInt8 {
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(state >> 24)
        }
        for length in [0, 1, 2, 3, 7, 8, 63, 64, 1000, 65_537, 1 << 20, 3 << 20 + 5] {
            let first = (0..<(length % 97 + 5)).map { _ in byte() }
            let second = (0..<length).map { _ in byte() }
            #expect(crc32Combine(crc32(first), crc32(second), length: second.count) == crc32(first + second), "\(length)")
        }
        // The check can fail: a wrong length gives another CRC.
        let (a, b) = ([UInt8](repeating: 1, count: 10), [UInt8](repeating: 2, count: 10))
        #expect(crc32Combine(crc32(a), crc32(b), length: 9) != crc32(a + b))
    }

    /// A scan's messages (each as its time and sequence), its first error and the bytes it read, with or without
    /// chunks unpacked ahead on other threads.
    static func scan(_ reader: MCAPReader, ahead: Bool) -> (messages: [UInt64], error: MCAPError?, read: UInt64) {
        reader.prefetchesChunks = ahead
        var messages: [UInt64] = []
        do {
            try reader.scan({ _ in }, messages: { messages.append($0.logTime ^ UInt64($0.sequence) << 40) })
            return (messages, nil, reader.bytesRead)
        } catch {
            return (messages, error as? MCAPError, reader.bytesRead)
        }
    }

    /// A scan unpacks the next chunk on another thread while it hands over this one's messages: the messages, their
    /// order, the bytes read and the first error are the same as with that off, from a file and from memory.
    @Test(arguments: [MCAPCompression.lz4, .zstd, .none])
    func aScanThatUnpacksAheadGivesWhatAScanInTurnGives(compression: MCAPCompression) throws {
        let path = try makeScratchFolder() + "/ahead.mcap"
        _ = try Self.writeSample(path, compression: compression, count: 5000, chunkSize: 4096)
        let inTurn = Self.scan(try MCAPReader(path: path), ahead: false)
        let ahead = Self.scan(try MCAPReader(path: path), ahead: true)
        #expect(inTurn.error == nil && inTurn.messages.count == 5000)
        #expect(ahead.messages == inTurn.messages && ahead.error == nil && ahead.read == inTurn.read)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Self.scan(MCAPReader(bytes: bytes), ahead: true).messages == inTurn.messages)

        // A byte changed in the fourth chunk's records: its CRC (or its codec) fails, after the chunks before it.
        let chunks = try #require(try MCAPReader(bytes: bytes).summary()).chunkIndexes
        var damaged = bytes
        damaged[Int(chunks[3].chunkStartOffset + chunks[3].chunkLength) - 3] ^= 0xFF
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        let damagedInTurn = Self.scan(try MCAPReader(path: path), ahead: false)
        let damagedAhead = Self.scan(try MCAPReader(path: path), ahead: true)
        #expect(damagedInTurn.error != nil && damagedInTurn.error?.offset == chunks[3].chunkStartOffset)
        #expect(damagedAhead.messages == damagedInTurn.messages && damagedAhead.error == damagedInTurn.error)
    }

    /// In a file of many read-ahead blocks, the other thread reads each chunk's bytes itself and the scan's own reads
    /// stop where that chunk starts: the messages, the bytes read (each byte once) and the first error are still
    /// those of a scan in turn, for a chunk met inside a block and one met past it.
    @Test(arguments: [MCAPCompression.lz4, .zstd, .none])
    func aScanAheadThroughALargeFileReadsEachByteOnce(compression: MCAPCompression) throws {
        let path = try makeScratchFolder() + "/large-ahead.mcap"
        var options = MCAPWriter.Options()
        options.compression = compression
        options.chunkSize = 256 << 10
        let writer = try MCAPWriter(path: path, options: options)
        let channels = [try writer.addChannel(topic: "/a", messageEncoding: "", schemaID: 0), try writer.addChannel(topic: "/b", messageEncoding: "", schemaID: 0)]
        var state: UInt64 = 0x5EED
        for index in 0..<12_000 {  // about 12 MB of payloads that do not compress: three read-ahead blocks and more
            let data = (0..<128).flatMap { _ -> [UInt8] in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return withUnsafeBytes(of: state) { Array($0) }
            }
            try writer.add(MCAPMessage(channelID: channels[index % 2], sequence: UInt32(index), logTime: UInt64(index), data: data))
        }
        try writer.finish()
        let inTurn = Self.scan(try MCAPReader(path: path), ahead: false)
        let ahead = Self.scan(try MCAPReader(path: path), ahead: true)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size > 12_000_000 && inTurn.error == nil && inTurn.messages.count == 12_000)
        #expect(ahead.messages == inTurn.messages && ahead.error == nil)
        #expect(ahead.read == inTurn.read && Int(ahead.read) <= size, "read \(ahead.read) and \(inTurn.read) of \(size) bytes")

        // A byte changed in a chunk past the first block: the error is the same, after the same messages.
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let chunks = try #require(try MCAPReader(bytes: bytes).summary()).chunkIndexes
        let late = try #require(chunks.first { $0.chunkStartOffset > 6 << 20 })
        var damaged = bytes
        damaged[Int(late.chunkStartOffset + late.chunkLength) - 3] ^= 0xFF
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        let damagedInTurn = Self.scan(try MCAPReader(path: path), ahead: false)
        let damagedAhead = Self.scan(try MCAPReader(path: path), ahead: true)
        #expect(damagedInTurn.error?.offset == late.chunkStartOffset)
        #expect(damagedAhead.messages == damagedInTurn.messages && damagedAhead.error == damagedInTurn.error)
    }

    @Test func aDamagedSummaryIsCaughtByItsCRC() throws {
        let bytes = try Self.writeSample(nil, compression: .zstd, count: 50).bytes
        let summaryStart = try #require(try MCAPReader(bytes: bytes).summary()).chunkIndexes.last.map { Int($0.chunkStartOffset + $0.chunkLength) }
        var damaged = bytes
        damaged[damaged.count - 8 - 29 - 40] ^= 1  // inside the summary offsets, before the footer
        #expect(summaryStart != nil)
        let error = #expect(throws: MCAPError.self) { try MCAPReader(bytes: damaged, name: "bad.mcap").summary() }
        #expect(error?.record == "Footer" && error?.offset == UInt64(damaged.count - 8 - 29))
        #expect(error?.reason.hasPrefix("CRC mismatch: the summary's CRC-32") == true)
        let cut = Array(bytes.dropLast(3))
        #expect(throws: MCAPError.self) { try MCAPReader(bytes: cut).summary() }
    }

    static func messagesIn(_ bytes: [UInt8], chunk: MCAPChunkIndex) throws -> Int {
        var count = 0
        try MCAPReader(bytes: bytes).messages(from: chunk.messageStartTime, to: chunk.messageEndTime) { _, _ in count += 1 }
        return count
    }
}
