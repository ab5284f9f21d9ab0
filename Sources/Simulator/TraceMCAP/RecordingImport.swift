import TraceFormat
import HAL
import MCAP

/// A topic of a recording that has no HAL kind (or an image encoding the HAL has no format for), and so was left
/// out of the trace an import made (``ROS2Import``, ``FoxgloveImport``).
public struct SkippedTopic: Sendable, Hashable, CustomStringConvertible {
    /// The topic.
    public var topic: String
    /// Its message type (schema name), such as `tf2_msgs/msg/TFMessage` or `foxglove.SceneUpdate`.
    public var type: String
    /// Its messages in the recording (up to the point the import stopped).
    public var messages: Int
    /// Why it was skipped.
    public var reason: String

    /// `TOPIC (TYPE): N messages, REASON`.
    public var description: String { "\(topic) (\(type)): \(messages) message\(messages == 1 ? "" : "s"), \(reason)" }
}

/// One reading a recording's message gives, and the trace channel of its topic it goes on.
struct ImportedReading {
    /// Appended to the topic's channel id (`imu.data` + `gyro`), or nil for the topic's one channel.
    var suffix: String?
    var kind: DeviceKind
    /// The sensor's frame, kept as the channel's name.
    var frameID: String
    var frame: EarthFrame? = nil
    /// The reading; a frame's sequence number is given by the import, counting the topic's frames.
    var reading: Reading
}

/// The messages of one recording format (a ROS 2 bag's CDR, Foxglove's protobuf and JSON) as readings.
protocol RecordingDecoder {
    /// Names the format in channels' sources (`ros2:/imu`) and backends, and in the metadata key of the skipped
    /// topics (`ros2.skipped`).
    var format: String { get }
    /// Why a channel is left out, or nil when its messages are read; `type` is its schema's name, empty for none.
    func skipReason(_ channel: MCAPChannel, type: String) -> String?
    /// The readings of one message on a channel that ``skipReason(_:type:)`` accepted. Throws
    /// ``RecordingImportFailure/unsupported(_:)`` to leave the topic out from this message on, or
    /// ``RecordingImportFailure/badMessage(field:reason:)`` to stop the import.
    func decode(_ message: MCAPMessage, _ channel: MCAPChannel, type: String) throws(RecordingImportFailure) -> [ImportedReading]
}

/// Why a recording's message gave no readings.
enum RecordingImportFailure: Error {
    /// The topic holds what the HAL cannot take (an image encoding with no pixel format): skipped from here on.
    case unsupported(String)
    /// The message does not decode: the import stops, keeping the records before it.
    case badMessage(field: String, reason: String)
}

/// A recording in MCAP turned into a trace by a ``RecordingDecoder``: the topics it reads become channels, the
/// others are listed and skipped, and records are put in time order across channels.
struct RecordingImporter<Decoder: RecordingDecoder> {
    let path: String
    let decoder: Decoder
    private var channels: [TraceChannel] = []
    private var records: [TraceRecord] = []
    private var metadata: [String: String] = [:]
    private var truncation: TraceError?
    /// Per MCAP channel id: its topic's state, for a channel whose messages are read.
    private var topics: [UInt16: Topic] = [:]
    private var skipped: [SkippedTopic] = []
    private var skippedIndex: [UInt16: Int] = [:]
    private var lastTimes: [Int64] = []
    private var schemaNames: [UInt16: String] = [:]

    private struct Topic {
        var type: String
        var channels: [String: Int] = [:]
        var frameSequence: UInt64 = 0
        var messages = 0
    }

    /// Reads the whole recording; damage to the file (any ``MCAPError``) or a message that does not decode ends
    /// the import with the records before it kept and the error in ``Trace/truncation``.
    static func load(_ reader: MCAPReader, decoder: Decoder) -> (trace: Trace, skipped: [SkippedTopic]) {
        var importer = RecordingImporter(path: reader.path, decoder: decoder)
        do {
            try reader.scan { record in try importer.add(record) }
            // The messages are all read; a file cut or damaged after them (in its summary or footer) is still said.
            _ = try reader.summary()
        } catch let error as MCAPError {
            importer.truncation = TraceError(.badContainer, file: importer.path, line: 0, "byte \(error.offset): \(error.record) record: \(error.reason)")
        } catch let error as TraceError {
            importer.truncation = error
        } catch {
            importer.truncation = TraceError(.io, file: importer.path, line: 0, "\(error)")
        }
        return importer.result()
    }

