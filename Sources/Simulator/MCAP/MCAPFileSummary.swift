/// What any MCAP file holds, in brief, as `mcap info` shows it: the library and profile that wrote it, its messages
/// and their time range, its chunks by compression, its channels with their schemas and message counts, and its
/// attachments and metadata.
///
/// The figures come from the summary section when it has them all: the Statistics record, and an index for every
/// chunk, attachment and metadata record it counts. Otherwise (no summary, or one without statistics or an index)
/// they come from a scan of the data section, which checks everything it reads as ``MCAPReader/scan(repeats:_:)``
/// does. Either way they are the same (``source`` says which it was), and the lists are in a fixed order: channels
/// by id, compressions by name, attachments and metadata in file order.
public struct MCAPFileSummary: Sendable, Hashable {
    /// Where the figures came from.
    public enum Source: Sendable, Hashable {
        /// The summary section: its statistics and its chunk, attachment and metadata indexes.
        case summary
        /// A scan of the data section.
        case scan
    }

    /// A channel, with its schema and how many messages it has.
    public struct Channel: Sendable, Hashable {
        /// The channel's id in the file.
        public var id: UInt16
        /// Its topic.
        public var topic: String
        /// Its messages' encoding, such as `json` or `cdr`.
        public var messageEncoding: String
        /// Its schema's id, or 0 for none.
        public var schemaID: UInt16
        /// Its schema's name, or nil for none.
        public var schemaName: String?
        /// Its schema's encoding, such as `jsonschema` or `protobuf`, or nil for none.
        public var schemaEncoding: String?
        /// How many messages it has.
        public var messageCount: UInt64

        /// A channel's line of the summary.
        public init(id: UInt16, topic: String, messageEncoding: String, schemaID: UInt16, schemaName: String?, schemaEncoding: String?, messageCount: UInt64) {
            self.id = id
            self.topic = topic
            self.messageEncoding = messageEncoding
            self.schemaID = schemaID
            self.schemaName = schemaName
            self.schemaEncoding = schemaEncoding
            self.messageCount = messageCount
        }
    }

    /// The chunks of one compression.
    public struct Compression: Sendable, Hashable {
        /// The compression's name as the file gives it: `zstd`, `lz4`, or empty for none.
        public var name: String
        /// How many chunks use it.
        public var chunkCount: Int
        /// Their records' size in bytes, as stored.
        public var compressedSize: UInt64
        /// Their records' size in bytes, decompressed.
        public var uncompressedSize: UInt64

        /// The chunks of one compression.
        public init(name: String, chunkCount: Int, compressedSize: UInt64, uncompressedSize: UInt64) {
            self.name = name
            self.chunkCount = chunkCount
            self.compressedSize = compressedSize
            self.uncompressedSize = uncompressedSize
        }
    }

    /// An attachment, without its data.
    public struct Attachment: Sendable, Hashable {
        /// Its name.
        public var name: String
        /// Its media type.
        public var mediaType: String
        /// The size of its data in bytes.
        public var size: UInt64
        /// Its log time, nanoseconds.
        public var logTime: UInt64
        /// Its creation time, nanoseconds.
        public var createTime: UInt64

        /// An attachment's line of the summary.
        public init(name: String, mediaType: String, size: UInt64, logTime: UInt64, createTime: UInt64) {
            self.name = name
            self.mediaType = mediaType
            self.size = size
            self.logTime = logTime
            self.createTime = createTime
        }
    }

    /// The library that wrote the file (the Header's `library`).
    public var library: String
    /// The file's profile (the Header's `profile`), such as `ros2`, or empty.
    public var profile: String
    /// How many messages the file has.
    public var messageCount: UInt64
    /// The earliest and the latest message's log time, nanoseconds; nil when the file has no messages.
    public var timeRange: ClosedRange<UInt64>?
    /// How many chunks the file has.
    public var chunkCount: Int
    /// The chunks by compression, by name.
    public var compressions: [Compression]
    /// The channels, by id.
    public var channels: [Channel]
    /// The attachments, in file order.
    public var attachments: [Attachment]
    /// The names of the Metadata records, in file order.
    public var metadataNames: [String]
    /// Where the figures came from.
    public var source: Source

    /// The time from the first message to the last, nanoseconds; nil when the file has no messages.
    public var duration: UInt64? { timeRange.map { $0.upperBound - $0.lowerBound } }

    /// The messages per second of `channel` over the file's time range; nil when the range is empty.
    public func frequency(of channel: Channel) -> Double? {
        guard let duration, duration > 0 else { return nil }
        return Double(channel.messageCount) * 1e9 / Double(duration)
    }

