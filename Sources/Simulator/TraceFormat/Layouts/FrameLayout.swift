import HAL

/// A camera record: the frame's `seq`, `width`, `height`, pixel `format`, `stride` (when not 0) and the `file`
/// beside the trace that holds its pixels. A frame in memory is written by ``TraceWriter``, which saves its pixels.
struct FrameLayout: RecordLayout {
    func encode(_ reading: Reading, on channel: TraceChannel, into out: inout JSONOutput) throws(TraceError) -> Bool {
        guard case .frame(let frame) = reading else { return false }
        guard case .file(let path) = frame.storage else {
            throw TraceError(
                .invalidValue, line: 0, field: "file",
                "a frame goes into a trace as a file beside it; write its pixels with TraceWriter")
        }
        guard TracePath.staysInsideTraceFolder(path) else {
            throw TraceError(.pathOutsideTrace, line: 0, field: "file", "'\(path)' leaves the trace's folder")
        }
        out.key("seq")
        out.int(frame.sequence)
        out.key("width")
        out.int(frame.width)
        out.key("height")
        out.int(frame.height)
        out.key("format")
        out.string(frame.pixelFormat.rawValue)
        if frame.bytesPerRow != 0 {
            out.key("stride")
            out.int(frame.bytesPerRow)
        }
        out.key("file")
        out.string(path)
        return true
    }

    func decode(_ fields: inout RecordFields, at timestamp: Timestamp, on channel: TraceChannel) throws(TraceError) -> Reading {
        let largest = TraceDecoder.maximumFrameSide
        let sequence = try fields.required("seq", "sequence number", Read.int)
        let width = try fields.required("width", "width", Read.int)
        let height = try fields.required("height", "height", Read.int)
        let format = try fields.enumeration("format", PixelFormat.self)!
        let stride = try fields.optional("stride", Read.int) ?? 0
        let path = try fields.required("file", "frame file", Read.string)
        guard sequence >= 0 else { throw fields.error(.invalidValue, "seq", "a sequence number is not negative") }
        guard (1...largest).contains(width) else {
            throw fields.error(.invalidValue, "width", "\(width) is not a width of 1...\(largest) pixels")
        }
        guard (1...largest).contains(height) else {
            throw fields.error(.invalidValue, "height", "\(height) is not a height of 1...\(largest) pixels")
        }
        guard (0...(4 * largest)).contains(stride) else {
            throw fields.error(.invalidValue, "stride", "\(stride) is not a stride of 0...\(4 * largest) bytes")
        }
        guard TracePath.staysInsideTraceFolder(path) else {
            throw fields.error(.pathOutsideTrace, "file", "'\(path)' leaves the trace's folder; frame files must be inside it")
        }
        return .frame(Frame(
            timestamp: timestamp, sequence: UInt64(sequence), width: Int(width), height: Int(height),
            pixelFormat: format, bytesPerRow: Int(stride), storage: .file(path: path)))
    }
}
