public import TraceFormat
public import HAL
public import MCAP

/// Writes a trace as an MCAP file, in schemas Foxglove reads (`docs/trace-format.md`): the same records a
/// ``TraceWriter`` takes, refused by the same rules, kept exactly.
///
/// The trace's header is kept whole in the `hal-trace` Metadata record, written first, so that a file cut short
/// still has it. Each trace channel becomes an MCAP channel, declared with its first record (a camera's schema
/// depends on whether its frames are encoded images), whose topic is the channel's id and whose metadata gives the
/// channel's place in the header (`index`) and, for people and tools, its fields.
///
/// MCAP keeps messages in compressed chunks: lz4 by default, which replays about twice as fast as zstd for some 18 %
/// more bytes (`docs/performance.md`). With ``TraceWriter/Durability/everyRecord`` (the default) a chunk is
/// closed and written once it spans a second of log time or fills, and ``flush()`` (which `hal record` calls every
/// second) writes what is open, so a recording cut off by a crash loses at most its last second;
/// ``TraceWriter/Durability/buffered`` closes chunks at 1 MiB. Until ``close()`` writes the summary, the
/// file is readable by a scan (``MCAPTraceFile`` does that when the summary is missing).
public final class MCAPTraceWriter: TraceSink {
    /// The header the file records.
    public let header: TraceHeader
    /// The file being written.
    public let path: String
    /// Records written so far, per channel.
    public private(set) var counts: [Int]

    private let writer: MCAPWriter
    private let durability: TraceWriter.Durability
    private var encoder: MCAPTraceEncoder
    private var schemaIDs: [String: UInt16] = [:]
    /// The MCAP channel of each (trace channel, schema name).
    private var channelIDs: [ChannelKey: UInt16] = [:]
    private var sequences: [UInt32]
    private var order: ChannelOrder
    private var message = Protobuf.Writer()
    private var closed = false
    private var written = 0

    private struct ChannelKey: Hashable {
        var index: Int
        var schema: String
    }

    /// Creates (or truncates) the file at `path`. Frames stored as files are read from the folder of `frameFolderOf`
    /// (the JSON Lines trace they came from), or from the working folder.
    public init(
        path: String, header: TraceHeader, durability: TraceWriter.Durability = .everyRecord,
        compression: MCAPCompression = .lz4, frameFolderOf: String? = nil
    ) throws(TraceError) {
        let headerLine: [UInt8]
        do {
            headerLine = try TraceEncoder(header: header).encodeHeader()
        } catch {
            throw TraceError(error.kind, file: path, line: 0, field: error.field, error.message)
        }
        guard header.channels.count <= MCAPChannelFields.maximumChannels else {
            throw TraceError(.invalidValue, file: path, line: 0, field: "channels", "\(header.channels.count) channels; a trace in MCAP has at most \(MCAPChannelFields.maximumChannels)")
        }
        self.header = header
        self.path = path
        self.durability = durability
        encoder = MCAPTraceEncoder(header: header, traceFile: frameFolderOf)
        counts = Array(repeating: 0, count: header.channels.count)
        sequences = Array(repeating: 0, count: header.channels.count)
        order = ChannelOrder(header)
        var options = MCAPWriter.Options()
        options.profile = TraceSchemas.profile
        options.compression = compression
        do {
            writer = try MCAPWriter(path: path, options: options)
            try writer.addMetadata(MCAPMetadata(name: TraceSchemas.traceMetadata, values: ["header": String(decoding: headerLine.dropLast(), as: UTF8.self)]))
            if durability == .everyRecord { try writer.flushChunk() }
        } catch {
            throw TraceError(.io, file: path, line: 0, error.description)
        }
    }

    deinit {
        try? close()
    }

    /// Writes a record.
    ///
    /// Refuses a record on an unknown channel, of the wrong kind for its channel, with a non-finite number, earlier
    /// than the channel's previous record, or (MCAP's log times being unsigned) before time zero.
    public func write(_ record: TraceRecord) throws(TraceError) {
        try write(record, framePath: nil)
    }

    /// Writes a record whose frame is in memory, keeping `frameName` as its file's name (``write(_:framePath:)``).
    public func write(_ record: TraceRecord, keepingFrameAs frameName: String) throws(TraceError) {
        try write(record, framePath: frameName)
    }

