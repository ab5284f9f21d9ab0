import SystemPackage

/// Writes an MCAP file: the header, schemas, channels and metadata, messages in compressed chunks each followed by
/// its message indexes, then the summary (schemas, channels, statistics, chunk, metadata and attachment indexes), the summary
/// offsets and the footer, with the CRCs the specification defines (each chunk's records, the data section, the
/// summary).
///
/// Schemas and channels are written in the data section where they are added, outside chunks, and again in the
/// summary. A chunk is closed when its records reach ``Options/chunkSize``. Messages should come in log-time
/// order, as a recording gives them; chunks whose times overlap are still valid MCAP.
///
/// ```swift
/// let writer = try MCAPWriter(path: "walk.mcap")
/// let schema = try writer.addSchema(name: "foxglove.LocationFix", encoding: "protobuf", data: descriptorSet)
/// let channel = try writer.addChannel(topic: "/gps", messageEncoding: "protobuf", schemaID: schema)
/// try writer.add(MCAPMessage(channelID: channel, logTime: 1_000_000_000, data: fix))
/// try writer.finish()
/// ```
///
/// A writer is used from one task at a time.
public final class MCAPWriter {
    /// How the file is written.
    public struct Options: Sendable {
        /// The chunks' compression.
        public var compression: MCAPCompression = .zstd
        /// Records per chunk, uncompressed, in bytes, before the chunk is closed.
        public var chunkSize = 1 << 20
        /// The Header's profile, such as `ros2`, or empty.
        public var profile = ""
        /// The Header's library field: what wrote the file.
        public var library = "swift-sensor-hal"

        /// The defaults: zstd chunks of 1 MiB.
        public init() {}
    }

    private let options: Options
    private let path: String
    /// The file, until ``finish()`` closes it.
    private var descriptor: FileDescriptor?
    /// Bytes written out so far, and the buffer of bytes not yet written.
    private var flushed: UInt64 = 0
    private var pending = MCAPEncoder()
    /// The CRC of the bytes written so far, while they are the data section's.
    private var dataCRC: UInt32 = 0
    private var inDataSection = true
    private var memory: [UInt8] = []

    private var schemas: [MCAPSchema] = []
    private var channels: [MCAPChannel] = []
    private var statistics = MCAPStatistics()
    private var chunkIndexes: [MCAPChunkIndex] = []
    private var metadataIndexes: [MCAPMetadataIndex] = []
    private var attachmentIndexes: [MCAPAttachmentIndex] = []

    private var chunk = MCAPEncoder()
    private var chunkStart: UInt64 = .max
    private var chunkEnd: UInt64 = 0
    /// Each channel's (log time, offset in the chunk's records) pairs, for the chunk's Message Index records.
    private var chunkIndex: [UInt16: [(UInt64, UInt64)]] = [:]
    private var finished = false

