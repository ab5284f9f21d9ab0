public import TraceFormat
import HAL
public import MCAP

/// A trace read from an MCAP file that ``MCAPTraceWriter`` (or `hal record`, or `hal convert`) wrote.
///
/// The header comes from the file's Metadata records and its channels' metadata; each message becomes the record
/// it was, with the same values to the bit. A file cut short (a recording that crashed) has no summary: it is read
/// by a scan, and the records before the damage are kept, with the damage in ``Trace/truncation``. A message that
/// does not decode stops the read the same way; its error names the file, the byte offset and the field.
public struct MCAPTraceFile: Sendable {
    /// The trace. Frames are in memory (``HAL/FrameStorage/bytes(_:)``).
    public var trace: Trace
    /// For the frames that a JSON Lines trace kept in files, each file's name by the record's index, so that
    /// converting back to JSON Lines writes the same files and the same lines.
    public var framePaths: [Int: String]
    /// How many bytes of the file were read.
    public var bytesRead: UInt64

    /// Whether `reader`'s file is a trace: its Header's profile is `hal`.
    public static func isTrace(_ reader: MCAPReader) -> Bool {
        (try? reader.header().profile) == TraceSchemas.profile
    }

    /// The trace header of the file at `path`, reading its summary (or, in a file cut short, its declarations).
    public static func header(path: String) throws(TraceError) -> TraceHeader {
        try header(of: MCAPFiles.open(path)).0
    }

    /// Reads the trace in the file at `path`. With `offset`, only the records from `offset` after the trace's first
    /// record are read, through the file's chunk index, so that only the chunks from there on are read.
    /// `progress` hears the share of the file read so far (0...1) as the read goes.
    public static func load(path: String, from offset: Duration? = nil, progress: (Double) -> Void = { _ in }) throws(TraceError) -> MCAPTraceFile {
        try load(MCAPFiles.open(path), from: offset, progress: progress)
    }

    /// Reads a trace from an MCAP file's bytes; `file` names it in errors. `offset` is as for ``load(path:from:progress:)``.
    public static func decode(_ bytes: [UInt8], file: String = "<memory>", from offset: Duration? = nil) throws(TraceError) -> MCAPTraceFile {
        try load(MCAPReader(bytes: bytes, name: file), from: offset, progress: { _ in })
    }

    /// Hands each record of the file at `path` to `visit` in file order, without keeping them: the fast path, for
    /// a consumer that streams. Damage stops the read with its error after the records before it. With
    /// `checkingCRCs` false, the CRCs are not computed (``MCAP/MCAPReader/checksCRCs``); every other check is made.
    public static func forEachRecord(path: String, checkingCRCs: Bool = true, _ visit: (TraceRecord) throws -> Void) throws {
        let reader = try MCAPFiles.open(path)
        reader.checksCRCs = checkingCRCs
        var (_, _, decoder, _) = try header(of: reader)
        do {
            try reader.scan({ (record: MCAPReader.Record) throws in try decoder.declare(record) },
                            messages: { (message: MCAPMessageView) throws in
                if let (channel, sample) = decoder.motion(message) {
                    try visit(TraceRecord(channel: channel, motion: sample))
                } else if let decoded = try decoder.decodeOther(message) {
                    try visit(decoded.record)
                }
            })
        } catch let error as MCAPError {
            throw TraceError(.badContainer, file: path, line: 0, "byte \(error.offset): \(error.record) record: \(error.reason)")
        }
    }