    /// Writes a record whose frame is in memory, keeping `framePath` as the file a JSON Lines trace gives it: what a
    /// conversion from MCAP to MCAP does, so that the frame's name survives to JSON Lines.
    public func write(_ record: TraceRecord, framePath: String?) throws(TraceError) {
        let number = written + 1
        func fail(_ error: TraceError) -> TraceError {
            TraceError(error.kind, file: path, line: 0, field: error.field, "record \(number): \(error.message)")
        }
        guard !closed else { throw TraceError(.io, file: path, line: 0, "the writer is closed") }
        do { try order.check(record) } catch { throw fail(error) }
        let time = record.timestamp.nanoseconds
        guard time >= 0 else {
            throw fail(TraceError(.invalidValue, line: 0, field: "t", "\(time) is before time zero, and MCAP's log times are unsigned"))
        }
        message.bytes.removeAll(keepingCapacity: true)
        let schema: TraceSchemas.Schema
        do { schema = try encoder.encode(record, framePath: framePath, into: &message) } catch { throw fail(error) }
        do {
            let channel = try channelID(record.channel, schema)
            try writer.add(MCAPMessage(
                channelID: channel, sequence: sequences[record.channel], logTime: UInt64(time), data: message.bytes))
            // A chunk that filled was closed by the writer; a chunk that spans a second is closed here. Either way
            // it goes to the file now.
            if durability == .everyRecord, writer.openChunkStart.map({ UInt64(time) &- $0 >= 1_000_000_000 }) ?? true {
                try writer.flushChunk()
            }
        } catch {
            throw TraceError(.io, file: path, line: 0, error.description)
        }
        sequences[record.channel] &+= 1
        order.take(record)
        counts[record.channel] += 1
        written += 1
    }

    /// Writes what a speaker channel sounded like (``Audio/PlaybackSound``) beside it, as Foxglove's RawAudio on the
    /// topic `CHANNEL.audio`: 16-bit PCM in blocks of a tenth of a second, each at the time its first sample played.
    /// The sound channel is not a trace channel: its metadata names the channel it comes from (`derived-from`), and
    /// reading the file as a trace leaves it out, so the trace is unchanged. Write it after the records, before
    /// ``close()``.
    public func writeSound(_ spans: [(start: Timestamp, audio: PCMAudio)], of channel: Int) throws(TraceError) {
        guard !closed else { throw TraceError(.io, file: path, line: 0, "the writer is closed") }
        guard header.channels.indices.contains(channel), header.channels[channel].kind == .speaker else {
            throw TraceError(.invalidValue, file: path, line: 0, field: "ch", "sound goes beside a speaker channel")
        }
        let id = header.channels[channel].id
        do {
            let schema = try schemaID(TraceSchemas.Schema.rawAudio)
            let mcapChannel = try writer.addChannel(
                topic: id + ".audio", messageEncoding: "protobuf", schemaID: schema,
                metadata: ["derived-from": id, "format": "pcm-s16"])
            var sequence: UInt32 = 0
            for (start, audio) in spans where audio.sampleRate > 0 && audio.channelCount > 0 {
                let block = max(1, audio.sampleRate / 10) * audio.channelCount
                for first in stride(from: 0, to: audio.samples.count, by: block) {
                    let samples = audio.samples[first..<min(audio.samples.count, first + block)]
                    // The block's time, in whole nanoseconds; a block past the largest time a trace holds is left out.
                    let offset = Double(first / audio.channelCount) * 1e9 / Double(audio.sampleRate)
                    guard start.nanoseconds >= 0, offset < Double(Int64.max - start.nanoseconds) else { break }
                    let time = start.nanoseconds + Int64(offset)
                    var out = Protobuf.Writer()
                    out.timestamp(1, nanoseconds: time)
                    var pcm: [UInt8] = []
                    pcm.reserveCapacity(samples.count * 2)
                    for sample in samples {
                        let value = Int16(max(-32768, min(32767, (Double(sample) * 32767).rounded())))
                        withUnsafeBytes(of: value.littleEndian) { pcm.append(contentsOf: $0) }
                    }
                    out.bytes(2, pcm)
                    out.string(3, "pcm-s16")
                    out.fixed32(4, UInt32(audio.sampleRate))
                    out.fixed32(5, UInt32(audio.channelCount))
                    try writer.add(MCAPMessage(channelID: mcapChannel, sequence: sequence, logTime: UInt64(time), data: out.bytes))
                    sequence &+= 1
                }
            }
        } catch {
            throw TraceError(.io, file: path, line: 0, error.description)
        }
    }

    /// Closes the open chunk and writes it out.
    public func flush() throws(TraceError) {
        guard !closed else { return }
        do { try writer.flushChunk() } catch { throw TraceError(.io, file: path, line: 0, error.description) }
    }

    /// Writes the summary and closes the file. Later writes throw.
    public func close() throws(TraceError) {
        guard !closed else { return }
        closed = true
        do {
            try writer.finish()
        } catch {
            throw TraceError(.io, file: path, line: 0, error.description)
        }
    }

    /// The id of `schema`, added the first time.
    private func schemaID(_ schema: TraceSchemas.Schema) throws(MCAPError) -> UInt16 {
        if let known = schemaIDs[schema.name] { return known }
        let id = try writer.addSchema(name: schema.name, encoding: schema.encoding, data: schema.data)
        schemaIDs[schema.name] = id
        return id
    }

    /// The MCAP channel for a trace channel's records in `schema`, declared (with its schema) the first time.
    private func channelID(_ index: Int, _ schema: TraceSchemas.Schema) throws(MCAPError) -> UInt16 {
        let key = ChannelKey(index: index, schema: schema.name)
        if let id = channelIDs[key] { return id }
        let channel = header.channels[index]
        let id = try writer.addChannel(
            topic: channel.id, messageEncoding: schema.messageEncoding, schemaID: try schemaID(schema),
            metadata: MCAPChannelFields.metadata(channel, index: index))
        channelIDs[key] = id
        return id
    }
}