    /// A writer to a new file at `path` (replacing one that is there).
    public init(path: String, options: Options = Options()) throws(MCAPError) {
        self.options = options
        self.path = path
        do {
            descriptor = try FileDescriptor.open(
                FilePath(path), .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw MCAPError(file: path, offset: 0, record: "file", "cannot create the file: \(error)")
        }
        start()
    }

    /// A writer to memory: ``bytes`` has the file once ``finish()`` returns.
    public init(options: Options = Options()) {
        self.options = options
        path = "<memory>"
        descriptor = nil
        start()
    }

    deinit { try? descriptor?.close() }

    /// The file's bytes, for a writer to memory, once finished.
    public var bytes: [UInt8] { memory }

    private var position: UInt64 { flushed + UInt64(pending.bytes.count) }

    private func start() {
        pending.bytes.append(contentsOf: mcapMagic)
        pending.record(.header) { out in
            out.string(options.profile)
            out.string(options.library)
        }
    }

    /// Adds a schema and returns its id.
    public func addSchema(name: String, encoding: String, data: [UInt8]) throws(MCAPError) -> UInt16 {
        try checkOpen("Schema")
        guard schemas.count < Int(UInt16.max) else {
            throw MCAPError(file: path, offset: position, record: "Schema", "MCAP has at most \(UInt16.max) schemas")
        }
        let schema = MCAPSchema(id: UInt16(schemas.count + 1), name: name, encoding: encoding, data: data)
        schemas.append(schema)
        pending.schema(schema)
        try flushIfLarge()
        return schema.id
    }

    /// Adds a channel and returns its id. `schemaID` is 0 for a channel without a schema.
    public func addChannel(topic: String, messageEncoding: String, schemaID: UInt16, metadata: [String: String] = [:]) throws(MCAPError) -> UInt16 {
        guard schemaID == 0 || Int(schemaID) <= schemas.count else {
            throw MCAPError(file: path, offset: position, record: "Channel", "schema \(schemaID) has not been added")
        }
        try checkOpen("Channel")
        guard channels.count < Int(UInt16.max) else {
            throw MCAPError(file: path, offset: position, record: "Channel", "MCAP has at most \(UInt16.max) channels")
        }
        let channel = MCAPChannel(id: UInt16(channels.count + 1), schemaID: schemaID, topic: topic, messageEncoding: messageEncoding, metadata: metadata)
        channels.append(channel)
        pending.channel(channel)
        try flushIfLarge()
        return channel.id
    }

    /// Adds named metadata.
    public func addMetadata(_ metadata: MCAPMetadata) throws(MCAPError) {
        try checkOpen("Metadata")
        let offset = position
        pending.metadata(metadata)
        metadataIndexes.append(MCAPMetadataIndex(offset: offset, length: position - offset, name: metadata.name))
        statistics.metadataCount += 1
        try flushIfLarge()
    }

    /// Adds an attachment to the data section (outside chunks), with its CRC-32, and indexes it in the summary.
    public func addAttachment(_ attachment: MCAPAttachment) throws(MCAPError) {
        try checkOpen("Attachment")
        let offset = position
        pending.attachment(attachment)
        attachmentIndexes.append(MCAPAttachmentIndex(
            offset: offset, length: position - offset, logTime: attachment.logTime, createTime: attachment.createTime,
            dataSize: UInt64(attachment.data.count), name: attachment.name, mediaType: attachment.mediaType))
        statistics.attachmentCount += 1
        try flushIfLarge()
    }

    /// Adds a message to the open chunk, closing the chunk when it is full.
    public func add(_ message: MCAPMessage) throws(MCAPError) {
        try checkOpen("Message")
        guard message.channelID >= 1, Int(message.channelID) <= channels.count else {
            throw MCAPError(file: path, offset: position, record: "Message", "channel \(message.channelID) has not been added")
        }
        chunkIndex[message.channelID, default: []].append((message.logTime, UInt64(chunk.bytes.count)))
        chunk.message(message)
        chunkStart = min(chunkStart, message.logTime)
        chunkEnd = max(chunkEnd, message.logTime)
        if statistics.messageCount == 0 || message.logTime < statistics.messageStartTime { statistics.messageStartTime = message.logTime }
        statistics.messageEndTime = max(statistics.messageEndTime, message.logTime)
        statistics.messageCount += 1
        statistics.channelMessageCounts[message.channelID, default: 0] += 1
        if chunk.bytes.count >= options.chunkSize { try closeChunk() }
    }

    /// Closes the open chunk and writes everything so far to the file, so that a reader of the file, or of what is
    /// left of it after a crash, finds every message added until now.
    public func flushChunk() throws(MCAPError) {
        try closeChunk()
        try flush()
    }

    private func checkOpen(_ record: String) throws(MCAPError) {
        guard !finished else { throw MCAPError(file: path, offset: position, record: record, "the file is finished") }
    }

    /// The earliest log time in the open chunk, or nil when no chunk is open.
    public var openChunkStart: UInt64? { chunk.bytes.isEmpty ? nil : chunkStart }

    /// Closes the open chunk, writes the summary and the footer, and closes the file.
    public func finish() throws(MCAPError) {
        guard !finished else { return }
        finished = true
        try closeChunk()
        try flush()  // everything before Data End is the data section
        inDataSection = false
        pending.record(.dataEnd) { $0.u32(dataCRC) }
        try flush()

        let summaryStart = position
        var summary = MCAPEncoder()
        var offsets: [(MCAPOpcode, UInt64, UInt64)] = []
        func group(_ opcode: MCAPOpcode, _ body: (inout MCAPEncoder) -> Void) {
            let start = summary.bytes.count
            body(&summary)
            if summary.bytes.count > start { offsets.append((opcode, summaryStart + UInt64(start), UInt64(summary.bytes.count - start))) }
        }
        statistics.schemaCount = UInt16(schemas.count)
        statistics.channelCount = UInt32(channels.count)
        statistics.chunkCount = UInt32(chunkIndexes.count)
        group(.schema) { out in for schema in schemas { out.schema(schema) } }
        group(.channel) { out in for channel in channels { out.channel(channel) } }
        group(.statistics) { $0.statistics(statistics) }
        group(.chunkIndex) { out in for index in chunkIndexes { out.chunkIndex(index) } }
        group(.metadataIndex) { out in for index in metadataIndexes { out.metadataIndex(index) } }
        group(.attachmentIndex) { out in for index in attachmentIndexes { out.attachmentIndex(index) } }
        let summaryOffsetStart = summaryStart + UInt64(summary.bytes.count)
        for (opcode, start, length) in offsets {
            summary.record(.summaryOffset) { out in
                out.u8(opcode.rawValue)
                out.u64(start)
                out.u64(length)
            }
        }
        var footer = MCAPEncoder()
        footer.u8(MCAPOpcode.footer.rawValue)
        footer.u64(20)
        footer.u64(summaryStart)
        footer.u64(summaryOffsetStart)
        footer.u32(crc32(footer.bytes, continuing: crc32(summary.bytes)))
        pending.bytes.append(contentsOf: summary.bytes)
        pending.bytes.append(contentsOf: footer.bytes)
        pending.bytes.append(contentsOf: mcapMagic)
        try flush()
        if let descriptor {
            self.descriptor = nil  // closed once: deinit must not close a number the system has since given out again
            do { try descriptor.close() } catch {
                throw MCAPError(file: path, offset: position, record: "file", "cannot close the file: \(error)")
            }
        }
    }

    private func closeChunk() throws(MCAPError) {
        guard !chunk.bytes.isEmpty else { return }
        let records = chunk.bytes
        let compressed = options.compression.compress(records)
        let start = position
        pending.record(.chunk) { out in
            out.u64(chunkStart)
            out.u64(chunkEnd)
            out.u64(UInt64(records.count))
            out.u32(crc32(records))
            out.string(options.compression.rawValue)
            out.u64(UInt64(compressed.count))
            out.bytes.append(contentsOf: compressed)
        }
        let chunkLength = position - start
        var messageIndexOffsets: [UInt16: UInt64] = [:]
        let indexStart = position
        for (id, entries) in chunkIndex.sorted(by: { $0.key < $1.key }) {
            messageIndexOffsets[id] = position
            pending.record(.messageIndex) { out in
                out.u16(id)
                out.u32(UInt32(entries.count * 16))
                for (time, offset) in entries {
                    out.u64(time)
                    out.u64(offset)
                }
            }
        }
        chunkIndexes.append(MCAPChunkIndex(
            messageStartTime: chunkStart, messageEndTime: chunkEnd, chunkStartOffset: start, chunkLength: chunkLength,
            messageIndexOffsets: messageIndexOffsets, messageIndexLength: position - indexStart,
            compression: options.compression.rawValue, compressedSize: UInt64(compressed.count), uncompressedSize: UInt64(records.count)))
        chunk.bytes.removeAll(keepingCapacity: true)
        chunkIndex.removeAll(keepingCapacity: true)
        chunkStart = .max
        chunkEnd = 0
        try flushIfLarge()
    }

    private func flushIfLarge() throws(MCAPError) {
        if pending.bytes.count >= 4 << 20 { try flush() }
    }

    /// Writes the pending bytes out, adding them to the data section's CRC until the summary starts.
    private func flush() throws(MCAPError) {
        if inDataSection { dataCRC = crc32(pending.bytes, continuing: dataCRC) }
        defer {
            flushed += UInt64(pending.bytes.count)
            pending.bytes.removeAll(keepingCapacity: true)
        }
        guard let descriptor else {
            memory.append(contentsOf: pending.bytes)
            return
        }
        do {
            _ = try pending.bytes.withUnsafeBytes { try descriptor.writeAll($0) }
        } catch {
            throw MCAPError(file: path, offset: flushed, record: "file", "cannot write: \(error)")
        }
    }
}
