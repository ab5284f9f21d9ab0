/// The record types of the MCAP specification (version 0), by opcode.
public enum MCAPOpcode: UInt8, Sendable, CaseIterable {
    case header = 0x01
    case footer = 0x02
    case schema = 0x03
    case channel = 0x04
    case message = 0x05
    case chunk = 0x06
    case messageIndex = 0x07
    case chunkIndex = 0x08
    case attachment = 0x09
    case attachmentIndex = 0x0A
    case statistics = 0x0B
    case metadata = 0x0C
    case metadataIndex = 0x0D
    case summaryOffset = 0x0E
    case dataEnd = 0x0F

    /// The record's name in the specification, as errors give it.
    public var name: String {
        switch self {
        case .header: "Header"
        case .footer: "Footer"
        case .schema: "Schema"
        case .channel: "Channel"
        case .message: "Message"
        case .chunk: "Chunk"
        case .messageIndex: "Message Index"
        case .chunkIndex: "Chunk Index"
        case .attachment: "Attachment"
        case .attachmentIndex: "Attachment Index"
        case .statistics: "Statistics"
        case .metadata: "Metadata"
        case .metadataIndex: "Metadata Index"
        case .summaryOffset: "Summary Offset"
        case .dataEnd: "Data End"
        }
    }

    /// The name of a known opcode, or `opcode 0xNN`.
    static func name(of raw: UInt8) -> String {
        MCAPOpcode(rawValue: raw)?.name ?? "opcode 0x" + String(raw, radix: 16, uppercase: true)
    }
}

/// The eight bytes that open and close every MCAP file.
public let mcapMagic: [UInt8] = [0x89, 0x4D, 0x43, 0x41, 0x50, 0x30, 0x0D, 0x0A]

/// A schema: how a channel's messages are laid out (for example a protobuf `FileDescriptorSet`).
public struct MCAPSchema: Sendable, Hashable {
    /// The schema's id in its file, from 1 (0 means "no schema").
    public var id: UInt16
    /// The schema's name, such as `foxglove.LocationFix`.
    public var name: String
    /// The schema encoding, such as `protobuf`, `ros2msg` or `jsonschema`.
    public var encoding: String
    /// The schema itself.
    public var data: [UInt8]

    /// A schema.
    public init(id: UInt16, name: String, encoding: String, data: [UInt8]) {
        self.id = id
        self.name = name
        self.encoding = encoding
        self.data = data
    }
}

/// A channel: a topic whose messages share an encoding and a schema.
public struct MCAPChannel: Sendable, Hashable {
    /// The channel's id in its file.
    public var id: UInt16
    /// The schema's id, or 0 for none.
    public var schemaID: UInt16
    /// The topic, such as `/imu`.
    public var topic: String
    /// The message encoding, such as `protobuf`, `cdr` or `json`.
    public var messageEncoding: String
    /// Free-form metadata about the channel.
    public var metadata: [String: String]

    /// A channel.
    public init(id: UInt16, schemaID: UInt16, topic: String, messageEncoding: String, metadata: [String: String] = [:]) {
        self.id = id
        self.schemaID = schemaID
        self.topic = topic
        self.messageEncoding = messageEncoding
        self.metadata = metadata
    }
}

/// A message on a channel.
public struct MCAPMessage: Sendable, Hashable {
    /// The channel's id.
    public var channelID: UInt16
    /// A sequence number, per channel, or 0.
    public var sequence: UInt32
    /// When the message was recorded, in nanoseconds.
    public var logTime: UInt64
    /// When the message was published, in nanoseconds.
    public var publishTime: UInt64
    /// The message, in its channel's encoding.
    public var data: [UInt8]

    /// A message.
    public init(channelID: UInt16, sequence: UInt32 = 0, logTime: UInt64, publishTime: UInt64? = nil, data: [UInt8]) {
        self.channelID = channelID
        self.sequence = sequence
        self.logTime = logTime
        self.publishTime = publishTime ?? logTime
        self.data = data
    }
}

