import LibC
import SystemPackage

/// Reads a trace line by line, synchronously, without a task hop per record.
///
/// The header is read when the reader opens. ``next()`` then returns records in
/// file order until the end. A last line that stops part-way through a record
/// (a recording cut off by a crash) ends the records without an error: every
/// record before it is returned, and ``truncation`` says what was cut off.
public final class TraceReader {
    /// The trace's header.
    public var header: TraceHeader { decoder.header }
    /// The file name used in errors.
    public let file: String?
    /// Set when the last line was cut off part-way through a record.
    @exclusivity(unchecked) public private(set) var truncation: TraceError?
    /// The number of the last line read.
    @exclusivity(unchecked) public private(set) var lineNumber: Int = 0
    /// How many bytes of the file have been read so far, for a progress line.
    @exclusivity(unchecked) public private(set) var bytesRead: Int = 0

    /// The longest line the reader accepts, so a corrupt file cannot exhaust memory.
    public static let maximumLineLength = 16 << 20

    // The reader is not Sendable and none of its methods hands its state out, so no two accesses to its stored
    // state can overlap: Swift's run-time exclusivity checks on them cost about 400 instructions a record, and
    // are off (`@exclusivity(unchecked)`).
    @exclusivity(unchecked) private var decoder: TraceDecoder
    private let descriptor: FileDescriptor?
    /// The bytes read and not yet used, owned by the reader (freed in `deinit`): a pointer rather than an array, so
    /// that a record does not retain and release an array's storage twice on its way through.
    @exclusivity(unchecked) private var buffer: UnsafeMutableBufferPointer<UInt8>
    @exclusivity(unchecked) private var lineStart = 0
    @exclusivity(unchecked) private var filled = 0
    private var atEndOfInput: Bool

    /// Opens a trace file and reads its header.
    public convenience init(path: String) throws(TraceError) {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
        } catch {
            throw TraceError(.io, file: path, line: 0, "cannot open: \(error)")
        }
        try self.init(descriptor: descriptor, bytes: [], file: path)
    }

    /// Reads a trace held in memory.
    public convenience init(bytes: [UInt8], file: String? = nil) throws(TraceError) {
        try self.init(descriptor: nil, bytes: bytes, file: file)
    }

    private static func bufferSize(of descriptor: FileDescriptor) -> Int {
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0, info.st_size >= 0 else { return 1 << 20 }
        return max(4096, min(1 << 20, Int(info.st_size) + 1))
    }

    private init(descriptor: FileDescriptor?, bytes: [UInt8], file: String?) throws(TraceError) {
        self.descriptor = descriptor
        self.file = file
        // Reads go 1 MiB at a time; a smaller file gets a buffer of its size (and a byte to see its end). Nothing is
        // zeroed first: only the bytes read are looked at.
        if let descriptor {
            self.buffer = .allocate(capacity: Self.bufferSize(of: descriptor))
        } else {
            self.buffer = .allocate(capacity: max(1, bytes.count))
            _ = self.buffer.initialize(from: bytes)
        }
        self.filled = descriptor == nil ? bytes.count : 0
        self.atEndOfInput = descriptor == nil
        // Placeholder until the header is known; replaced below.
        self.decoder = TraceDecoder(header: TraceHeader(channels: []), file: file)
        // The reader is whole from here: if reading the header throws, `deinit` runs and closes the file and frees
        // the buffer (closing it here as well would close a number another thread may have opened since).
        guard let (range, complete) = try nextLine() else {
            throw TraceError(.badHeader, file: file, line: 1, "the file is empty: a trace starts with a header line")
        }
        let header: TraceHeader
        do throws(TraceError) {
            header = try TraceDecoder.decodeHeader(UnsafeBufferPointer(rebasing: buffer[range]), file: file)
        } catch where !complete && error.kind == .malformedJSON {
            throw TraceError(.truncated, file: file, line: 1, "the header line is cut off: no record can be read")
        } catch where error.kind == .malformedJSON || (error.kind == .badHeader && error.field == "format") {
            let hint = file.flatMap(TracePath.whatItLooksLike).map { "; \($0)" } ?? ""
            throw TraceError(
                .badHeader, file: file, line: 1, field: error.field,
                "not a trace: the first line is not a trace header (\(error.message))\(hint)")
        }
        self.decoder = TraceDecoder(header: header, file: file)
    }

    deinit {
        try? descriptor?.close()
        buffer.deallocate()
    }

    /// The next record in file order, or `nil` at the end of the trace.
    public func next() throws(TraceError) -> TraceRecord? {
        if case .some = truncation { return nil }  // a pattern, not `== nil`, which copies the error every call
        while let (range, complete) = try nextLine() {
            if buffer[range.lowerBound] != UInt8(ascii: "{"), isBlank(range) { continue }
            do throws(TraceError) {
                return try decoder.decodeRecord(UnsafeBufferPointer(rebasing: buffer[range]), lineNumber: lineNumber)
            } catch where !complete && error.kind == .malformedJSON {
                truncation = TraceError(
                    .truncated, file: file, line: lineNumber,
                    "the last line stops part-way through a record (\(range.count) bytes, no newline); "
                        + "the records before it are complete")
                return nil
            }
        }
        return nil
    }

    /// Reads every remaining record.
    public func readAll() throws(TraceError) -> [TraceRecord] {
        var records: [TraceRecord] = []
        while let record = try next() { records.append(record) }
        return records
    }

    private func isBlank(_ range: Range<Int>) -> Bool {
        buffer[range].allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
    }

    /// The next line's byte range in `buffer` (without its newline), and whether it had a newline.
    private func nextLine() throws(TraceError) -> (Range<Int>, Bool)? {
        var searchFrom = lineStart
        while true {
            let found: Int? = {
                guard searchFrom < filled,
                      let hit = memchr(buffer.baseAddress! + searchFrom, Int32(UInt8(ascii: "\n")), filled - searchFrom)
                else { return nil }
                return UnsafePointer(buffer.baseAddress!).distance(to: hit.assumingMemoryBound(to: UInt8.self))
            }()
            if let newline = found {
                lineNumber += 1
                let range = lineStart..<newline
                lineStart = newline + 1
                return (range, true)
            }
            if atEndOfInput {
                guard lineStart < filled else { return nil }
                lineNumber += 1
                let range = lineStart..<filled
                lineStart = filled
                return (range, false)
            }
            let alreadySearched = filled - lineStart
            try refill()
            searchFrom = lineStart + alreadySearched
        }
    }

    /// Moves the partial line to the front of the buffer and reads more input after it.
    private func refill() throws(TraceError) {
        guard let descriptor else {
            atEndOfInput = true
            return
        }
        if lineStart > 0 {
            let pending = filled - lineStart
            _ = memmove(buffer.baseAddress!, buffer.baseAddress! + lineStart, pending)
            filled = pending
            lineStart = 0
        }
        if filled == buffer.count {
            guard buffer.count < Self.maximumLineLength else {
                throw TraceError(
                    .invalidValue, file: file, line: lineNumber + 1,
                    "the line is longer than \(Self.maximumLineLength) bytes")
            }
            let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: buffer.count * 2)
            _ = larger.initialize(from: buffer)
            buffer.deallocate()
            buffer = larger
        }
        let count: Int
        do {
            count = try descriptor.read(
                into: UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[filled...]),
                retryOnInterrupt: true)
        } catch {
            throw TraceError(.io, file: file, line: lineNumber + 1, "read failed: \(error)")
        }
        if count == 0 { atEndOfInput = true }
        filled += count
        bytesRead += count
    }
}
