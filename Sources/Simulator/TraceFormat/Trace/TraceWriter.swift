import LibC
import HAL
import SystemPackage

/// Writes a trace file: the header first, then one line a record.
///
/// With ``Durability/everyRecord`` (the default) each record reaches the file in a
/// single `write` as soon as it is written, so a recording cut off by a crash or
/// Ctrl-C is readable up to its last whole record. ``Durability/buffered`` batches
/// writes for speed, for files made in one go.
///
/// Frames whose pixels are in memory are saved as files in a folder beside the trace
/// (`NAME.frames/`): `.jpg` for MJPEG, `.png` for PNG, and `.raw` pixel data in the
/// frame's format otherwise.
public final class TraceWriter {
    /// When written records reach the file.
    public enum Durability: Sendable {
        /// Each record is written to the file at once.
        case everyRecord
        /// Records are gathered and written in large blocks, and on ``TraceWriter/flush()``.
        case buffered
    }

    /// The header written at the top.
    public let header: TraceHeader
    /// The file being written.
    public let path: String
    /// Records written so far, per channel.
    public private(set) var counts: [Int]

    private let encoder: TraceEncoder
    private let durability: Durability
    private var descriptor: FileDescriptor?
    private var pending: [UInt8] = []
    private var order: ChannelOrder
    private var lineNumber = 1
    /// The frame files saved so far, with a hash of their pixels.
    private var savedFrames: [String: Int] = [:]