/// A message read by ``MCAPReader/scan(_:messages:)``: its fields, and its data borrowed from the reader's buffer,
/// valid only during the call that hands it over.
public struct MCAPMessageView {
    /// The channel.
    public var channelID: UInt16
    /// The channel's sequence number.
    public var sequence: UInt32
    /// When the message was logged, in nanoseconds.
    public var logTime: UInt64
    /// When the message was published, in nanoseconds.
    public var publishTime: UInt64
    /// The message's data: do not keep it past the call.
    public var data: UnsafeRawBufferPointer
    /// The file offset of the message's record, or of the Chunk record it is in, for errors; nil when not known.
    public var recordOffset: UInt64?
    /// For a message in a chunk, where its record starts in the chunk's decompressed records.
    public var offsetInChunk: Int?

    /// A view of a message's fields and data.
    public init(
        channelID: UInt16, sequence: UInt32, logTime: UInt64, publishTime: UInt64, data: UnsafeRawBufferPointer,
        recordOffset: UInt64?, offsetInChunk: Int?
    ) {
        self.channelID = channelID
        self.sequence = sequence
        self.logTime = logTime
        self.publishTime = publishTime
        self.data = data
        self.recordOffset = recordOffset
        self.offsetInChunk = offsetInChunk
    }

    /// Where the message is, for errors: `byte N`, `byte N (a chunk), byte M of its records`, or its log time.
    public var place: String {
        guard let recordOffset else { return "the message logged at \(logTime) ns" }
        return offsetInChunk.map { "byte \(recordOffset) (a chunk), byte \($0) of its records" } ?? "byte \(recordOffset)"
    }
}

/// A named map of strings, stored in the file.
public struct MCAPMetadata: Sendable, Hashable {
    /// The metadata's name.
    public var name: String
    /// Its values.
    public var values: [String: String]

    /// Metadata.
    public init(name: String, values: [String: String]) {
        self.name = name
        self.values = values
    }
}

/// The file's counts and time span, as its Statistics record gives them.
public struct MCAPStatistics: Sendable, Hashable {
    /// Messages in the file.
    public var messageCount: UInt64 = 0
    /// Schemas in the file.
    public var schemaCount: UInt16 = 0
    /// Channels in the file.
    public var channelCount: UInt32 = 0
    /// Attachments in the file.
    public var attachmentCount: UInt32 = 0
    /// Metadata records in the file.
    public var metadataCount: UInt32 = 0
    /// Chunks in the file.
    public var chunkCount: UInt32 = 0
    /// The earliest message's log time, nanoseconds.
    public var messageStartTime: UInt64 = 0
    /// The latest message's log time, nanoseconds.
    public var messageEndTime: UInt64 = 0
    /// Messages per channel id.
    public var channelMessageCounts: [UInt16: UInt64] = [:]

    /// Empty statistics.
    public init() {}
}

/// Where a chunk is and what it holds, as the summary's Chunk Index records give it.
public struct MCAPChunkIndex: Sendable, Hashable {
    /// The earliest log time in the chunk.
    public var messageStartTime: UInt64
    /// The latest log time in the chunk.
    public var messageEndTime: UInt64
    /// The file offset of the Chunk record.
    public var chunkStartOffset: UInt64
    /// The length of the Chunk record, opcode and length included.
    public var chunkLength: UInt64
    /// The file offset of each channel's Message Index record for the chunk.
    public var messageIndexOffsets: [UInt16: UInt64]
    /// The length of the Message Index records after the chunk.
    public var messageIndexLength: UInt64
    /// The chunk's compression: `""`, `zstd` or `lz4`.
    public var compression: String
    /// The size of the chunk's records, compressed.
    public var compressedSize: UInt64
    /// The size of the chunk's records, uncompressed.
    public var uncompressedSize: UInt64
}

/// Where a Metadata record is, as the summary's Metadata Index records give it.
public struct MCAPMetadataIndex: Sendable, Hashable {
    /// The file offset of the Metadata record.
    public var offset: UInt64
    /// Its length, opcode and length included.
    public var length: UInt64
    /// The metadata's name.
    public var name: String
}

