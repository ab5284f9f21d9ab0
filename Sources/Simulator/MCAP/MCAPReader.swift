import Dispatch
import SystemPackage

/// Reads an MCAP file, from a path (with positioned reads, so that an indexed read touches only the chunks it needs)
/// or from memory.
///
/// - ``scan(repeats:_:)`` reads every record of the file in order, from the Header through the data section, Data End,
///   the summary section and the Footer, and checks everything it reads: the magic at both ends, each record's
///   length, each chunk's compression and CRC, each attachment's CRC, the data section's and the summary's CRCs,
///   that every message's channel and every channel's schema was declared, and that a schema or channel declared
///   again is the same. Each record is handed over before the next is read, so when a bad record stops the scan,
///   the records before it have been kept.
/// - ``summary()`` reads the footer and the summary section (checking its CRC): schemas, channels, statistics and
///   the chunk, metadata and attachment indexes; what the summary lacks, it finds by a scan, and says so.
/// - ``messages(from:to:_:)`` gives the messages in a log-time range in log-time order (file order among equal
///   times), with their channels and schemas, reading only the chunks whose index says they overlap it; without
///   chunk indexes it scans, and orders what it found.
/// - ``attachments(named:mediaType:from:to:)`` and ``metadata()`` read those records, through the summary's
///   indexes when there are some.
///
/// Errors are ``MCAPError``s that name the file, the byte offset and the record. A reader is used from one task at
/// a time.
public final class MCAPReader {
    /// The file's path, or the name given for bytes in memory.
    public let path: String
    /// The file's size in bytes.
    public let size: UInt64
    /// Bytes read from the file so far.
    public private(set) var bytesRead: UInt64 = 0
    /// Whether reads check the CRCs the file gives (each chunk's records, the data section, the summary): on by
    /// default. Off, a read that trusts the file skips the CRC-32 of every byte, as PyPI `mcap`'s reader does
    /// unless asked; everything else is still checked.
    public var checksCRCs = true
    /// Whether a scan reads, decompresses and checks the next chunks (two of them) on other threads while
    /// it hands over the records of this one (the default). What it hands over, and in what order, is the same either
    /// way.
    public var prefetchesChunks = true

    private let descriptor: FileDescriptor?
    /// The bytes read last: the file's `window.start ..< window.start + window.bytes.count`.
    private var window: (start: UInt64, bytes: [UInt8]) = (0, [])
    private static let blockSize = 4 << 20
    /// Whether reads go on past what was asked, a block at a time: for a scan, not for an indexed read.
    private var readAhead = false
    /// How many chunks a scan has in flight on other threads: two, so that on two cores the unpacking of one chunk
    /// (zstd's decompression, the CRCs, the file's reads) is not what the scan waits for.
    private static let chunksAhead = 2
    /// Where reading ahead stops: the first chunk in flight, whose bytes the thread unpacking it reads (so that the
    /// scan's thread does not spend its time copying them in).
    private var readAheadLimit: UInt64?

    /// Opens the file at `path`.
    public init(path: String) throws(MCAPError) {
        self.path = path
        do {
            let descriptor = try FileDescriptor.open(FilePath(path), .readOnly)
            self.descriptor = descriptor
            size = UInt64(try descriptor.seek(offset: 0, from: .end))
        } catch {
            throw MCAPError(file: path, offset: 0, record: "file", "cannot open the file: \(error)")
        }
    }

    /// Reads `bytes` as a file named `name`.
    public init(bytes: [UInt8], name: String = "<memory>") {
        path = name
        size = UInt64(bytes.count)
        descriptor = nil
        window = (0, bytes)
    }

    deinit { try? descriptor?.close() }

    /// A record ``scan(repeats:_:)`` found, in file order.
    public enum Record: Sendable {
        /// The Header: the profile (such as `ros2`) and the library that wrote the file.
        case header(profile: String, library: String)
        /// A schema: the first time it is declared, or every time with `repeats`.
        case schema(MCAPSchema)
        /// A channel: the first time it is declared, or every time with `repeats`.
        case channel(MCAPChannel)
        /// A message, with its channel.
        case message(MCAPMessage, MCAPChannel)
        /// A Metadata record.
        case metadata(MCAPMetadata)
        /// An Attachment record, its CRC checked.
        case attachment(MCAPAttachment)
        /// A Message Index record (after a chunk).
        case messageIndex(MCAPMessageIndex)
        /// Data End, with the data section's CRC-32 as the record gives it (0: none), checked.
        case dataEnd(dataSectionCRC: UInt32)
        /// A Statistics record.
        case statistics(MCAPStatistics)
        /// A Chunk Index record.
        case chunkIndex(MCAPChunkIndex)
        /// An Attachment Index record.
        case attachmentIndex(MCAPAttachmentIndex)
        /// A Metadata Index record.
        case metadataIndex(MCAPMetadataIndex)
        /// A Summary Offset record.
        case summaryOffset(MCAPSummaryOffset)
        /// The Footer, its summary CRC checked; the scan's last record.
        case footer(MCAPFooter)
        /// A record of an opcode the specification does not define (a later version's, or a user's: 0x80 and up),
        /// with its content.
        case unknown(opcode: UInt8, content: [UInt8])
    }

    // MARK: Reading bytes

