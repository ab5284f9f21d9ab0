import TraceFormat
import HAL

/// Turns a trace's records into MCAP messages in the trace's schemas (``TraceSchemas``), keeping every value
/// exactly: doubles as their bits, and what Foxglove's schemas have no field for in the extra fields and metadata
/// that `docs/trace-format.md` lists.
struct MCAPTraceEncoder {
    let header: TraceHeader
    /// The trace's folder, where the frame files of a JSON Lines trace are.
    let traceFile: String?
    private let jsonEncoder: TraceEncoder
    private var scratch: [UInt8] = []

    init(header: TraceHeader, traceFile: String?) {
        self.header = header
        self.traceFile = traceFile
        jsonEncoder = TraceEncoder(header: header)
    }

    /// The record's message, appended to `out`, and its schema. A record is checked by the JSON Lines trace's rules
    /// (``TraceEncoder``), so that what one container refuses the other does too, with the same words.
    mutating func encode(_ record: TraceRecord, framePath: String? = nil, into out: inout Protobuf.Writer) throws(TraceError) -> TraceSchemas.Schema {
        let channel = header.channels[record.channel]
        let time = record.timestamp.nanoseconds
        switch (channel.kind, record.reading) {
        case (.gyroscope, .motion(let sample)) where sample.quantity == .angularVelocity,
             (.accelerometer, .motion(let sample)) where sample.quantity == .acceleration,
             (.magnetometer, .motion(let sample)) where sample.quantity == .magneticField:
            // The hot path: the JSON encoder's one check of a motion sample, without its text.
            try TraceEncoder.checkFinite(sample.value.x, field: "v[0]")
            try TraceEncoder.checkFinite(sample.value.y, field: "v[1]")
            try TraceEncoder.checkFinite(sample.value.z, field: "v[2]")
            out.double(1, sample.value.x)
            out.double(2, sample.value.y)
            out.double(3, sample.value.z)
            return .motion
        case (.camera, .frame(let frame)):
            if case .bytes = frame.storage {
                // The JSON Lines encoder takes frames as files; its checks of the rest are the same for pixels.
                var named = frame
                named.storage = .file(path: TraceSchemas.placeholderFrameFile)
                try check(TraceRecord(channel: record.channel, reading: .frame(named)))
            } else {
                try check(record)
            }
            return try self.frame(frame, time: time, channel: channel.id, framePath: framePath, &out)
        default:
            try check(record)
        }
        switch record.reading {
        case .attitude(let sample):
            let q = sample.quaternion
            out.timestamp(1, nanoseconds: time)
            out.string(2, sample.frame.rawValue)
            out.message(3) { pose in
                pose.message(2) { orientation in
                    orientation.double(1, q.x)
                    orientation.double(2, q.y)
                    orientation.double(3, q.z)
                    orientation.double(4, q.w)
                }
            }
            if let accuracy = sample.headingAccuracy { out.double(TraceSchemas.Extra.headingAccuracy, accuracy) }
            return .pose
        case .pointer(let event):
            out.string(1, event.phase.rawValue)
            out.int64(2, Int64(event.pointer))
            out.double(3, event.x)
            out.double(4, event.y)
            return .pointer
        case .key(let event):
            out.int64(1, Int64(event.code))
            out.string(2, event.state.rawValue)
            return .key
        case .location(let fix):
            location(fix, time: time, channel: channel.id, &out)
            return .location
        case .expression(let reading):
            guard let face = reading.face, let scores = reading.scores else { return .expression }
            out.message(1) { box in
                box.int64(1, Int64(face.x))
                box.int64(2, Int64(face.y))
                box.int64(3, Int64(face.width))
                box.int64(4, Int64(face.height))
            }
            out.message(2) { out in
                for (index, expression) in Expression.allCases.enumerated() { out.double(index + 1, scores[expression]) }
            }
            if let id = reading.faceID { out.int64(3, Int64(id)) }
            out.int64(4, Int64(reading.rank))
            out.int64(5, Int64(reading.faceCount))
            return .expression
        case .playback(let event):
            out.string(1, event.phase.rawValue)
            switch event.item {
            case .clip(let name):
                out.string(2, name)
            case .speech(let text, let voice):
                out.string(3, text)
                out.string(4, voice)
            }
            if let requested = event.requested { out.int64(5, requested.nanoseconds) }
            if let gain = event.gain { out.double(6, gain) }
            return .playback
        case .appEvent(let event):
            out.timestamp(1, nanoseconds: time)
            out.int64(2, 2)  // INFO
            let data = try jsonEncoder.attributes(event.attributes)
            out.string(3, data.isEmpty ? event.name : event.name + " " + data)
            out.string(4, event.name)
            return .log
        default:
            // A registered kind: the record's JSON Lines line, without its newline.
            out.bytes.append(contentsOf: scratch.dropLast())
            return .json(channel.kind)
        }
    }