/// A file attached to a recording: a calibration, a map, a video. Attachments sit in the data section, outside
/// chunks; each carries a CRC-32 of its fields.
public struct MCAPAttachment: Sendable, Hashable {
    /// When the attachment belongs in the recording, nanoseconds.
    public var logTime: UInt64
    /// When it was made, nanoseconds.
    public var createTime: UInt64
    /// Its name, such as a file name.
    public var name: String
    /// Its media type, such as `text/plain` or `application/octet-stream`.
    public var mediaType: String
    /// Its bytes.
    public var data: [UInt8]

    /// An attachment.
    public init(logTime: UInt64, createTime: UInt64, name: String, mediaType: String, data: [UInt8]) {
        self.logTime = logTime
        self.createTime = createTime
        self.name = name
        self.mediaType = mediaType
        self.data = data
    }
}

/// Where an Attachment record is and what it holds, as the summary's Attachment Index records give it.
public struct MCAPAttachmentIndex: Sendable, Hashable {
    /// The file offset of the Attachment record.
    public var offset: UInt64
    /// Its length, opcode and length included.
    public var length: UInt64
    /// The attachment's log time.
    public var logTime: UInt64
    /// The attachment's creation time.
    public var createTime: UInt64
    /// The size of its data.
    public var dataSize: UInt64
    /// Its name.
    public var name: String
    /// Its media type.
    public var mediaType: String
}

/// Where each message of one channel is in a chunk's records: a Message Index record, after its chunk.
public struct MCAPMessageIndex: Sendable, Hashable {
    /// The channel.
    public var channelID: UInt16
    /// Each message's log time and offset in the chunk's uncompressed records.
    public var entries: [Entry]

    /// One message's place.
    public struct Entry: Sendable, Hashable {
        /// Its log time.
        public var logTime: UInt64
        /// Its offset in the chunk's uncompressed records.
        public var offset: UInt64
    }
}

/// Where a group of summary records of one opcode is: a Summary Offset record.
public struct MCAPSummaryOffset: Sendable, Hashable {
    /// The opcode of the group's records.
    public var groupOpcode: UInt8
    /// The file offset of the group's first record.
    public var groupStart: UInt64
    /// The group's length in bytes.
    public var groupLength: UInt64
}

/// The Footer record: where the summary and its offsets start, and the summary's CRC-32.
public struct MCAPFooter: Sendable, Hashable {
    /// The file offset of the summary section, or 0 when the file has none.
    public var summaryStart: UInt64
    /// The file offset of the summary offset section, or 0 when the file has none.
    public var summaryOffsetStart: UInt64
    /// The CRC-32 of the summary section and the footer's fields before it, or 0 when not given.
    public var summaryCRC: UInt32
}

/// What the summary section holds: the file's schemas and channels, its statistics and where its chunks are.
public struct MCAPSummary: Sendable, Hashable {
    /// Schemas by id.
    public var schemas: [UInt16: MCAPSchema] = [:]
    /// Channels by id.
    public var channels: [UInt16: MCAPChannel] = [:]
    /// The Statistics record, when the file has one.
    public var statistics: MCAPStatistics?
    /// The chunks, in file order.
    public var chunkIndexes: [MCAPChunkIndex] = []
    /// The Metadata records.
    public var metadataIndexes: [MCAPMetadataIndex] = []
    /// The Attachment records.
    public var attachmentIndexes: [MCAPAttachmentIndex] = []
    /// Where each group of summary records is.
    public var summaryOffsets: [MCAPSummaryOffset] = []
    /// Whether the data section was scanned for what the summary lacks: the schema of a channel it declares, or
    /// the channels of the chunks it indexes. The specification lets a writer leave them out of the summary.
    public var completedByScan = false

    /// An empty summary.
    public init() {}
}

// MARK: - Encoding and decoding the records' contents

extension MCAPEncoder {
    mutating func schema(_ schema: MCAPSchema) {
        record(.schema) { out in
            out.u16(schema.id)
            out.string(schema.name)
            out.string(schema.encoding)
            out.u32(UInt32(schema.data.count))
            out.bytes.append(contentsOf: schema.data)
        }
    }