    private init(path: String, decoder: Decoder) {
        self.path = path
        self.decoder = decoder
        metadata["source"] = path
    }

    private mutating func add(_ record: MCAPReader.Record) throws(TraceError) {
        switch record {
        case .header(let profile, let library):
            metadata["mcap.profile"] = profile
            metadata["mcap.library"] = library
        case .schema(let schema):
            schemaNames[schema.id] = schema.name
        case .channel(let channel):
            guard topics[channel.id] == nil, skippedIndex[channel.id] == nil else { return }  // repeated in the summary
            let type = channel.schemaID == 0 ? "" : schemaNames[channel.schemaID] ?? ""
            if let reason = decoder.skipReason(channel, type: type) {
                skip(channel, type: type, reason: reason)
            } else {
                topics[channel.id] = Topic(type: type)
            }
        case .message(let message, let channel):
            if let index = skippedIndex[channel.id] {
                skipped[index].messages += 1
                return
            }
            guard var topic = topics[channel.id] else { return }
            topic.messages += 1
            let readings: [ImportedReading]
            do throws(RecordingImportFailure) {
                readings = try decoder.decode(message, channel, type: topic.type)
            } catch {
                switch error {
                case .unsupported(let reason):
                    skip(channel, type: topic.type, reason: reason)
                    skipped[skipped.count - 1].messages = 1
                    topics[channel.id] = nil
                    return
                case .badMessage(let field, let reason):
                    throw TraceError(.invalidValue, file: path, line: 0, field: field,
                        "\(channel.topic) (\(topic.type)), message \(topic.messages) (log time \(message.logTime)): \(reason)")
                }
            }
            for item in readings { try append(item, &topic, channel) }
            topics[channel.id] = topic
        default:
            break  // metadata, attachments, indexes and the summary: nothing a trace keeps
        }
    }

    private mutating func skip(_ channel: MCAPChannel, type: String, reason: String) {
        skippedIndex[channel.id] = skipped.count
        skipped.append(SkippedTopic(topic: channel.topic, type: type.isEmpty ? "no schema" : type, messages: 0, reason: reason))
    }

    /// The trace channel `suffix` of `topic`, made on first use: the topic with `/` as `.`, and characters a
    /// channel id cannot hold as `_`.
    private mutating func channel(_ topic: inout Topic, _ mcap: MCAPChannel, _ item: ImportedReading) -> Int {
        let key = item.suffix ?? ""
        if let index = topic.channels[key] { return index }
        var id = String(mcap.topic.drop { $0 == "/" }.map { $0 == "/" ? "." : $0 }.map { TraceChannel.isValidID(String($0)) ? $0 : "_" })
        if let suffix = item.suffix { id += "." + suffix }
        if id.isEmpty { id = "topic" }
        id = String(id.prefix(64))
        var unique = id
        var number = 2
        while channels.contains(where: { $0.id == unique }) {
            unique = String(id.prefix(60)) + "-\(number)"
            number += 1
        }
        channels.append(TraceChannel(
            id: unique, kind: item.kind, source: "\(decoder.format):\(mcap.topic)", name: item.frameID.isEmpty ? nil : item.frameID,
            backend: decoder.format, frame: item.frame))
        lastTimes.append(.min)
        topic.channels[key] = channels.count - 1
        return channels.count - 1
    }

    private mutating func append(_ item: ImportedReading, _ topic: inout Topic, _ mcap: MCAPChannel) throws(TraceError) {
        let index = channel(&topic, mcap, item)
        var reading = item.reading
        if case .frame(var frame) = reading {
            frame.sequence = topic.frameSequence
            topic.frameSequence += 1
            reading = .frame(frame)
        }
        let time = reading.timestamp.nanoseconds
        guard time >= lastTimes[index] else {
            throw TraceError(.timestampBackwards, file: path, line: 0, field: channels[index].id,
                "\(mcap.topic): a message stamped \(time) ns after one stamped \(lastTimes[index]) ns")
        }
        lastTimes[index] = time
        records.append(TraceRecord(channel: index, reading: reading))
    }