    /// Makes `count` bytes at `offset` readable in ``window`` and returns their index there.
    private func load(_ offset: UInt64, _ count: Int, record: String) throws(MCAPError) -> Int {
        if offset >= window.start, offset + UInt64(count) <= window.start + UInt64(window.bytes.count) {
            return Int(offset - window.start)
        }
        guard offset + UInt64(count) <= size else {
            throw MCAPError(file: path, offset: offset, record: record, "needs \(count) bytes but the file ends \(size - min(size, offset)) bytes on (cut short?)")
        }
        guard let descriptor else { return Int(offset) }  // in memory, everything is in the window
        var length = Int(min(size - offset, UInt64(readAhead ? max(count, Self.blockSize) : count)))
        if let limit = readAheadLimit, offset < limit { length = max(count, min(length, Int(limit - offset))) }
        // What the window already holds from `offset` on is copied, not read again: a scan's next record often
        // starts inside the last block.
        let windowEnd = window.start + UInt64(window.bytes.count)
        let kept = offset >= window.start && offset < windowEnd ? min(length, Int(windowEnd - offset)) : 0
        var done = kept
        var failure: (any Error)?
        // Read straight into the new buffer, with no zeroing first: the bytes not read are cut off.
        let bytes = [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            if kept > 0 {
                let from = Int(offset - window.start)
                window.bytes.withUnsafeBufferPointer { old in
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[0..<kept]).initialize(from: old[from..<(from + kept)])
                }
            }
            do {
                while done < length {
                    let got = try descriptor.read(
                        fromAbsoluteOffset: Int64(offset) + Int64(done), into: UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[done...]))
                    guard got > 0 else { break }
                    done += got
                }
            } catch {
                failure = error
            }
            initialized = done
        }
        if let failure {
            throw MCAPError(file: path, offset: offset + UInt64(done), record: record, "cannot read: \(failure)")
        }
        bytesRead += UInt64(done - kept)
        guard done == length else {
            throw MCAPError(file: path, offset: offset + UInt64(done), record: record, "the file ended while being read")
        }
        window = (offset, bytes)
        return 0
    }

    /// The record at `offset`: its opcode, and its content's range in ``window``, or an error if it runs past `limit`.
    private func record(at offset: UInt64, limit: UInt64) throws(MCAPError) -> (opcode: UInt8, content: Range<Int>, next: UInt64) {
        guard limit >= offset, limit - offset >= 9 else {
            throw MCAPError(file: path, offset: offset, record: "file", "a record needs 9 bytes of opcode and length, and \(limit - min(limit, offset)) are left (cut short?)")
        }
        let (_, opcode, length) = try recordHeader(at: offset)
        let name = MCAPOpcode.name(of: opcode)
        guard length <= limit - offset - 9 else {
            throw MCAPError(file: path, offset: offset, record: name, "its length is \(length) bytes but \(limit - offset - 9) are left (cut short?)")
        }
        let at = try load(offset, 9 + Int(length), record: name)
        return (opcode, (at + 9)..<(at + 9 + Int(length)), offset + 9 + length)
    }

    /// The opcode and content length of the record at `offset`, and where its 9-byte header is in ``window``. The
    /// content may run past the window, or past the file: the caller checks the length.
    private func recordHeader(at offset: UInt64) throws(MCAPError) -> (index: Int, opcode: UInt8, length: UInt64) {
        let at = try load(offset, 9, record: "file")
        return (at, window.bytes[at], recordLength(at: at))
    }

    /// The content length in the 9-byte record header at `index` of ``window``.
    private func recordLength(at index: Int) -> UInt64 {
        var length: UInt64 = 0
        for byte in (1...8).reversed() { length = length << 8 | UInt64(window.bytes[index + byte]) }
        return length
    }

    private func decoder(_ content: Range<Int>, record: String) -> MCAPDecoder {
        MCAPDecoder(window.bytes, from: content.lowerBound, to: content.upperBound, base: window.start, file: path, record: record)
    }

    private func checkMagic() throws(MCAPError) {
        let at = size >= 8 ? try load(0, 8, record: "file") : 0
        guard size >= 8, Array(window.bytes[at..<(at + 8)]) == mcapMagic else {
            throw MCAPError(file: path, offset: 0, record: "file", "not an MCAP file: it does not start with MCAP's magic bytes (89 4D 43 41 50 30 0D 0A)")
        }
    }

    /// The Header record's profile (such as `ros2`) and library, reading only the file's first bytes.
    public func header() throws(MCAPError) -> (profile: String, library: String) {
        try checkMagic()
        let (opcode, content, _) = try record(at: 8, limit: size)
        guard opcode == MCAPOpcode.header.rawValue else {
            throw MCAPError(file: path, offset: 8, record: MCAPOpcode.name(of: opcode), "the first record must be the Header")
        }
        var input = decoder(content, record: "Header")
        let profile = try input.string("profile")
        return (profile, try input.string("library"))
    }

    // MARK: The linear scan

    /// Reads every record in file order, handing each to `visit` before reading the next: the Header, the data
    /// section, Data End, the summary section and the Footer, then checks the closing magic. A file cut short is an
    /// error after the records before the cut. With `repeats`, a schema or channel declared again (in a later chunk,
    /// or in the summary) is handed over each time; without, only the first time. Either way, one declared again
    /// differently is an error.
    public func scan(repeats: Bool = false, _ visit: (Record) throws -> Void) throws {
        try scan(repeats: repeats, visit, messages: nil)
    }

    /// ``scan(repeats:_:)``, with each message handed to `message` as its fields and its data borrowed from the
    /// reader's buffer (valid during the call only), instead of as a ``Record/message(_:_:)`` with a copy of its data.
    /// This is the fast path: no allocation per message.
    public func scan(repeats: Bool = false, _ visit: (Record) throws -> Void, messages: (MCAPMessageView) throws -> Void) throws {
        try withoutActuallyEscaping(messages) { messages in try scan(repeats: repeats, visit, messages: Optional(messages)) }
    }

    private func scan(repeats: Bool, _ visit: (Record) throws -> Void, messages: ((MCAPMessageView) throws -> Void)?) throws {
        readAhead = true
        defer { (readAhead, readAheadLimit) = (false, nil) }
        try checkMagic()
        var state = ScanState(repeats: repeats, checksCRCs: checksCRCs)
        var offset: UInt64 = 8
        /// The next chunks, in file order, each being read and unpacked on another thread while this one's records
        /// are handed over.
        var pending: [PendingChunk] = []
        /// The window each look ahead left, holding the records from `at` to its chunk (message indexes): the
        /// scan takes it up again when it gets to `at`, so that it reads none of them twice.
        var lookedAhead: [(at: UInt64, window: (start: UInt64, bytes: [UInt8]))] = []
        // A scan that stops early (an error, or `visit` throwing) waits for the chunks in flight, which read the
        // window's bytes.
        defer { for chunk in pending { _ = try? chunk.wait() } }
        /// Starts chunks after `offset` (or after the last in flight) until ``chunksAhead`` are in flight.
        func lookAhead(after offset: UInt64) {
            guard prefetchesChunks else { return }
            var after = pending.last.map { $0.offset + 9 + UInt64($0.length) } ?? offset
            // A look from where one looked before found no chunk there (else it would be in flight): not again.
            while pending.count < Self.chunksAhead, !lookedAhead.contains(where: { $0.at == after }) {
                let chunk = prefetch(after: after)
                if window.start <= after, after < window.start + UInt64(window.bytes.count) {
                    lookedAhead.append((after, window))
                }
                guard let chunk else { break }
                pending.append(chunk)
                after = chunk.offset + 9 + UInt64(chunk.length)
            }
            readAheadLimit = pending.first?.offset
        }
        /// A chunk's records, handed over in order.
        func handOver(_ records: ChunkRecords, at offset: UInt64) throws {
            if let messages {
                try forEachMessage(inChunk: records, at: offset, &state, visit, messages)
            } else {
                try forEachRecord(inChunk: records, at: offset) { opcode, record, start in
                    try state.read(opcode, &record, at: UInt64(start), visit)
                }
            }
        }
        var crc = crc32(mcapMagic)
        /// The summary section's CRC so far, from the record after Data End on.
        var summaryCRC: UInt32?
        while true {
            while let first = lookedAhead.first, first.at <= offset {
                if first.at == offset { window = first.window }
                lookedAhead.removeFirst()
            }
            if let ahead = pending.first, ahead.offset == offset {
                // Read and unpacked on another thread: its bytes are not read again here.
                pending.removeFirst()
                let (records, recordCRC) = try ahead.wait()
                let next = offset + 9 + UInt64(ahead.length)
                bytesRead += UInt64(ahead.bytesRead)
                if checksCRCs {
                    if let running = summaryCRC {
                        summaryCRC = crc32Combine(running, recordCRC, length: 9 + ahead.length)
                    } else {
                        crc = crc32Combine(crc, recordCRC, length: 9 + ahead.length)
                    }
                }
                lookAhead(after: next)
                try handOver(records, at: offset)
                offset = next
                continue
            }
            let (opcode, content, next) = try record(at: offset, limit: size)
            let name = MCAPOpcode.name(of: opcode)
            var input = decoder(content, record: name)
            if (opcode == MCAPOpcode.header.rawValue) != (offset == 8) {
                throw MCAPError(file: path, offset: offset, record: name, "the first record must be the Header, and only the first")
            }
            switch MCAPOpcode(rawValue: opcode) {
            case .dataEnd:
                let expected = try input.u32("data_section_crc")
                if checksCRCs && expected != 0 && expected != crc {
                    throw MCAPError(file: path, offset: offset, record: name, "CRC mismatch: the data section's CRC-32 is \(crc), the record says \(expected)")
                }
                try visit(.dataEnd(dataSectionCRC: expected))
                summaryCRC = 0
                offset = next
                continue
            case .footer:
                let footer = try input.footer()
                if checksCRCs && footer.summaryCRC != 0 {
                    // The summary's CRC runs on through the footer's opcode, length and first two fields.
                    let computed = crc32(window.bytes[(content.lowerBound - 9)..<(content.lowerBound + 16)], continuing: summaryCRC ?? 0)
                    guard computed == footer.summaryCRC else {
                        throw MCAPError(file: path, offset: offset, record: name, "CRC mismatch: the summary's CRC-32 is \(computed), the footer says \(footer.summaryCRC)")
                    }
                }
                try visit(.footer(footer))
                guard next == size - 8 else {
                    throw MCAPError(file: path, offset: next, record: "file", "the Footer must be followed by MCAP's closing magic bytes and nothing else")
                }
                let at = try load(next, 8, record: "file")
                guard Array(window.bytes[at..<(at + 8)]) == mcapMagic else {
                    throw MCAPError(file: path, offset: next, record: "file", "the file does not end with MCAP's magic bytes")
                }
                return
            case .chunk:
                let records = try self.chunk(&input, at: offset)
                // The record's own bytes go into the data section's CRC now: looking ahead moves the window.
                if checksCRCs {
                    let bytes = window.bytes[(content.lowerBound - 9)..<content.upperBound]
                    if let running = summaryCRC { summaryCRC = crc32(bytes, continuing: running) } else { crc = crc32(bytes, continuing: crc) }
                }
                lookAhead(after: next)
                try handOver(records, at: offset)
                offset = next
                continue
            case .message where messages != nil:
                try window.bytes.withUnsafeBytes { raw in
                    try messages!(try state.view(raw, content, chunk: nil, at: offset, file: path))
                }
            default:
                try state.read(opcode, &input, at: offset, visit)
            }
            if checksCRCs {
                let bytes = window.bytes[(content.lowerBound - 9)..<content.upperBound]
                if let running = summaryCRC { summaryCRC = crc32(bytes, continuing: running) } else { crc = crc32(bytes, continuing: crc) }
            }
            offset = next
        }
    }

    /// The schemas and channels declared so far in a scan.
    private struct ScanState {
        /// Whether a schema or channel declared again is handed over again.
        let repeats: Bool
        /// Whether attachments' CRCs are checked.
        let checksCRCs: Bool
        var schemas: [UInt16: MCAPSchema] = [:]
        private(set) var channels: [UInt16: MCAPChannel] = [:]
        /// A bit per channel id: whether it is declared, for the fast path's check.
        private var declared = [UInt64](repeating: 0, count: 1024)

        init(repeats: Bool, checksCRCs: Bool) {
            self.repeats = repeats
            self.checksCRCs = checksCRCs
        }

        /// The message whose content is `content` in `raw`, checked: its fields, and that its channel is declared.
        /// `chunk` is the record's place in its chunk's records, with `offset` the chunk's.
        func view(_ raw: UnsafeRawBufferPointer, _ content: Range<Int>, chunk: Int?, at offset: UInt64, file: String) throws(MCAPError) -> MCAPMessageView {
            // In a chunk, the walk says where the record is in its records.
            func fail(_ reason: String) -> MCAPError { MCAPError(file: file, offset: offset, record: "Message", reason) }
            guard content.count >= 22 else { throw fail("a message needs 22 bytes before its data, and has \(content.count)") }
            let at = content.lowerBound
            let channelID = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt16.self))
            guard declared[Int(channelID) >> 6] & (1 << (UInt64(channelID) & 63)) != 0 else {
                throw fail("a message on channel \(channelID), which no Channel record declares")
            }
            return MCAPMessageView(
                channelID: channelID,
                sequence: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 2, as: UInt32.self)),
                logTime: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 6, as: UInt64.self)),
                publishTime: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 14, as: UInt64.self)),
                data: UnsafeRawBufferPointer(rebasing: raw[(at + 22)..<content.upperBound]),
                recordOffset: offset, offsetInChunk: chunk)
        }

        mutating func read(_ opcode: UInt8, _ input: inout MCAPDecoder, at offset: UInt64, _ visit: (Record) throws -> Void) throws {
            func fail(_ reason: String) -> MCAPError { MCAPError(file: input.file, offset: offset, record: input.record, reason) }
            switch MCAPOpcode(rawValue: opcode) {
            case .header:
                let profile = try input.string("profile")
                try visit(.header(profile: profile, library: try input.string("library")))
            case .schema:
                let schema = try input.schema()
                guard schema.id != 0 else { throw fail("schema id 0 is reserved for \"no schema\"") }
                if let known = schemas[schema.id] {
                    guard known == schema else { throw fail("schema \(schema.id) is declared twice, differently") }
                    if repeats { try visit(.schema(schema)) }
                    return
                }
                schemas[schema.id] = schema
                try visit(.schema(schema))
            case .channel:
                let channel = try input.channel()
                guard channel.schemaID == 0 || schemas[channel.schemaID] != nil else {
                    throw fail("channel \(channel.id) (\(channel.topic)) names schema \(channel.schemaID), which no Schema record declares")
                }
                if let known = channels[channel.id] {
                    guard known == channel else { throw fail("channel \(channel.id) is declared twice, differently") }
                    if repeats { try visit(.channel(channel)) }
                    return
                }
                channels[channel.id] = channel
                declared[Int(channel.id) >> 6] |= 1 << (UInt64(channel.id) & 63)
                try visit(.channel(channel))
            case .message:
                let message = try input.message()
                guard let channel = channels[message.channelID] else {
                    throw fail("a message on channel \(message.channelID), which no Channel record declares")
                }
                try visit(.message(message, channel))
            case .metadata:
                try visit(.metadata(try input.metadata()))
            case .attachment:
                try visit(.attachment(try input.attachment(checkCRC: checksCRCs)))
            case .messageIndex:
                try visit(.messageIndex(try input.messageIndex()))
            case .statistics:
                try visit(.statistics(try input.statistics()))
            case .chunkIndex:
                try visit(.chunkIndex(try input.chunkIndex()))
            case .attachmentIndex:
                try visit(.attachmentIndex(try input.attachmentIndex()))
            case .metadataIndex:
                try visit(.metadataIndex(try input.metadataIndex()))
            case .summaryOffset:
                try visit(.summaryOffset(try input.summaryOffset()))
            case .footer, .chunk, .dataEnd:
                break  // the scan reads these itself; in a chunk's records they are refused by the scan's caller
            case nil:
                try visit(.unknown(opcode: opcode, content: Array(input.bytes[input.position..<input.end])))
            }
        }
    }

    /// Each record in a chunk's decompressed `records`: its opcode, its content's range in `raw` (the records'
    /// bytes), and where it starts in them. Records in a chunk have no file offset of their own, so an error in one
    /// (an ``MCAPError`` from `body`, or the records' framing) names the chunk's `offset` and the record's place.
    @inline(__always)
    private func walk(
        _ records: ChunkRecords, at offset: UInt64, _ body: (UnsafeRawBufferPointer, UInt8, Range<Int>, Int) throws -> Void
    ) throws {
        try records.bytes[records.range].withUnsafeBytes { raw in
            var at = 0
            while at < raw.count {
                let opcode = raw[at]
                do {
                    guard raw.count - at >= 9 else {
                        throw MCAPError(file: path, offset: offset, record: MCAPOpcode.name(of: opcode), "a record needs 9 bytes of opcode and length, and \(raw.count - at) are left")
                    }
                    let length = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 1, as: UInt64.self))
                    guard length <= UInt64(raw.count - at - 9) else {
                        throw MCAPError(file: path, offset: offset, record: MCAPOpcode.name(of: opcode), "its length is \(length) bytes but \(raw.count - at - 9) are left")
                    }
                    try body(raw, opcode, (at + 9)..<(at + 9 + Int(length)), at)
                    at += 9 + Int(length)
                } catch let error as MCAPError {
                    throw MCAPError(file: path, offset: offset, record: "Chunk", "the \(error.record) record at byte \(at) of its records: \(error.reason)")
                }
            }
        }
    }

    /// ``walk(_:at:_:)`` with a decoder of each record's content, as the checked scan and the indexed read take them.
    private func forEachRecord(inChunk records: ChunkRecords, at offset: UInt64, _ body: (UInt8, inout MCAPDecoder, Int) throws -> Void) throws {
        let base = records.range.lowerBound
        try walk(records, at: offset) { _, opcode, content, start in
            var record = MCAPDecoder(records.bytes, from: base + content.lowerBound, to: base + content.upperBound, base: 0, file: path, record: MCAPOpcode.name(of: opcode))
            try body(opcode, &record, start)
        }
    }

    /// ``forEachRecord(inChunk:at:_:)`` for the fast scan: messages go to `messages` as views, with no decoder or
    /// copy made for them; the other records go through `state` as the scan reads them.
    private func forEachMessage(
        inChunk records: ChunkRecords, at offset: UInt64, _ state: inout ScanState, _ visit: (Record) throws -> Void,
        _ messages: (MCAPMessageView) throws -> Void
    ) throws {
        let base = records.range.lowerBound
        try walk(records, at: offset) { raw, opcode, content, start in
            if opcode == MCAPOpcode.message.rawValue {
                try messages(try state.view(raw, content, chunk: start, at: offset, file: path))
            } else {
                var record = MCAPDecoder(records.bytes, from: base + content.lowerBound, to: base + content.upperBound, base: 0, file: path, record: MCAPOpcode.name(of: opcode))
                try state.read(opcode, &record, at: UInt64(start), visit)
            }
        }
    }

    /// A chunk's records: `bytes[range]`. Uncompressed records are where the file's bytes were read, not copied.
    private struct ChunkRecords {
        var bytes: [UInt8]
        var range: Range<Int>
    }

    /// A Chunk record's records, decompressed and checked against its CRC.
    private func chunk(_ input: inout MCAPDecoder, at offset: UInt64) throws(MCAPError) -> ChunkRecords {
        try Self.unpack(try Self.chunkFields(&input, at: offset, file: path), checkingCRC: checksCRCs, file: path, at: offset).get()
    }

    /// What a Chunk record says of its records, and their bytes as stored.
    private struct ChunkFields: Sendable {
        var size: Int
        var expectedCRC: UInt32
        var compression: MCAPCompression
        /// The stored records: `bytes[stored]`.
        var bytes: [UInt8]
        var stored: Range<Int>
    }

    /// A Chunk record's fields, checked, with nothing decompressed.
    private static func chunkFields(_ input: inout MCAPDecoder, at offset: UInt64, file: String) throws(MCAPError) -> ChunkFields {
        func fail(_ reason: String) -> MCAPError { MCAPError(file: file, offset: offset, record: "Chunk", reason) }
        _ = try input.u64("message_start_time")
        _ = try input.u64("message_end_time")
        let size = try input.u64("uncompressed_size")
        let expected = try input.u32("uncompressed_crc")
        let name = try input.string("compression")
        let records = try input.prefixedBytes("records", prefix: 8)
        guard let compression = MCAPCompression(rawValue: name) else {
            throw fail("unknown compression '\(name)' (known: none, zstd, lz4)")
        }
        guard size <= 1 << 32 else { throw fail("an uncompressed size of \(size) bytes is past what this reader takes (4 GiB)") }
        return ChunkFields(size: Int(size), expectedCRC: expected, compression: compression, bytes: input.bytes, stored: records)
    }

    /// The records of a chunk, decompressed and checked against its CRC: no state of the reader's, so that it runs
    /// on another thread for the chunk after the one being read.
    private static func unpack(_ fields: ChunkFields, checkingCRC: Bool, file: String, at offset: UInt64) -> Result<ChunkRecords, MCAPError> {
        func fail(_ reason: String) -> MCAPError { MCAPError(file: file, offset: offset, record: "Chunk", reason) }
        let decompressed: ChunkRecords
        if fields.compression == .none {
            guard fields.stored.count == fields.size else {
                return .failure(fail("the records do not decompress: the records are \(fields.stored.count) bytes where the chunk says \(fields.size)"))
            }
            decompressed = ChunkRecords(bytes: fields.bytes, range: fields.stored)
        } else {
            switch fields.compression.decompress(fields.bytes[fields.stored], size: fields.size) {
            case .success(let bytes): decompressed = ChunkRecords(bytes: bytes, range: bytes.indices)
            case .failure(let failure): return .failure(fail("the records do not decompress: \(failure.reason)"))
            }
        }
        if checkingCRC && fields.expectedCRC != 0 {
            let crc = crc32(decompressed.bytes[decompressed.range])
            guard crc == fields.expectedCRC else { return .failure(fail("CRC mismatch: the records' CRC-32 is \(crc), the chunk says \(fields.expectedCRC)")) }
        }
        return .success(decompressed)
    }

    /// A chunk read, decompressed and checked on another thread while the scan hands over the records before it.
    private final class PendingChunk: @unchecked Sendable {
        /// The Chunk record's offset and content length.
        let offset: UInt64, length: Int
        /// The bytes it reads from the file: its content past what the scan's window held.
        let bytesRead: Int
        private let done = DispatchSemaphore(value: 0)
        private var result: Result<(records: ChunkRecords, recordCRC: UInt32), MCAPError>?

        /// Unpacks the record's content: `held`, what the scan's window holds of it, then the rest from `descriptor`.
        init(
            at offset: UInt64, length: Int, opcode: UInt8, held: (bytes: [UInt8], range: Range<Int>), descriptor: FileDescriptor?, checkingCRC: Bool,
            file: String
        ) {
            self.offset = offset
            self.length = length
            bytesRead = length - held.range.count
            DispatchQueue.global().async { [self] in
                result = Self.unpack(at: offset, length: length, opcode: opcode, held: held, descriptor: descriptor, checkingCRC: checkingCRC, file: file)
                done.signal()
            }
        }

        private static func unpack(
            at offset: UInt64, length: Int, opcode: UInt8, held: (bytes: [UInt8], range: Range<Int>), descriptor: FileDescriptor?,
            checkingCRC: Bool, file: String
        ) -> Result<(records: ChunkRecords, recordCRC: UInt32), MCAPError> {
            // The content as held, where the window holds all of it; else what it holds, then the rest read.
            var (content, range) = held
            if range.count < length {
                guard let descriptor else { return .failure(MCAPError(file: file, offset: offset, record: "Chunk", "the file ended while being read")) }
                var failure: (any Error)?
                content = [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
                    held.bytes[held.range].withUnsafeBufferPointer {
                        _ = UnsafeMutableBufferPointer(rebasing: buffer[0..<held.range.count]).initialize(from: $0)
                    }
                    initialized = held.range.count
                    do {
                        while initialized < length {
                            let got = try descriptor.read(
                                fromAbsoluteOffset: Int64(offset) + 9 + Int64(initialized),
                                into: UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[initialized...]))
                            guard got > 0 else { break }
                            initialized += got
                        }
                    } catch {
                        failure = error
                    }
                }
                if let failure { return .failure(MCAPError(file: file, offset: offset, record: "Chunk", "cannot read: \(failure)")) }
                guard content.count == length else { return .failure(MCAPError(file: file, offset: offset, record: "Chunk", "the file ended while being read")) }
                range = 0..<length
            }
            // The record as the data section's CRC takes it: opcode, length, content.
            var header = [opcode]
            withUnsafeBytes(of: UInt64(length).littleEndian) { header += $0 }
            let recordCRC = checkingCRC ? crc32(content[range], continuing: crc32(header)) : 0
            var input = MCAPDecoder(content, from: range.lowerBound, to: range.upperBound, base: offset + 9 - UInt64(range.lowerBound), file: file, record: "Chunk")
            return Result { () throws(MCAPError) in
                let fields = try MCAPReader.chunkFields(&input, at: offset, file: file)
                return (try MCAPReader.unpack(fields, checkingCRC: checkingCRC, file: file, at: offset).get(), recordCRC)
            }
        }

        private var waited = false

        /// The records and the record's CRC-32, once ready (waiting once; a second call gives the same).
        func wait() throws(MCAPError) -> (records: ChunkRecords, recordCRC: UInt32) {
            if !waited {
                done.wait()
                waited = true
            }
            return try result!.get()
        }
    }

    /// Starts reading and unpacking the first chunk after `offset` on another thread, when only message indexes
    /// (which a scan reads after the chunk they index) stand between. Anything else, or anything wrong, is left for
    /// the scan to meet in its turn: nothing is started then.
    private func prefetch(after offset: UInt64) -> PendingChunk? {
        // The records on the way are read as they are, up to the chunk's header, not a block ahead: the chunk's
        // bytes are the other thread's to read, and the scan's later reads stop where they start. The window holds
        // everything from `offset` on, so the scan does not read those records again.
        readAhead = false
        defer { readAhead = true }
        var at = offset
        for _ in 0..<4096 {
            guard size >= at, size - at >= 9, let start = try? load(offset, Int(at - offset) + 9, record: "file") else { return nil }
            let index = start + Int(at - offset)
            let (opcode, length) = (window.bytes[index], recordLength(at: index))
            guard length <= size - at - 9 else { return nil }
            if opcode == MCAPOpcode.chunk.rawValue {
                // What the window holds of the content is not read again (in memory, the window is the whole file).
                let held = (window.bytes, (index + 9)..<min(window.bytes.count, index + 9 + Int(length)))
                return PendingChunk(
                    at: at, length: Int(length), opcode: opcode, held: held, descriptor: descriptor, checkingCRC: checksCRCs, file: path)
            }
            guard opcode == MCAPOpcode.messageIndex.rawValue else { return nil }
            at += 9 + length
        }
        return nil
    }

    // MARK: The summary

    /// The footer and the summary section, or nil when the file has no summary.
    public func summary() throws(MCAPError) -> MCAPSummary? {
        try checkMagic()
        guard size >= 8 + 9 + 29 + 8 else {
            throw MCAPError(file: path, offset: 0, record: "file", "at \(size) bytes the file is too short for a header and a footer")
        }
        let magicAt = size - 8
        let at = try load(magicAt, 8, record: "file")
        guard Array(window.bytes[at..<(at + 8)]) == mcapMagic else {
            throw MCAPError(file: path, offset: magicAt, record: "file", "the file does not end with MCAP's magic bytes (cut short?)")
        }
        let footerAt = magicAt - 29
        let (opcode, content, _) = try record(at: footerAt, limit: magicAt)
        guard opcode == MCAPOpcode.footer.rawValue, content.count == 20 else {
            throw MCAPError(file: path, offset: footerAt, record: "Footer", "the 29 bytes before the closing magic are not a Footer record")
        }
        var footer = decoder(content, record: "Footer")
        let summaryStart = try footer.u64("summary_start")
        let summaryOffsetStart = try footer.u64("summary_offset_start")
        let expectedCRC = try footer.u32("summary_crc")
        guard summaryStart != 0 else { return nil }
        guard summaryStart >= 8, summaryStart <= footerAt, summaryOffsetStart == 0 || (summaryOffsetStart >= summaryStart && summaryOffsetStart <= footerAt) else {
            throw MCAPError(file: path, offset: footerAt, record: "Footer", "summary_start \(summaryStart) or summary_offset_start \(summaryOffsetStart) is outside the file's summary")
        }
        let start = try load(summaryStart, Int(footerAt - summaryStart) + 9 + 16, record: "Footer")
        if checksCRCs && expectedCRC != 0 {
            let crc = crc32(window.bytes[start..<(start + Int(footerAt - summaryStart) + 9 + 16)])
            guard crc == expectedCRC else {
                throw MCAPError(file: path, offset: footerAt, record: "Footer", "CRC mismatch: the summary's CRC-32 is \(crc), the footer says \(expectedCRC)")
            }
        }
        var summary = MCAPSummary()
        var offset = summaryStart
        while offset < footerAt {
            let (opcode, content, next) = try record(at: offset, limit: footerAt)
            var input = decoder(content, record: MCAPOpcode.name(of: opcode))
            switch MCAPOpcode(rawValue: opcode) {
            case .schema:
                let schema = try input.schema()
                summary.schemas[schema.id] = schema
            case .channel:
                let channel = try input.channel()
                summary.channels[channel.id] = channel
            case .statistics: summary.statistics = try input.statistics()
            case .chunkIndex: summary.chunkIndexes.append(try input.chunkIndex())
            case .metadataIndex: summary.metadataIndexes.append(try input.metadataIndex())
            case .attachmentIndex: summary.attachmentIndexes.append(try input.attachmentIndex())
            case .summaryOffset: summary.summaryOffsets.append(try input.summaryOffset())
            default: break
            }
            offset = next
        }
        // The specification asks the summary for schemas only where its channels need them, and for channels only
        // where chunk indexes do: a writer may leave either out. What is missing is found in the data section.
        let lacksSchemas = summary.channels.values.contains { $0.schemaID != 0 && summary.schemas[$0.schemaID] == nil }
        let lacksChannels = !summary.chunkIndexes.isEmpty && summary.chunkIndexes.contains { index in
            index.messageIndexOffsets.keys.contains { summary.channels[$0] == nil }
        }
        if lacksSchemas || lacksChannels || (summary.channels.isEmpty && !summary.chunkIndexes.isEmpty) {
            try complete(&summary)
        }
        return summary
    }

    /// Adds to `summary` the schemas and channels a scan of the data section declares that it lacks.
    private func complete(_ summary: inout MCAPSummary) throws(MCAPError) {
        var schemas: [UInt16: MCAPSchema] = [:], channels: [UInt16: MCAPChannel] = [:]
        do {
            try scan({ record in
                switch record {
                case .schema(let schema): schemas[schema.id] = schema
                case .channel(let channel): channels[channel.id] = channel
                default: break
                }
            }, messages: { _ in })
        } catch let error as MCAPError {
            throw error
        } catch {
            throw MCAPError(file: path, offset: 0, record: "file", "\(error)")
        }
        summary.schemas.merge(schemas) { own, _ in own }
        summary.channels.merge(channels) { own, _ in own }
        summary.completedByScan = true
        for channel in summary.channels.values where channel.schemaID != 0 && summary.schemas[channel.schemaID] == nil {
            throw MCAPError(file: path, offset: 0, record: "Channel", "channel \(channel.id) (\(channel.topic)) names schema \(channel.schemaID), which neither the summary nor the data section declares")
        }
    }

    // MARK: The data section's chunks

    /// The data section's Chunk records, each as its Chunk Index record would give it (with the Message Index
    /// records that follow it), in file order: for a file whose summary does not index its chunks. The walk goes from
    /// the Header to Data End reading each record's opcode and length, and only the fields before a chunk's records
    /// (its records are neither decompressed nor checked: ``scan(repeats:_:)`` does that).
    public func dataSectionChunks() throws(MCAPError) -> [MCAPChunkIndex] {
        try checkMagic()
        var chunks: [MCAPChunkIndex] = []
        /// Whether the records since the last chunk are all Message Index records, which belong to it.
        var afterChunk = false
        var offset: UInt64 = 8
        let end = size - 8
        while offset < end {
            guard end - offset >= 9 else {
                throw MCAPError(file: path, offset: offset, record: "file", "a record needs 9 bytes of opcode and length, and \(end - offset) are left (cut short?)")
            }
            let (_, opcode, length) = try recordHeader(at: offset)
            let name = MCAPOpcode.name(of: opcode)
            guard length <= end - offset - 9 else {
                throw MCAPError(file: path, offset: offset, record: name, "its length is \(length) bytes but \(end - offset - 9) are left (cut short?)")
            }
            let content = offset + 9
            switch MCAPOpcode(rawValue: opcode) {
            case .chunk:
                // Three times and sizes, the CRC and the compression's length; then its name and the records' length.
                let fixed = Int(min(length, 32))
                let headAt = try load(content, fixed, record: name)
                var head = decoder(headAt..<(headAt + fixed), record: name)
                _ = try head.take(28, "message_start_time, message_end_time, uncompressed_size and uncompressed_crc")
                let fields = Int(min(length, 32 + UInt64(try head.u32("compression")) + 8))
                let at = try load(content, fields, record: name)
                var input = decoder(at..<(at + fields), record: name)
                let start = try input.u64("message_start_time")
                let finish = try input.u64("message_end_time")
                let uncompressed = try input.u64("uncompressed_size")
                _ = try input.u32("uncompressed_crc")
                let compression = try input.string("compression")
                chunks.append(MCAPChunkIndex(
                    messageStartTime: start, messageEndTime: finish, chunkStartOffset: offset, chunkLength: 9 + length,
                    messageIndexOffsets: [:], messageIndexLength: 0, compression: compression,
                    compressedSize: try input.u64("records"), uncompressedSize: uncompressed))
                afterChunk = true
            case .messageIndex where afterChunk:
                let at = try load(content, Int(min(length, 2)), record: name)
                var input = decoder(at..<(at + Int(min(length, 2))), record: name)
                chunks[chunks.count - 1].messageIndexOffsets[try input.u16("channel_id")] = offset
                chunks[chunks.count - 1].messageIndexLength += 9 + length
            case .dataEnd, .footer:
                return chunks
            default:
                afterChunk = false
            }
            offset = content + length
        }
        return chunks
    }

    // MARK: Indexed reading

    /// The messages logged from `start` through `end` (nanoseconds), with their channels.
    ///
    /// With a summary that indexes chunks, only the chunks whose time range overlaps the request are read, each
    /// checked as ``scan(repeats:_:)`` checks it; ``bytesRead`` shows how much of the file was read. Without one, the
    /// file is scanned. Either way the messages come in log-time order, file order among equal times, as the
    /// format's reference readers give them.
    public func messages(from start: UInt64 = 0, to end: UInt64 = .max, _ visit: (MCAPMessage, MCAPChannel) throws -> Void) throws {
        try messages(from: start, to: end) { message, channel, _ in try visit(message, channel) }
    }

    /// ``messages(from:to:_:)``, with each message's schema (`nil` for a schemaless channel).
    public func messages(from start: UInt64 = 0, to end: UInt64 = .max, _ visit: (MCAPMessage, MCAPChannel, MCAPSchema?) throws -> Void) throws {
        guard let summary = try summary(), !summary.chunkIndexes.isEmpty else {
            var schemas: [UInt16: MCAPSchema] = [:]
            var found: [(MCAPMessage, MCAPChannel)] = []
            try scan { record in
                switch record {
                case .schema(let schema): schemas[schema.id] = schema
                case .message(let message, let channel) where message.logTime >= start && message.logTime <= end: found.append((message, channel))
                default: break
                }
            }
            let order = zip(found, found.dropFirst()).allSatisfy { $0.0.logTime <= $1.0.logTime }
                ? Array(found.indices) : found.indices.sorted { (found[$0].0.logTime, $0) < (found[$1].0.logTime, $1) }
            for index in order { try visit(found[index].0, found[index].1, schemas[found[index].1.schemaID]) }
            return
        }
        func hand(_ message: MCAPMessage, _ channel: MCAPChannel) throws { try visit(message, channel, summary.schemas[channel.schemaID]) }
        let byTime = summary.chunkIndexes.filter { $0.messageEndTime >= start && $0.messageStartTime <= end }
            .sorted { ($0.messageStartTime, $0.chunkStartOffset) < ($1.messageStartTime, $1.chunkStartOffset) }
        let overlapping = zip(byTime, byTime.dropFirst()).contains { $0.messageEndTime > $1.messageStartTime }
        // Overlapping chunks are read in file order and their messages held, so that the stable sort keeps file order
        // among equal times, as the reference readers do.
        let chunks = overlapping ? byTime.sorted { $0.chunkStartOffset < $1.chunkStartOffset } : byTime
        var held: [(MCAPMessage, MCAPChannel)] = []
        /// Hands over `messages` in log-time order (stable), or holds them when chunks overlap.
        func deliver(_ messages: [(MCAPMessage, MCAPChannel)]) throws {
            if overlapping { held += messages; return }
            let ordered = zip(messages, messages.dropFirst()).allSatisfy { $0.0.logTime <= $1.0.logTime }
                ? Array(messages.indices) : messages.indices.sorted { (messages[$0].0.logTime, $0) < (messages[$1].0.logTime, $1) }
            for index in ordered { try hand(messages[index].0, messages[index].1) }
        }
        for index in chunks {
            var found: [(MCAPMessage, MCAPChannel)] = []
            let (opcode, content, _) = try record(at: index.chunkStartOffset, limit: size)
            guard opcode == MCAPOpcode.chunk.rawValue else {
                throw MCAPError(file: path, offset: index.chunkStartOffset, record: MCAPOpcode.name(of: opcode), "the chunk index points here, but this is not a Chunk record")
            }
            var input = decoder(content, record: "Chunk")
            try forEachRecord(inChunk: try chunk(&input, at: index.chunkStartOffset), at: index.chunkStartOffset) { opcode, record, _ in
                guard opcode == MCAPOpcode.message.rawValue else { return }
                let message = try record.message()
                guard message.logTime >= start, message.logTime <= end else { return }
                guard let channel = summary.channels[message.channelID] else {
                    throw MCAPError(file: path, offset: 0, record: "Message", "a message on channel \(message.channelID), which the summary does not declare")
                }
                found.append((message, channel))
            }
            try deliver(found)
        }
        if overlapping {
            // Stable: equal times keep their file order.
            let order = held.indices.sorted { (held[$0].0.logTime, $0) < (held[$1].0.logTime, $1) }
            for index in order { try hand(held[index].0, held[index].1) }
        }
    }

    /// The file's Metadata records: through the summary's index when there is one, else by a scan.
    public func metadata() throws -> [MCAPMetadata] {
        if let summary = try summary(), !summary.metadataIndexes.isEmpty {
            var found: [MCAPMetadata] = []
            for index in summary.metadataIndexes {
                let (opcode, content, _) = try record(at: index.offset, limit: size)
                guard opcode == MCAPOpcode.metadata.rawValue else {
                    throw MCAPError(file: path, offset: index.offset, record: MCAPOpcode.name(of: opcode), "the metadata index points here, but this is not a Metadata record")
                }
                var input = decoder(content, record: "Metadata")
                found.append(try input.metadata())
            }
            return found
        }
        var found: [MCAPMetadata] = []
        try scan { if case .metadata(let metadata) = $0 { found.append(metadata) } }
        return found
    }

    /// The file's attachments, in file order, each with its CRC checked: those named `name` and of `mediaType` when
    /// given, logged from `start` through `end`. Through the summary's attachment index when there is one (only the
    /// attachments asked for are read), else by a scan.
    public func attachments(named name: String? = nil, mediaType: String? = nil, from start: UInt64 = 0, to end: UInt64 = .max) throws -> [MCAPAttachment] {
        func wanted(_ itemName: String, _ itemType: String, _ logTime: UInt64) -> Bool {
            (name == nil || itemName == name) && (mediaType == nil || itemType == mediaType) && logTime >= start && logTime <= end
        }
        if let summary = try summary(), !summary.attachmentIndexes.isEmpty {
            var found: [MCAPAttachment] = []
            for index in summary.attachmentIndexes.sorted(by: { $0.offset < $1.offset }) where wanted(index.name, index.mediaType, index.logTime) {
                let (opcode, content, _) = try record(at: index.offset, limit: size)
                guard opcode == MCAPOpcode.attachment.rawValue else {
                    throw MCAPError(file: path, offset: index.offset, record: MCAPOpcode.name(of: opcode), "the attachment index points here, but this is not an Attachment record")
                }
                var input = decoder(content, record: "Attachment")
                found.append(try input.attachment(checkCRC: checksCRCs))
            }
            return found
        }
        var found: [MCAPAttachment] = []
        try scan {
            if case .attachment(let attachment) = $0, wanted(attachment.name, attachment.mediaType, attachment.logTime) { found.append(attachment) }
        }
        return found
    }
}