    mutating func channel(_ channel: MCAPChannel) {
        record(.channel) { out in
            out.u16(channel.id)
            out.u16(channel.schemaID)
            out.string(channel.topic)
            out.string(channel.messageEncoding)
            out.stringMap(channel.metadata)
        }
    }

    mutating func message(_ message: MCAPMessage) {
        record(.message) { out in
            out.u16(message.channelID)
            out.u32(message.sequence)
            out.u64(message.logTime)
            out.u64(message.publishTime)
            out.bytes.append(contentsOf: message.data)
        }
    }

    mutating func metadata(_ metadata: MCAPMetadata) {
        record(.metadata) { out in
            out.string(metadata.name)
            out.stringMap(metadata.values)
        }
    }

    mutating func statistics(_ statistics: MCAPStatistics) {
        record(.statistics) { out in
            out.u64(statistics.messageCount)
            out.u16(statistics.schemaCount)
            out.u32(statistics.channelCount)
            out.u32(statistics.attachmentCount)
            out.u32(statistics.metadataCount)
            out.u32(statistics.chunkCount)
            out.u64(statistics.messageStartTime)
            out.u64(statistics.messageEndTime)
            out.idMap(statistics.channelMessageCounts)
        }
    }

    mutating func metadataIndex(_ index: MCAPMetadataIndex) {
        record(.metadataIndex) { out in
            out.u64(index.offset)
            out.u64(index.length)
            out.string(index.name)
        }
    }

    mutating func attachment(_ attachment: MCAPAttachment) {
        record(.attachment) { out in
            let start = out.bytes.count
            out.u64(attachment.logTime)
            out.u64(attachment.createTime)
            out.string(attachment.name)
            out.string(attachment.mediaType)
            out.u64(UInt64(attachment.data.count))
            out.bytes.append(contentsOf: attachment.data)
            out.u32(crc32(out.bytes[start...]))
        }
    }

    mutating func attachmentIndex(_ index: MCAPAttachmentIndex) {
        record(.attachmentIndex) { out in
            out.u64(index.offset)
            out.u64(index.length)
            out.u64(index.logTime)
            out.u64(index.createTime)
            out.u64(index.dataSize)
            out.string(index.name)
            out.string(index.mediaType)
        }
    }

    mutating func chunkIndex(_ index: MCAPChunkIndex) {
        record(.chunkIndex) { out in
            out.u64(index.messageStartTime)
            out.u64(index.messageEndTime)
            out.u64(index.chunkStartOffset)
            out.u64(index.chunkLength)
            out.idMap(index.messageIndexOffsets)
            out.u64(index.messageIndexLength)
            out.string(index.compression)
            out.u64(index.compressedSize)
            out.u64(index.uncompressedSize)
        }
    }
}

extension MCAPDecoder {
    mutating func schema() throws(MCAPError) -> MCAPSchema {
        let id = try u16("id")
        let name = try string("name")
        let encoding = try string("encoding")
        let data = try prefixedBytes("data", prefix: 4)
        return MCAPSchema(id: id, name: name, encoding: encoding, data: Array(bytes[data]))
    }

    mutating func channel() throws(MCAPError) -> MCAPChannel {
        let id = try u16("id")
        let schemaID = try u16("schema_id")
        let topic = try string("topic")
        let encoding = try string("message_encoding")
        let metadata = try stringMap("metadata")
        return MCAPChannel(id: id, schemaID: schemaID, topic: topic, messageEncoding: encoding, metadata: metadata)
    }

    mutating func message() throws(MCAPError) -> MCAPMessage {
        let channelID = try u16("channel_id")
        let sequence = try u32("sequence")
        let logTime = try u64("log_time")
        let publishTime = try u64("publish_time")
        let data = try take(remaining, "data")
        return MCAPMessage(channelID: channelID, sequence: sequence, logTime: logTime, publishTime: publishTime, data: Array(bytes[data]))
    }

