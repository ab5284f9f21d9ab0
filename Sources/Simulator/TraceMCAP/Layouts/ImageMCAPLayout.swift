import TraceFormat
import HAL

/// A camera frame: Foxglove's `RawImage`, or `CompressedImage` for an encoded picture, holding the pixels, whether
/// the frame was in memory or in a file beside a JSON Lines trace; its sequence number, file and V4L2 pixel format in
/// extra fields (``TraceSchemas/Extra``).
struct ImageMCAPLayout: MCAPRecordLayout {
    var formats: [String: MCAPMessageFormat] {
        [TraceSchemas.Schema.rawImage.name: .rawImage, TraceSchemas.Schema.compressedImage.name: .compressedImage]
    }

    /// The JSON Lines encoder takes frames as files; its checks of the rest are the same for pixels.
    func check(_ record: TraceRecord, _ context: inout MCAPRecordContext) throws(TraceError) {
        guard case .frame(var frame) = record.reading, case .bytes = frame.storage else { return try context.check(record) }
        frame.storage = .file(path: TraceSchemas.placeholderFrameFile)
        try context.check(TraceRecord(channel: record.channel, reading: .frame(frame)))
    }

    func encode(_ reading: Reading, _ context: MCAPRecordContext, into out: inout Protobuf.Writer) throws(TraceError) -> TraceSchemas.Schema {
        guard case .frame(let frame) = reading else { return .rawImage }
        let data: [UInt8]
        var file: String?
        switch frame.storage {
        case .bytes(let pixels):
            data = pixels
            if let framePath = context.framePath {
                guard TracePath.staysInsideTraceFolder(framePath) else {
                    throw TraceError(.pathOutsideTrace, line: 0, field: "file", "'\(framePath)' leaves the trace's folder")
                }
                file = framePath
            }
        case .file(let path):
            let resolved = context.traceFile.map { TracePath.resolve(path, inTraceAt: $0) } ?? path
            do { data = try TracePath.readFile(resolved) } catch {
                throw TraceError(.io, line: 0, field: "file", "cannot read the frame's file \(resolved): \(error)")
            }
            file = path
        }
        out.timestamp(1, nanoseconds: context.time)
        let schema: TraceSchemas.Schema = frame.pixelFormat.isCompressed ? .compressedImage : .rawImage
        if schema == .compressedImage {
            out.bytes(2, data)
            out.string(3, frame.pixelFormat == .png ? "png" : "jpeg")
            out.string(4, context.channel.id)
            out.int64(TraceSchemas.Extra.width, Int64(frame.width))
            out.int64(TraceSchemas.Extra.height, Int64(frame.height))
            if frame.bytesPerRow != 0 { out.int64(TraceSchemas.Extra.stride, Int64(frame.bytesPerRow)) }
        } else {
            guard let width = UInt32(exactly: frame.width), let height = UInt32(exactly: frame.height),
                  let step = UInt32(exactly: frame.bytesPerRow) else {
                throw TraceError(.invalidValue, line: 0, field: "width", "a \(frame.width)×\(frame.height) frame with \(frame.bytesPerRow) bytes a row is too large for RawImage")
            }
            out.fixed32(2, width)
            out.fixed32(3, height)
            out.string(4, TraceSchemas.rawImageEncoding(frame.pixelFormat))
            out.fixed32(5, step)
            out.bytes(6, data)
            out.string(7, context.channel.id)
        }
        out.int64(TraceSchemas.Extra.sequence, Int64(bitPattern: frame.sequence))
        if let file { out.string(TraceSchemas.Extra.file, file) }
        out.string(TraceSchemas.Extra.pixelFormat, frame.pixelFormat.rawValue)
        return schema
    }
}