    /// Checks a record by the JSON Lines trace's rules, leaving its line in ``scratch``.
    private mutating func check(_ record: TraceRecord) throws(TraceError) {
        scratch.removeAll(keepingCapacity: true)
        try jsonEncoder.encode(record, into: &scratch)
    }

    private func location(_ fix: LocationFix, time: Int64, channel: String, _ out: inout Protobuf.Writer) {
        var extras: [(String, String)] = [("mode", fix.mode.rawValue)]
        if let utc = fix.utcNanoseconds { extras.append(("utc", UTCTime.format(utc))) }
        for (key, value) in [("hacc", fix.horizontalAccuracy), ("vacc", fix.verticalAccuracy), ("speed", fix.speed), ("course", fix.course)] {
            if let value { extras.append((key, value.description)) }
        }
        if let satellites = fix.satellites { extras.append(("sats", String(satellites))) }
        // No position (mode none) is NaN, which Foxglove's map leaves out.
        out.double(1, fix.coordinate?.latitude ?? .nan)
        out.double(2, fix.coordinate?.longitude ?? .nan)
        if let altitude = fix.altitude { out.double(3, altitude) }
        if let horizontal = fix.horizontalAccuracy {
            // For Foxglove's map: the accuracies as a diagonal ENU covariance (σ², σ², σ²ᵤ).
            let vertical = fix.verticalAccuracy ?? horizontal
            out.packedDoubles(4, [horizontal * horizontal, 0, 0, 0, horizontal * horizontal, 0, 0, 0, vertical * vertical])
            out.int64(5, 2)  // DIAGONAL_KNOWN
        }
        out.timestamp(6, nanoseconds: time)
        out.string(7, channel)
        for (key, value) in extras {
            out.message(9) { pair in
                pair.string(1, key)
                pair.string(2, value)
            }
        }
    }

    private func frame(_ frame: Frame, time: Int64, channel: String, framePath: String?, _ out: inout Protobuf.Writer) throws(TraceError) -> TraceSchemas.Schema {
        let data: [UInt8]
        var file: String?
        switch frame.storage {
        case .bytes(let pixels):
            data = pixels
            if let framePath {
                guard TracePath.staysInsideTraceFolder(framePath) else {
                    throw TraceError(.pathOutsideTrace, line: 0, field: "file", "'\(framePath)' leaves the trace's folder")
                }
                file = framePath
            }
        case .file(let path):
            let resolved = traceFile.map { TracePath.resolve(path, inTraceAt: $0) } ?? path
            do { data = try TracePath.readFile(resolved) } catch {
                throw TraceError(.io, line: 0, field: "file", "cannot read the frame's file \(resolved): \(error)")
            }
            file = path
        }
        out.timestamp(1, nanoseconds: time)
        let schema = TraceSchemas.schema(for: .camera, frame: frame)
        if schema == .compressedImage {
            out.bytes(2, data)
            out.string(3, frame.pixelFormat == .png ? "png" : "jpeg")
            out.string(4, channel)
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
            out.string(7, channel)
        }
        out.int64(TraceSchemas.Extra.sequence, Int64(bitPattern: frame.sequence))
        if let file { out.string(TraceSchemas.Extra.file, file) }
        out.string(TraceSchemas.Extra.pixelFormat, frame.pixelFormat.rawValue)
        return schema
    }
}