    mutating func metadata() throws(MCAPError) -> MCAPMetadata {
        let name = try string("name")
        return MCAPMetadata(name: name, values: try stringMap("metadata"))
    }

    mutating func statistics() throws(MCAPError) -> MCAPStatistics {
        var statistics = MCAPStatistics()
        statistics.messageCount = try u64("message_count")
        statistics.schemaCount = try u16("schema_count")
        statistics.channelCount = try u32("channel_count")
        statistics.attachmentCount = try u32("attachment_count")
        statistics.metadataCount = try u32("metadata_count")
        statistics.chunkCount = try u32("chunk_count")
        statistics.messageStartTime = try u64("message_start_time")
        statistics.messageEndTime = try u64("message_end_time")
        statistics.channelMessageCounts = try idMap("channel_message_counts")
        return statistics
    }

    mutating func metadataIndex() throws(MCAPError) -> MCAPMetadataIndex {
        MCAPMetadataIndex(offset: try u64("offset"), length: try u64("length"), name: try string("name"))
    }

    mutating func chunkIndex() throws(MCAPError) -> MCAPChunkIndex {
        MCAPChunkIndex(
            messageStartTime: try u64("message_start_time"), messageEndTime: try u64("message_end_time"),
            chunkStartOffset: try u64("chunk_start_offset"), chunkLength: try u64("chunk_length"),
            messageIndexOffsets: try idMap("message_index_offsets"), messageIndexLength: try u64("message_index_length"),
            compression: try string("compression"), compressedSize: try u64("compressed_size"),
            uncompressedSize: try u64("uncompressed_size"))
    }

    /// An Attachment record, its CRC checked (when `checkCRC` and the record gives one).
    mutating func attachment(checkCRC: Bool) throws(MCAPError) -> MCAPAttachment {
        let start = position
        let logTime = try u64("log_time")
        let createTime = try u64("create_time")
        let name = try string("name")
        let mediaType = try string("media_type")
        let data = try prefixedBytes("data", prefix: 8)
        let end = position
        let expected = try u32("crc")
        if checkCRC && expected != 0 {
            let crc = crc32(bytes[start..<end])
            guard crc == expected else { throw error("CRC mismatch: the attachment's CRC-32 is \(crc), the record says \(expected)") }
        }
        return MCAPAttachment(logTime: logTime, createTime: createTime, name: name, mediaType: mediaType, data: Array(bytes[data]))
    }

    mutating func attachmentIndex() throws(MCAPError) -> MCAPAttachmentIndex {
        MCAPAttachmentIndex(
            offset: try u64("offset"), length: try u64("length"), logTime: try u64("log_time"), createTime: try u64("create_time"),
            dataSize: try u64("data_size"), name: try string("name"), mediaType: try string("media_type"))
    }

    mutating func messageIndex() throws(MCAPError) -> MCAPMessageIndex {
        let channelID = try u16("channel_id")
        let length = try u32("records")
        guard length % 16 == 0 else { throw error("records: \(length) bytes is not a whole number of 16-byte entries") }
        // The entries' bytes are checked once and read in one loop: a chunk of a million-sample file indexes 18,000
        // messages, and reading them field by field was a sixth of a scan's time.
        let range = try take(Int(length), "records")
        let entries = bytes.withUnsafeBytes { raw in
            (0..<(range.count / 16)).map { index in
                let at = range.lowerBound + 16 * index
                return MCAPMessageIndex.Entry(
                    logTime: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)),
                    offset: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)))
            }
        }
        return MCAPMessageIndex(channelID: channelID, entries: entries)
    }

    mutating func summaryOffset() throws(MCAPError) -> MCAPSummaryOffset {
        MCAPSummaryOffset(groupOpcode: try u8("group_opcode"), groupStart: try u64("group_start"), groupLength: try u64("group_length"))
    }

    mutating func footer() throws(MCAPError) -> MCAPFooter {
        MCAPFooter(summaryStart: try u64("summary_start"), summaryOffsetStart: try u64("summary_offset_start"), summaryCRC: try u32("summary_crc"))
    }
}