    private func result() -> (trace: Trace, skipped: [SkippedTopic]) {
        var metadata = self.metadata
        if !skipped.isEmpty { metadata["\(decoder.format).skipped"] = skipped.map(\.description).joined(separator: "; ") }
        // In time order across channels (stable, so each channel keeps its own order), as a recording would be.
        let ordered = records.indices.sorted { (records[$0].timestamp, $0) < (records[$1].timestamp, $1) }.map { records[$0] }
        var trace = Trace(header: TraceHeader(channels: channels, metadata: metadata), records: ordered, path: path)
        trace.truncation = truncation
        return (trace, skipped)
    }
}

/// An image's width and height from its own header.
enum ImageSize {
    /// From a PNG's IHDR chunk.
    static func png(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
              bytes[12..<16].elementsEqual(Array("IHDR".utf8)) else { return nil }
        func u32(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (u32(16), u32(20))
    }

    /// From a JPEG's start-of-frame marker.
    static func jpeg(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var at = 2
        while at + 9 < bytes.count {
            guard bytes[at] == 0xFF else { return nil }
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { at += 2; continue }
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = Int(bytes[at + 5]) << 8 | Int(bytes[at + 6])
                let width = Int(bytes[at + 7]) << 8 | Int(bytes[at + 8])
                return width > 0 && height > 0 ? (width, height) : nil
            }
            at += 2 + length
        }
        return nil
    }

    /// The largest picture side an import takes, in pixels: the trace format's own
    /// (``TraceDecoder/maximumFrameSide``), so that an imported frame converts to JSON Lines and reads back.
    static let largestSide = Int(TraceDecoder.maximumFrameSide)

    /// A compressed picture (`png`, or JPEG for any other format name) as a frame at `time`, its size read from its
    /// own header.
    static func compressedFrame(_ data: [UInt8], format: String, at time: Timestamp, field: String) throws(RecordingImportFailure) -> Frame {
        let format = format.lowercased()
        let pixelFormat: PixelFormat = format.contains("png") ? .png : .mjpeg
        guard let size = pixelFormat == .png ? png(data) : jpeg(data),
              (1...largestSide).contains(size.width), (1...largestSide).contains(size.height) else {
            throw .badMessage(field: field, reason: "not a \(pixelFormat == .png ? "PNG" : "JPEG") image of a picture's size (format '\(format)')")
        }
        return Frame(timestamp: time, sequence: 0, width: size.width, height: size.height, pixelFormat: pixelFormat, bytesPerRow: 0, storage: .bytes(data))
    }

    /// Raw pixels in a ROS or Foxglove encoding name (`rgb8`, `bgr8`, `mono8`, `yuv422_yuy2` or `yuyv`) as a frame
    /// at `time`, their rows checked; an encoding with no HAL pixel format is ``RecordingImportFailure/unsupported(_:)``.
    static func rawFrame(_ data: [UInt8], width: Int, height: Int, step: Int, encoding: String, at time: Timestamp) throws(RecordingImportFailure) -> Frame {
        let formats: [String: PixelFormat] = ["rgb8": .rgb24, "bgr8": .bgr24, "mono8": .grey, "yuv422_yuy2": .yuyv, "yuyv": .yuyv]
        guard let format = formats[encoding] else {
            throw .unsupported("its image encoding '\(encoding)' has no HAL pixel format (rgb8, bgr8, mono8 and yuv422_yuy2 do)")
        }
        let bytesPerPixel = format == .grey ? 1 : format == .yuyv ? 2 : 3
        guard (1...largestSide).contains(width), (1...largestSide).contains(height) else {
            throw .badMessage(field: "width", reason: "\(width)×\(height) is not a picture size (1 to \(largestSide) a side)")
        }
        guard step >= width * bytesPerPixel else {
            throw .badMessage(field: "step", reason: "\(step) bytes a row is short of \(width) pixels of \(bytesPerPixel) bytes")
        }
        let frame = Frame(timestamp: time, sequence: 0, width: width, height: height, pixelFormat: format, bytesPerRow: step, storage: .bytes(data))
        // The rows' bytes (with the product's overflow) are checked as every in-memory frame's are.
        if let damage = frame.damage { throw .badMessage(field: "data", reason: damage) }
        return frame
    }
}