    /// Creates (or truncates) the file at `path` and writes the header.
    public init(path: String, header: TraceHeader, durability: Durability = .everyRecord) throws(TraceError) {
        self.header = header
        self.path = path
        self.durability = durability
        self.encoder = TraceEncoder(header: header)
        self.counts = Array(repeating: 0, count: header.channels.count)
        self.order = ChannelOrder(header)
        let headerLine: [UInt8]
        do {
            headerLine = try encoder.encodeHeader()
        } catch {
            throw TraceError(error.kind, file: path, line: 1, field: error.field, error.message)
        }
        do {
            descriptor = try FileDescriptor.open(
                FilePath(path), .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw TraceError(.io, file: path, line: 0, "cannot create: \(error)")
        }
        pending = headerLine
        try writePending()
    }

    deinit {
        try? close()
    }

    /// Writes a record.
    ///
    /// Refuses a record on an unknown channel, of the wrong kind for its channel, with a
    /// non-finite number, or earlier than the channel's previous record.
    public func write(_ record: TraceRecord) throws(TraceError) {
        try write(record, frameName: nil)
    }

    /// Writes a record whose frame is in memory, saving its pixels as `name` (relative to the trace's folder, inside
    /// it) instead of in the frames folder: what a conversion does to keep a trace's frame files as they were.
    ///
    /// The name must stay inside the trace's folder and must not be a trace's name (`.jsonl`, `.mcap`: the file
    /// being written, or the one being converted). Records may share a file, as in JSON Lines, when their pixels are
    /// the same; other pixels under a name this writer has saved already are refused.
    public func write(_ record: TraceRecord, savingFrameAs name: String) throws(TraceError) {
        func refuse(_ kind: TraceError.Kind, _ reason: String) -> TraceError {
            TraceError(kind, file: path, line: lineNumber + 1, field: "file", "'\(name)' \(reason)")
        }
        guard TracePath.staysInsideTraceFolder(name) else { throw refuse(.pathOutsideTrace, "leaves the trace's folder") }
        guard !name.hasSuffix(".jsonl") && !name.hasSuffix(".mcap") else { throw refuse(.invalidValue, "is a trace's name, not a frame file's") }
        if let saved = savedFrames[name] {
            guard case .frame(let frame) = record.reading, case .bytes(let pixels) = frame.storage, Hasher.hash(pixels) == saved,
                  (try? TracePath.readFile(TracePath.resolve(name, inTraceAt: path))) == pixels else {
                throw refuse(.invalidValue, "holds an earlier frame's pixels, and these are others")
            }
            var shared = frame
            shared.storage = .file(path: name)
            try write(TraceRecord(channel: record.channel, reading: .frame(shared)), frameName: nil)
            return
        }
        try write(record, frameName: name)
    }

    private func write(_ record: TraceRecord, frameName: String?) throws(TraceError) {
        guard descriptor != nil else { throw TraceError(.io, file: path, line: lineNumber + 1, "the writer is closed") }
        var record = record
        do { try order.check(record) } catch {
            throw TraceError(error.kind, file: path, line: lineNumber + 1, field: error.field, error.message)
        }
        var pixels: (bytes: [UInt8], name: String)?
        if case .frame(var frame) = record.reading, case .bytes(let bytes) = frame.storage {
            let name = frameName ?? "\(frameFolder)/\(header.channels[record.channel].id)-\(frame.sequence).\(Self.frameSuffix(frame.pixelFormat))"
            pixels = (bytes, name)
            frame.storage = .file(path: name)
            record.reading = .frame(frame)
        }
        let mark = pending.count
        do {
            try encoder.encode(record, into: &pending)
            // The frame's file is saved once its record is known to be good.
            if let pixels {
                try saveFrame(pixels.bytes, as: pixels.name)
                savedFrames[pixels.name] = Hasher.hash(pixels.bytes)
            }
        } catch {
            pending.removeSubrange(mark...)
            throw TraceError(error.kind, file: path, line: lineNumber + 1, field: error.field, error.message)
        }
        lineNumber += 1
        order.take(record)
        counts[record.channel] += 1
        if durability == .everyRecord || pending.count >= 1 << 20 { try writePending() }
    }

    /// Writes out anything buffered.
    public func flush() throws(TraceError) {
        try writePending()
    }

    /// Flushes and closes the file. Later writes throw.
    public func close() throws(TraceError) {
        guard let descriptor else { return }
        defer { self.descriptor = nil }
        try writePending()
        do { try descriptor.close() } catch {
            throw TraceError(.io, file: path, line: 0, "close failed: \(error)")
        }
    }

    private func writePending() throws(TraceError) {
        guard let descriptor, !pending.isEmpty else { return }
        do {
            _ = try pending.withUnsafeBytes { try descriptor.writeAll($0) }
        } catch let error as Errno where error == .noSpace {
            throw TraceError(.io, file: path, line: lineNumber, "the disk is full; records up to line \(lineNumber - 1) may be on disk, the rest were not written")
        } catch {
            throw TraceError(.io, file: path, line: lineNumber, "write failed: \(error)")
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// The folder, relative to the trace's folder, where in-memory frames are saved.
    public var frameFolder: String {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        let stem = base.hasSuffix(".jsonl") ? String(base.dropLast(6)) : base
        return stem + ".frames"
    }

    private static func frameSuffix(_ format: PixelFormat) -> String {
        switch format {
        case .mjpeg: "jpg"
        case .png: "png"
        default: "raw"
        }
    }

    /// Saves a frame's pixels as `relative` to the trace's folder, making the folder that holds it.
    private func saveFrame(_ pixels: [UInt8], as relative: String) throws(TraceError) {
        let file = TracePath.resolve(relative, inTraceAt: path)
        do {
            // The folders the name has, each made if it is not there (a JSON Lines trace's frames folder).
            var folder = TracePath.folder(ofTraceAt: path)
            for component in relative.split(separator: "/").dropLast() {
                folder += "/" + component
                if mkdir(folder, 0o755) != 0 && errno != EEXIST { throw Errno(rawValue: errno) }
            }
            let descriptor = try FileDescriptor.open(
                FilePath(file), .writeOnly,
                options: [.create, .truncate, .closeOnExec], permissions: [.ownerReadWrite, .groupRead, .otherRead])
            try descriptor.closeAfter { _ = try pixels.withUnsafeBytes { try descriptor.writeAll($0) } }
        } catch {
            throw TraceError(.io, file: path, line: lineNumber + 1, field: "file", "cannot save frame to \(relative): \(error)")
        }
    }
}

extension Hasher {
    /// The hash of `bytes`, to tell at once whether two frames' pixels may be the same.
    fileprivate static func hash(_ bytes: [UInt8]) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes)
        return hasher.finalize()
    }
}