    /// Summarises the MCAP file at `path`.
    public init(path: String) throws(MCAPError) {
        try self.init(reader: MCAPReader(path: path))
    }

    /// Summarises the file `reader` reads: from its summary section when that has every figure, else (or with
    /// `scanning`) by a scan of its data section.
    public init(reader: MCAPReader, scanning: Bool = false) throws(MCAPError) {
        if !scanning, let summary = try reader.summary(), let statistics = summary.statistics,
           summary.chunkIndexes.count == statistics.chunkCount, summary.attachmentIndexes.count == statistics.attachmentCount,
           summary.metadataIndexes.count == statistics.metadataCount, summary.channels.count == statistics.channelCount {
            let header = try reader.header()
            self.init(
                library: header.library, profile: header.profile, messageCount: statistics.messageCount,
                timeRange: statistics.messageCount == 0 ? nil : min(statistics.messageStartTime, statistics.messageEndTime)...max(statistics.messageStartTime, statistics.messageEndTime),
                chunks: summary.chunkIndexes, schemas: summary.schemas, channels: summary.channels, counts: statistics.channelMessageCounts,
                attachments: summary.attachmentIndexes.sorted { $0.offset < $1.offset }.map {
                    Attachment(name: $0.name, mediaType: $0.mediaType, size: $0.dataSize, logTime: $0.logTime, createTime: $0.createTime)
                },
                metadataNames: summary.metadataIndexes.sorted { $0.offset < $1.offset }.map(\.name), source: .summary)
            return
        }
        var header = (profile: "", library: "")
        var schemas: [UInt16: MCAPSchema] = [:], channels: [UInt16: MCAPChannel] = [:], counts: [UInt16: UInt64] = [:]
        var messageCount: UInt64 = 0
        var first = UInt64.max, last = UInt64.min
        var attachments: [Attachment] = [], metadataNames: [String] = []
        do {
            try reader.scan({ record in
                switch record {
                case .header(let profile, let library): header = (profile, library)
                case .schema(let schema): schemas[schema.id] = schema
                case .channel(let channel): channels[channel.id] = channel
                case .attachment(let attachment):
                    attachments.append(Attachment(
                        name: attachment.name, mediaType: attachment.mediaType, size: UInt64(attachment.data.count), logTime: attachment.logTime,
                        createTime: attachment.createTime))
                case .metadata(let metadata): metadataNames.append(metadata.name)
                default: break
                }
            }, messages: { message in
                messageCount += 1
                counts[message.channelID, default: 0] += 1
                first = min(first, message.logTime)
                last = max(last, message.logTime)
            })
        } catch let error as MCAPError {
            throw error
        } catch {
            throw MCAPError(file: reader.path, offset: 0, record: "file", "\(error)")
        }
        self.init(
            library: header.library, profile: header.profile, messageCount: messageCount, timeRange: messageCount == 0 ? nil : first...last,
            chunks: try reader.dataSectionChunks(), schemas: schemas, channels: channels, counts: counts, attachments: attachments,
            metadataNames: metadataNames, source: .scan)
    }

    /// The summary of what was read, in its fixed order.
    private init(
        library: String, profile: String, messageCount: UInt64, timeRange: ClosedRange<UInt64>?, chunks: [MCAPChunkIndex],
        schemas: [UInt16: MCAPSchema], channels: [UInt16: MCAPChannel], counts: [UInt16: UInt64], attachments: [Attachment],
        metadataNames: [String], source: Source
    ) {
        self.library = library
        self.profile = profile
        self.messageCount = messageCount
        self.timeRange = timeRange
        chunkCount = chunks.count
        compressions = Dictionary(grouping: chunks, by: \.compression).map { name, chunks in
            Compression(
                name: name, chunkCount: chunks.count, compressedSize: chunks.reduce(0) { $0 + $1.compressedSize },
                uncompressedSize: chunks.reduce(0) { $0 + $1.uncompressedSize })
        }.sorted { $0.name < $1.name }
        self.channels = channels.values.sorted { $0.id < $1.id }.map { channel in
            let schema = schemas[channel.schemaID]
            return Channel(
                id: channel.id, topic: channel.topic, messageEncoding: channel.messageEncoding, schemaID: channel.schemaID,
                schemaName: schema?.name, schemaEncoding: schema?.encoding, messageCount: counts[channel.id] ?? 0)
        }
        self.attachments = attachments
        self.metadataNames = metadataNames
        self.source = source
    }
}