    private static func load(_ reader: MCAPReader, from offset: Duration?, progress: (Double) -> Void) throws(TraceError) -> MCAPTraceFile {
        let path = reader.path
        let (header, summary, declared, summaryError) = try header(of: reader)
        var decoder = declared
        var records: [TraceRecord] = []
        var framePaths: [Int: String] = [:]
        var truncation: TraceError?
        func keep(_ decoded: (record: TraceRecord, framePath: String?)?) {
            guard let decoded else { return }
            if let framePath = decoded.framePath { framePaths[records.count] = framePath }
            records.append(decoded.record)
            if records.count & 0xFFFF == 0 { progress(min(1, Double(reader.bytesRead) / Double(max(1, reader.size)))) }
        }
        do {
            if let offset, let summary, !summary.chunkIndexes.isEmpty {
                // Messages come in log-time order this way (file order among equal times), not the file's order.
                let start = summary.statistics.map { $0.messageStartTime } ?? summary.chunkIndexes.map(\.messageStartTime).min() ?? 0
                let (from, overflow) = start.addingReportingOverflow(UInt64(clamping: max(0, offset.wholeNanoseconds)))
                if !overflow {
                    try reader.messages(from: from) { message, _ in
                        try message.data.withUnsafeBytes { data in
                            keep(try decoder.decode(MCAPMessageView(
                                channelID: message.channelID, sequence: message.sequence, logTime: message.logTime,
                                publishTime: message.publishTime, data: data, recordOffset: nil, offsetInChunk: nil)))
                        }
                    }
                }
            } else {
                try reader.scan({ (record: MCAPReader.Record) throws in try decoder.declare(record) },
                                messages: { (message: MCAPMessageView) throws in keep(try decoder.decode(message)) })
                if let summaryError {
                    truncation = TraceError(.badContainer, file: path, line: 0, "byte \(summaryError.offset): \(summaryError.record) record: \(summaryError.reason); the \(records.count) records were read by a scan")
                }
            }
        } catch let error as MCAPError where error.offset == reader.size && summary == nil {
            // The file ends at a record's end with no Data End or summary: a recording cut short, the usual way.
            truncation = TraceError(.truncated, file: path, line: 0, "the file ends after \(records.count) records with no summary: a recording cut short; every record before the end was read")
        } catch let error as MCAPError {
            truncation = TraceError(.badContainer, file: path, line: 0, "byte \(error.offset): \(error.record) record: \(error.reason)")
        } catch let error as TraceError {
            truncation = error
        } catch {
            truncation = TraceError(.io, file: path, line: 0, "\(error)")
        }
        var trace = Trace(header: header, records: records, path: path)
        if let offset, summary?.chunkIndexes.isEmpty ?? true {
            // Without a chunk index the whole file was read; the records before the offset are left out all the same.
            let kept = trace.dropRecords(before: offset)
            framePaths = Dictionary(uniqueKeysWithValues: kept.enumerated().compactMap { new, old in framePaths[old].map { (new, $0) } })
        }
        progress(1)
        trace.truncation = truncation
        return MCAPTraceFile(trace: trace, framePaths: framePaths, bytesRead: reader.bytesRead)
    }

    /// The trace header (from the file's `hal-trace` Metadata record, through its index or, in a file cut short, by a
    /// scan), the summary when the file has one, and a decoder that knows every schema and channel declared, each
    /// checked against its trace channel.
    private static func header(of reader: MCAPReader) throws(TraceError) -> (TraceHeader, MCAPSummary?, MCAPTraceDecoder, MCAPError?) {
        let path = reader.path
        func containerError(_ error: MCAPError) -> TraceError {
            TraceError(.badContainer, file: path, line: 0, "byte \(error.offset): \(error.record) record: \(error.reason)")
        }
        let summary: MCAPSummary?
        var summaryError: MCAPError?
        do { summary = try reader.summary() } catch {
            summary = nil
            // A file cut short has no closing magic; anything else is a damaged summary, said with the records.
            if !error.reason.contains("does not end with MCAP's magic") { summaryError = error }
        }
        var channels: [MCAPChannel] = []
        var schemas: [MCAPSchema] = summary.map { Array($0.schemas.values) } ?? []
        var metadata: [MCAPMetadata] = []
        var profile: String?
        do {
            profile = try reader.header().profile
            if let summary {
                channels = Array(summary.channels.values)
                metadata = try reader.metadata()
            } else {
                try reader.scan { record in
                    switch record {
                    case .header(let name, _): profile = name
                    case .channel(let channel): channels.append(channel)
                    case .schema(let schema): schemas.append(schema)
                    case .metadata(let value): metadata.append(value)
                    default: break
                    }
                }
            }
        } catch let error as MCAPError {
            // A cut file: the declarations before the damage are what there is.
            guard profile != nil else { throw containerError(error) }
        } catch {
            throw TraceError(.io, file: path, line: 0, "\(error)")
        }
        guard profile == TraceSchemas.profile else {
            throw TraceError(.badHeader, file: path, line: 0, "an MCAP file, but its profile is '\(profile ?? "")', not '\(TraceSchemas.profile)' (a HAL trace)")
        }
        guard let marker = metadata.first(where: { $0.name == TraceSchemas.traceMetadata }) else {
            throw TraceError(.badHeader, file: path, line: 0, field: TraceSchemas.traceMetadata, "no '\(TraceSchemas.traceMetadata)' Metadata record, which holds the trace's header")
        }
        // The header is the trace's JSON Lines header line, which the JSON Lines reader reads and checks.
        guard let line = marker.values["header"] else {
            throw TraceError(.badHeader, file: path, line: 0, field: TraceSchemas.traceMetadata, "the '\(TraceSchemas.traceMetadata)' Metadata record has no 'header'")
        }
        let header: TraceHeader
        do {
            header = try Array(line.utf8).withUnsafeBufferPointer { bytes throws(TraceError) in try TraceDecoder.decodeHeader(bytes) }
        } catch {
            throw TraceError(error.kind, file: path, line: 0, field: error.field, "the '\(TraceSchemas.traceMetadata)' Metadata record's header: \(error.message)")
        }
        var decoder = MCAPTraceDecoder(header: header, file: path)
        for schema in schemas { decoder.declare(schema) }
        for channel in channels { try decoder.declare(channel) }
        return (header, summary, decoder, summaryError)
    }
}
