import Foundation
import HAL
import MCAP
import TraceFormat
import TestSupport
import Testing
import TraceMCAP

/// HAL traces in MCAP: every kind written in Foxglove's schemas or ours and read back to the bit, JSON Lines → MCAP
/// → JSON Lines giving the same bytes, the files read by PyPI `mcap` with `mcap-protobuf-support`
/// (Fixtures/mcap_trace_peer.py), seeking through the chunk index, and bad files refused with the records before
/// the damage kept.
@Suite struct MCAPTraceTests {
    /// MCAP traces are read through the registered container, as `hal` registers it.
    init() { TraceContainers.register(MCAPTraceContainer()) }

    static let peer = mcapTracePeer
    static let png = packageRoot + "/traces/fieldguide/frames/cam-00.png"

    /// A trace with every kind the package has: each built-in kind, a registered one (pressure), frames in every
    /// pixel format, and the values that are easiest to lose (-0.0, the smallest subnormal, the largest double).
    static func everyKind(in folder: String) throws -> String {
        let path = folder + "/every.jsonl"
        let channels = [
            TraceChannel(id: "gyro", kind: .gyroscope, source: "sim:x#gyro", rate: 200, name: "BMI160 gyro", backend: "sim", range: 34.9, resolution: 0.0011),
            TraceChannel(id: "accel", kind: .accelerometer, source: "sim:x#accel"),
            TraceChannel(id: "mag", kind: .magnetometer, source: "sim:x#mag"),
            TraceChannel(id: "att", kind: .attitude, source: "fusion", frame: .ned),
            TraceChannel(id: "touch", kind: .pointer, source: "evdev:/dev/input/event3"),
            TraceChannel(id: "keys", kind: .keys, source: "evdev:/dev/input/event4"),
            TraceChannel(id: "gps", kind: .location, source: "gpsd:localhost"),
            TraceChannel(id: "cam", kind: .camera, source: "v4l2:/dev/video0"),
            TraceChannel(id: "face", kind: .expression, source: "expressions:cam"),
            TraceChannel(id: "speaker", kind: .speaker, source: "alsa:default"),
            TraceChannel(id: "app", kind: .app, source: "app:trainer"),
            TraceChannel(id: "baro", kind: .pressure, source: "iio:device0"),
            TraceChannel(id: "idle", kind: .gyroscope, source: "sim:x#idle"),
        ]
        let writer = try TraceWriter(path: path, header: TraceHeader(channels: channels, metadata: ["title": "every kind", "recorded-by": "MCAPTraceTests"]))
        func t(_ ms: Int64) -> Timestamp { Timestamp(nanoseconds: 1_000_000_000 + ms * 1_000_000) }
        let hard: [Double] = [-0.0, .leastNonzeroMagnitude, 1.7976931348623157e308, -2.2250738585072014e-308, 0.1, 1 / 3.0]
        for i in 0..<12 {
            let v = Vector3(x: hard[i % 6], y: hard[(i + 1) % 6], z: Double(i) * 1e-7)
            try writer.write(.motion(MotionSample(timestamp: t(Int64(i)), quantity: .angularVelocity, value: v)), channel: "gyro")
            try writer.write(.motion(MotionSample(timestamp: t(Int64(i)), quantity: .acceleration, value: Vector3(x: 0, y: 9.80665, z: -v.z))), channel: "accel")
            try writer.write(.motion(MotionSample(timestamp: t(Int64(i)), quantity: .magneticField, value: Vector3(x: 22.5, y: -4, z: 41.25))), channel: "mag")
        }
        try writer.write(.attitude(AttitudeSample(timestamp: t(1), quaternion: Quaternion(axis: Vector3(x: 0, y: 0, z: 1), angle: 0.3), frame: .ned)), channel: "att")
        try writer.write(.attitude(AttitudeSample(timestamp: t(2), quaternion: Quaternion(w: 1, x: 0, y: 0, z: 0), frame: .ned, headingAccuracy: 0.0872)), channel: "att")
        try writer.write(.pointer(PointerEvent(timestamp: t(3), pointer: 1, phase: .press, x: 0.25, y: 0.75)), channel: "touch")
        try writer.write(.pointer(PointerEvent(timestamp: t(4), pointer: 1, phase: .release, x: 0.25, y: -0.0)), channel: "touch")
        try writer.write(.key(KeyEvent(timestamp: t(3), code: 212, state: .press)), channel: "keys")
        try writer.write(.key(KeyEvent(timestamp: t(5), code: 212, state: .repeat)), channel: "keys")
        try writer.write(.location(LocationFix(timestamp: t(1), mode: .none, coordinate: nil)), channel: "gps")
        try writer.write(.location(LocationFix(timestamp: t(2), utcNanoseconds: 1_700_000_000_123_456_789, mode: .twoDimensional, coordinate: GeoCoordinate(latitude: 49.2606, longitude: -123.246))), channel: "gps")
        try writer.write(.location(LocationFix(
            timestamp: t(3), utcNanoseconds: 1_700_000_001_000_000_000, mode: .threeDimensional,
            coordinate: GeoCoordinate(latitude: -33.8688, longitude: 151.2093), altitude: 58.25, horizontalAccuracy: 3.5,
            verticalAccuracy: 6.125, speed: 1.4, course: 359.9, satellites: 11)), channel: "gps")
        let image = try TracePath.readFileForTests(png)
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9]
        let formats: [(PixelFormat, Int, Int, [UInt8])] = [
            (.yuyv, 4, 2, Array(0..<16)), (.grey, 3, 2, [1, 2, 3, 4, 5, 6]), (.nv12, 2, 2, [9, 8, 7, 6, 5, 4]),
            (.rgb24, 1, 2, [1, 2, 3, 4, 5, 6]), (.bgr24, 1, 1, [3, 2, 1]), (.mjpeg, 640, 480, jpeg), (.png, 160, 120, image),
        ]
        for (index, (format, width, height, bytes)) in formats.enumerated() {
            let stride = format.isCompressed ? 0 : width * (format == .yuyv ? 2 : format == .rgb24 || format == .bgr24 ? 3 : 1)
            try writer.write(.frame(Frame(
                timestamp: t(Int64(index)), sequence: UInt64(index * 2), width: width, height: height, pixelFormat: format,
                bytesPerRow: stride, storage: .bytes(bytes))), channel: "cam")
        }
        try writer.write(.expression(.noFace(at: t(1))), channel: "face")
        try writer.write(.expression(ExpressionReading(timestamp: t(2), face: FaceBox(x: 270, y: 150, width: 110, height: 112), scores: ExpressionScores(peak: .happy, score: 0.8125))), channel: "face")
        try writer.write(.expression(ExpressionReading(timestamp: t(3), face: FaceBox(x: 10, y: 20, width: 30, height: 40), scores: ExpressionScores(peak: .sad, score: 0.5), faceID: 7, rank: 1, faceCount: 3)), channel: "face")
        try writer.write(.playback(PlaybackEvent(timestamp: t(1), phase: .started, item: .clip(name: "door-creak.wav"), requested: t(0), gain: -7.25)), channel: "speaker")
        try writer.write(.playback(PlaybackEvent(timestamp: t(2), phase: .finished, item: .speech(text: "Well done, \"Kai\"!\n", voice: "en-gb"))), channel: "speaker")
        try writer.write(.appEvent(AppEvent(timestamp: t(1), name: "session.started")), channel: "app")
        try writer.write(.appEvent(AppEvent(timestamp: t(2), name: "answer", attributes: [
            "correct": .bool(true), "score": .int(-3), "time": .double(1.25), "word": .string("ça {va} \"oui\""),
        ])), channel: "app")
        try writer.write(ScalarSample(timestamp: t(2), kind: .pressure, value: 101_325.5).reading, channel: "baro")
        try writer.close()
        return path
    }

    /// The JSON Lines header line of a trace with `channels`, as the `hal-trace` Metadata record holds it.
    static func headerLine(_ channels: [TraceChannel]) throws -> String {
        String(decoding: try TraceEncoder(header: TraceHeader(channels: channels)).encodeHeader().dropLast(), as: UTF8.self)
    }

    /// An MCAP writer at `path` whose file starts as a HAL trace with `channels` does (the `hal` profile and the
    /// `hal-trace` header), for a test to add schemas, channels and messages of its own making.
    static func handMadeTrace(_ path: String, channels: [TraceChannel]) throws -> MCAPWriter {
        var options = MCAPWriter.Options()
        options.profile = "hal"
        let writer = try MCAPWriter(path: path, options: options)
        try writer.addMetadata(MCAPMetadata(name: "hal-trace", values: ["header": try headerLine(channels)]))
        return writer
    }

    /// Converts `path` to `output` as `hal convert` does.
    static func convert(_ path: String, _ output: String, compression: MCAPCompression = .lz4) throws {
        let (trace, framePaths) = try TraceConversion.read(path)
        let sink = try TraceFiles.makeWriter(path: output, header: trace.header, durability: .buffered, compression: compression, frameFolderOf: path)
        try TraceConversion.write(trace, framePaths: framePaths, to: sink)
    }

    @Test(arguments: [MCAPCompression.zstd, .lz4, .none])
    func jsonLinesToMCAPAndBackGivesTheSameBytes(compression: MCAPCompression) throws {
        let folder = try makeScratchFolder()
        let original = try Self.everyKind(in: folder)
        try FileManager.default.createDirectory(atPath: folder + "/back", withIntermediateDirectories: true)
        try Self.convert(original, folder + "/every.mcap", compression: compression)
        try Self.convert(folder + "/every.mcap", folder + "/back/every.jsonl")
        let before = try Data(contentsOf: URL(fileURLWithPath: original))
        let after = try Data(contentsOf: URL(fileURLWithPath: folder + "/back/every.jsonl"))
        #expect(before == after, "\(String(decoding: after, as: UTF8.self))")
        // And the frame files, byte for byte, under the same names.
        let frames = try FileManager.default.contentsOfDirectory(atPath: folder + "/every.frames").sorted()
        #expect(frames.count == 7)
        for name in frames {
            let a = try Data(contentsOf: URL(fileURLWithPath: folder + "/every.frames/" + name))
            let b = try Data(contentsOf: URL(fileURLWithPath: folder + "/back/every.frames/" + name))
            #expect(a == b, "\(name)")
        }
        // The trace in memory is the same as JSON Lines gives it, but for frames, which MCAP holds in memory.
        let fromJSON = try Trace.load(path: original)
        let fromMCAP = try Trace.load(path: folder + "/every.mcap")
        #expect(fromMCAP.truncation == nil)
        #expect(fromMCAP.header == fromJSON.header)
        #expect(fromMCAP.records.count == fromJSON.records.count)
        for (a, b) in zip(fromMCAP.records, fromJSON.records) {
            if case .frame(let frame) = a.reading {
                guard case .frame(let other) = b.reading else { Issue.record("\(b) is not a frame"); continue }
                guard case .bytes(let pixels) = frame.storage, case .file(let file) = other.storage else { Issue.record("storage"); continue }
                #expect(pixels == (try TracePath.readFileForTests(folder + "/" + file)))
                #expect(frame.width == other.width && frame.pixelFormat == other.pixelFormat && frame.sequence == other.sequence)
            } else {
                #expect(a == b)
            }
        }
    }

    @Test func pypiMCAPDecodesEveryMessageAndFoxglovesSchemasAreFoxglovesOwn() async throws {
        let folder = try makeScratchFolder()
        let original = try Self.everyKind(in: folder)
        try Self.convert(original, folder + "/every.mcap")
        // Compare with the trace whose frames are files, as the MCAP file names them.
        let decode = try await runProcess("/usr/bin/env", ["python3", Self.peer, "decode", folder + "/every.mcap", original], timeout: 120)
        #expect(decode.status == 0, "\(decode.output)")
        for line in ["foxglove.CompressedImage 2", "foxglove.LocationFix 3", "foxglove.Log 2", "foxglove.PoseInFrame 2",
                     "foxglove.RawImage 5", "hal.ExpressionReading 3", "hal.KeyEvent 2", "hal.MotionSample 36",
                     "hal.PlaybackEvent 2", "hal.PointerEvent 2", "pressure 1"] {
            #expect(decode.output.contains(line + "\n"), "\(line) in \(decode.output)")
        }
        let schemas = try await runProcess("/usr/bin/env", ["python3", Self.peer, "schemas", folder + "/every.mcap"], timeout: 120)
        #expect(schemas.status == 0 && schemas.output.contains("match: Color CompressedImage KeyValuePair LocationFix Log Pose PoseInFrame Quaternion RawImage Vector3\n"), "\(schemas.output)")
    }

    /// A HAL trace written by another implementation: PyPI `mcap`'s Writer, with every message serialised by
    /// Python's protobuf, which leaves zeros out and may lay fields out otherwise; read back, it is the same trace.
    @Test func aTraceWrittenByPyPIMCAPIsReadToTheSameBytes() async throws {
        let folder = try makeScratchFolder()
        let original = try Self.everyKind(in: folder)
        try Self.convert(original, folder + "/every.mcap")
        let run = try await runProcess("/usr/bin/env", ["python3", Self.peer, "rewrite", folder + "/every.mcap", folder + "/python.mcap"], timeout: 120)
        try #require(run.status == 0, "\(run.output)")
        let python = try Trace.load(path: folder + "/python.mcap")
        #expect(python.truncation == nil, "\(String(describing: python.truncation))")
        try FileManager.default.createDirectory(atPath: folder + "/back", withIntermediateDirectories: true)
        try Self.convert(folder + "/python.mcap", folder + "/back/every.jsonl")
        let before = try String(contentsOfFile: original, encoding: .utf8)
        let after = try String(contentsOfFile: folder + "/back/every.jsonl", encoding: .utf8)
        #expect(before == after)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder + "/every.frames") {
            #expect(try TracePath.readFileForTests(folder + "/every.frames/" + name) == (try TracePath.readFileForTests(folder + "/back/every.frames/" + name)))
        }
    }

    @Test func theCommittedDescriptorsAreWhatProtocMakesOfTheSchemas() async throws {
        let run = try await runProcess(packageRoot + "/scripts/gen-trace-schemas", ["--check"], timeout: 60)
        #expect(run.status == 0, "\(run.output)")
    }

    @Test func aRecordTheJSONLinesTraceRefusesIsRefusedInMCAPWithTheSameWords() throws {
        let folder = try makeScratchFolder()
        let header = TraceHeader(channels: [TraceChannel(id: "gyro", kind: .gyroscope, source: "x"), TraceChannel(id: "gps", kind: .location, source: "x")])
        let writer = try MCAPTraceWriter(path: folder + "/bad.mcap", header: header)
        let jsonLines = try TraceWriter(path: folder + "/bad.jsonl", header: header)
        /// The error each writer gives for `record`, without the file and place.
        func refusals(_ record: TraceRecord) -> (mcap: TraceError?, jsonLines: TraceError?) {
            func error(_ body: () throws(TraceError) -> Void) -> TraceError? {
                do { try body() } catch { return error }
                return nil
            }
            return (error { () throws(TraceError) in try writer.write(record) }, error { () throws(TraceError) in try jsonLines.write(record) })
        }
        for record in [
            TraceRecord(channel: 0, reading: .motion(MotionSample(timestamp: .zero, quantity: .angularVelocity, value: Vector3(x: 0, y: .nan, z: 0)))),
            TraceRecord(channel: 1, reading: .motion(MotionSample(timestamp: .zero, quantity: .angularVelocity, value: Vector3(x: 0, y: 0, z: 0)))),
            TraceRecord(channel: 2, reading: .key(KeyEvent(timestamp: .zero, code: 1, state: .press))),
        ] {
            let (mcap, json) = refusals(record)
            #expect(mcap != nil && mcap?.kind == json?.kind && mcap?.field == json?.field, "\(String(describing: mcap)) / \(String(describing: json))")
            #expect(mcap.map { $0.message.hasSuffix(json?.message ?? "?") } == true, "\(String(describing: mcap)) / \(String(describing: json))")
        }
        do {
            try writer.write(TraceRecord(channel: 1, reading: .location(LocationFix(timestamp: .zero, mode: .threeDimensional, coordinate: nil))))
            Issue.record("a 3D fix with no coordinates was written")
        } catch {
            #expect(error.field == "lat" && error.description.contains("bad.mcap") && error.message.contains("needs coordinates"), "\(error)")
        }
        do {
            try writer.write(TraceRecord(channel: 0, reading: .motion(MotionSample(timestamp: Timestamp(nanoseconds: -1), quantity: .angularVelocity, value: Vector3(x: 0, y: 0, z: 0)))))
            Issue.record("a time before zero was written")
        } catch {
            #expect(error.field == "t" && error.message.contains("unsigned"), "\(error)")
        }
        let first = TraceRecord(channel: 0, reading: .motion(MotionSample(timestamp: Timestamp(nanoseconds: 5), quantity: .angularVelocity, value: Vector3(x: 1, y: 2, z: 3))))
        try writer.write(first)
        try jsonLines.write(first)
        let (mcap, json) = refusals(TraceRecord(channel: 0, reading: .motion(MotionSample(timestamp: Timestamp(nanoseconds: 4), quantity: .angularVelocity, value: Vector3(x: 1, y: 2, z: 3)))))
        #expect(mcap?.kind == .timestampBackwards && json?.kind == .timestampBackwards && mcap.map { $0.message.hasSuffix(json?.message ?? "?") } == true)
        try writer.close()
        try jsonLines.close()
        // What was refused is not in the file; what was taken is.
        let trace = try Trace.load(path: folder + "/bad.mcap")
        #expect(trace.records.count == 1 && trace.truncation == nil)
    }

    /// A trace of `count` gyroscope samples at 1 kHz, and an accelerometer sample after every tenth, as MCAP.
    static func gyroTrace(_ path: String, count: Int) throws {
        let header = TraceHeader(channels: [
            TraceChannel(id: "gyro", kind: .gyroscope, source: "sim", rate: 1000), TraceChannel(id: "accel", kind: .accelerometer, source: "sim", rate: 100),
        ])
        let writer = try MCAPTraceWriter(path: path, header: header, durability: .buffered)
        var random = SeededRandom(seed: 7)
        for i in 0..<count {
            let time = Timestamp(nanoseconds: Int64(i) * 1_000_000)
            let value = Vector3(x: random.unit() - 0.5, y: random.unit() - 0.5, z: Double(i))
            try writer.write(TraceRecord(channel: 0, reading: .motion(MotionSample(timestamp: time, quantity: .angularVelocity, value: value))))
            if i % 10 == 0 {
                try writer.write(TraceRecord(channel: 1, reading: .motion(MotionSample(timestamp: time, quantity: .acceleration, value: Vector3(x: 0, y: 9.8, z: Double(i))))))
            }
        }
        try writer.close()
    }

    @Test func seekingReadsOnlyTheChunksFromTheOffsetOn() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/long.mcap"
        try Self.gyroTrace(path, count: 400_000)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64)
        let whole = try MCAPTraceFile.load(path: path)
        // A whole read reads each byte once (the summary and the first block twice at most): a scan's next record
        // that starts inside the last block read is not read again.
        #expect(whole.trace.records.count == 440_000)
        #expect(whole.bytesRead >= size && whole.bytesRead < size + size / 10, "read \(whole.bytesRead) of \(size) bytes")
        let tail = try MCAPTraceFile.load(path: path, from: .seconds(390))
        // 10 s of 400 s: the one or two chunks that hold it (of about 23), the header, the summary and the footer.
        let chunks = try #require(try MCAPReader(path: path).summary()).chunkIndexes
        #expect(chunks.count > 20)
        #expect(tail.bytesRead < 3 * size / UInt64(chunks.count), "read \(tail.bytesRead) of \(size) bytes in \(chunks.count) chunks")
        // Both channels, merged in time, in the file's order among equal times.
        let expected = whole.trace.records.filter { $0.timestamp.nanoseconds >= 390_000_000_000 }
        #expect(tail.trace.records == expected && expected.count == 11_000)
        // Trace.load(path:from:) is the same for both containers.
        #expect(try Trace.load(path: path, from: .seconds(390)).records == expected)
    }

    @Test func aRecordingCutShortKeepsTheRecordsBeforeTheCut() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/cut.mcap"
        try Self.gyroTrace(path, count: 100_000)
        let bytes = try TracePath.readFileForTests(path)
        let whole = try Trace.load(path: path).records
        // Cut in the middle of the data: no summary, a chunk cut short.
        let cutPath = folder + "/cut-half.mcap"
        try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: cutPath))
        let cut = try Trace.load(path: cutPath)
        let truncation = try #require(cut.truncation)
        #expect(truncation.kind == .badContainer && truncation.message.contains("byte "), "\(truncation)")
        #expect(cut.records.count > 10_000 && cut.records.count < 110_000)
        #expect(cut.records == Array(whole.prefix(cut.records.count)))
    }

    /// A recording killed after a flush: every channel is in the header, the ones with no record yet too, and every
    /// record flushed is read, with the cut said as a truncation.
    @Test func aRecordingKilledAfterAFlushKeepsItsWholeHeaderAndEveryFlushedRecord() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/killed.mcap"
        let header = TraceHeader(channels: [
            TraceChannel(id: "gyro", kind: .gyroscope, source: "x"), TraceChannel(id: "keys", kind: .keys, source: "x"),
            TraceChannel(id: "cam", kind: .camera, source: "x"),
        ])
        let writer = try MCAPTraceWriter(path: path, header: header)
        for i in 0..<500 {
            try writer.write(TraceRecord(channel: 0, reading: .motion(MotionSample(timestamp: Timestamp(nanoseconds: Int64(i) * 1_000_000), quantity: .angularVelocity, value: Vector3(x: Double(i), y: 0, z: 0)))))
        }
        try writer.flush()
        // The file as a kill -9 leaves it: what was flushed, no summary.
        let cut = folder + "/cut.mcap"
        try FileManager.default.copyItem(atPath: path, toPath: cut)
        try writer.close()
        let trace = try Trace.load(path: cut)
        #expect(trace.header.channels.map(\.id) == ["gyro", "keys", "cam"])
        #expect(trace.records.count == 500)
        let truncation = try #require(trace.truncation)
        #expect(truncation.kind == .truncated && truncation.message.contains("500 records"), "\(truncation)")
    }

    /// A number a trace cannot hold, in a message another writer made, is refused naming its field.
    @Test func aNonFiniteNumberInAMessageIsNamedByItsField() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/inf.mcap"
        let writer = try Self.handMadeTrace(path, channels: [TraceChannel(id: "touch", kind: .pointer, source: "x")])
        let pointerSchema = try writer.addSchema(name: "hal.PointerEvent", encoding: "protobuf", data: [])
        let channel = try writer.addChannel(topic: "touch", messageEncoding: "protobuf", schemaID: pointerSchema, metadata: ["index": "0", "kind": "pointer", "source": "x", "units": "normalized"])
        // phase "press", pointer 0, x = +infinity, y = 1.
        var data: [UInt8] = [0x0A, 5] + Array("press".utf8) + [0x10, 0, 0x19]
        data += withUnsafeBytes(of: Double.infinity.bitPattern.littleEndian, Array.init)
        data += [0x21] + withUnsafeBytes(of: (1.0).bitPattern.littleEndian, Array.init)
        try writer.add(MCAPMessage(channelID: channel, logTime: 5, data: data))
        try writer.finish()
        let trace = try Trace.load(path: path)
        let error = try #require(trace.truncation)
        #expect(error.field == "x" && error.message.contains("inf is not a finite number") && error.message.contains("byte "), "\(error)")
    }

    @Test func aFrameNameThatIsATraceOrUsedTwiceIsRefused() throws {
        let folder = try makeScratchFolder()
        let header = TraceHeader(channels: [TraceChannel(id: "cam", kind: .camera, source: "x")])
        let writer = try TraceWriter(path: folder + "/out.jsonl", header: header)
        func frame(_ sequence: UInt64) -> TraceRecord {
            TraceRecord(channel: 0, reading: .frame(Frame(
                timestamp: Timestamp(nanoseconds: Int64(sequence)), sequence: sequence, width: 1, height: 1, pixelFormat: .grey,
                bytesPerRow: 1, storage: .bytes([7]))))
        }
        #expect(throws: TraceError.self) { try writer.write(frame(0), savingFrameAs: "out.jsonl") }
        #expect(throws: TraceError.self) { try writer.write(frame(0), savingFrameAs: "../x.raw") }
        try writer.write(frame(0), savingFrameAs: "frames/a.raw")
        #expect(throws: TraceError.self) { try writer.write(frame(1).withPixels([8]), savingFrameAs: "frames/a.raw") }
        // The same pixels may share a file, as in JSON Lines.
        try writer.write(frame(2).withPixels([7]), savingFrameAs: "frames/a.raw")
        try writer.close()
        #expect(try Trace.load(path: folder + "/out.jsonl").records.count == 2)
        // The refused records left no file behind, and the trace is not overwritten.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["frames", "out.jsonl"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/frames") == ["a.raw"])
    }

    /// JSON Lines into another folder takes its frame files along; MCAP to MCAP keeps their names.
    @Test func conversionsKeepFrameFilesWhereverTheyGo() throws {
        let folder = try makeScratchFolder()
        let original = try Self.everyKind(in: folder)
        try FileManager.default.createDirectory(atPath: folder + "/elsewhere", withIntermediateDirectories: true)
        try Self.convert(original, folder + "/elsewhere/copy.jsonl")
        #expect(try String(contentsOfFile: original, encoding: .utf8) == (try String(contentsOfFile: folder + "/elsewhere/copy.jsonl", encoding: .utf8)))
        for name in try FileManager.default.contentsOfDirectory(atPath: folder + "/every.frames") {
            #expect(try TracePath.readFileForTests(folder + "/every.frames/" + name) == (try TracePath.readFileForTests(folder + "/elsewhere/every.frames/" + name)))
        }
        try Self.convert(original, folder + "/a.mcap")
        try Self.convert(folder + "/a.mcap", folder + "/b.mcap")
        try FileManager.default.createDirectory(atPath: folder + "/back", withIntermediateDirectories: true)
        try Self.convert(folder + "/b.mcap", folder + "/back/every.jsonl")
        #expect(try String(contentsOfFile: original, encoding: .utf8) == (try String(contentsOfFile: folder + "/back/every.jsonl", encoding: .utf8)))
    }

    @Test func aDamagedMessageIsNamedByItsByteAndField() throws {
        // A pointer event whose phase is not one: the JSON Lines decoder's words, with the message's place.
        let folder = try makeScratchFolder()
        let path = folder + "/phase.mcap"
        let header = TraceHeader(channels: [TraceChannel(id: "touch", kind: .pointer, source: "x")])
        let writer = try MCAPTraceWriter(path: path, header: header)
        try writer.write(TraceRecord(channel: 0, reading: .pointer(PointerEvent(timestamp: Timestamp(nanoseconds: 1), phase: .press, x: 1, y: 2))))
        try writer.write(TraceRecord(channel: 0, reading: .pointer(PointerEvent(timestamp: Timestamp(nanoseconds: 2), phase: .press, x: 1, y: 2))))
        try writer.close()
        var bytes = try TracePath.readFileForTests(path)
        // The chunks are compressed: rewrite the file with its second phase changed.
        let file = try MCAPTraceFile.load(path: path)
        #expect(file.trace.records.count == 2)
        let mcap = MCAPWriter(options: { var o = MCAPWriter.Options(); o.profile = "hal"; return o }())
        let reader = MCAPReader(bytes: bytes, name: path)
        var channelMap: [UInt16: UInt16] = [:]
        try reader.scan { record in
            switch record {
            case .metadata(let metadata): try mcap.addMetadata(metadata)
            case .schema(let schema): _ = try mcap.addSchema(name: schema.name, encoding: schema.encoding, data: schema.data)
            case .channel(let channel):
                channelMap[channel.id] = try mcap.addChannel(topic: channel.topic, messageEncoding: channel.messageEncoding, schemaID: channel.schemaID, metadata: channel.metadata)
            case .message(var message, let channel):
                if message.logTime == 2 { message.data = message.data.map { $0 == UInt8(ascii: "p") ? UInt8(ascii: "q") : $0 } }
                message.channelID = channelMap[channel.id]!
                try mcap.add(message)
            default: break
            }
        }
        try mcap.finish()
        bytes = mcap.bytes
        let bad = try MCAPTraceFile.decode(bytes, file: "phase.mcap")
        #expect(bad.trace.records.count == 1)
        let error = try #require(bad.trace.truncation)
        #expect(error.field == "phase" && error.description.contains("phase.mcap") && error.message.contains("byte "), "\(error)")
        #expect(error.message.contains("'qress'"), "\(error)")
    }

    @Test func aChannelInTheWrongSchemaIsRefused() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/schema.mcap"
        let writer = try Self.handMadeTrace(path, channels: [TraceChannel(id: "gyro", kind: .gyroscope, source: "x")])
        let schema = try writer.addSchema(name: "foxglove.Log", encoding: "protobuf", data: [])
        _ = try writer.addChannel(topic: "gyro", messageEncoding: "protobuf", schemaID: schema, metadata: ["index": "0", "kind": "gyroscope", "source": "x", "units": "rad/s"])
        try writer.finish()
        do {
            _ = try Trace.load(path: path)
            Issue.record("a gyroscope channel in foxglove.Log was read")
        } catch {
            #expect(error.kind == .badHeader && error.message.contains("hal.MotionSample"), "\(error)")
        }
    }
}

extension TracePath {
    /// A whole file's bytes.
    static func readFileForTests(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

extension TraceRecord {
    /// The record's frame with `pixels` in memory.
    func withPixels(_ pixels: [UInt8]) -> TraceRecord {
        guard case .frame(var frame) = reading else { return self }
        frame.storage = .bytes(pixels)
        return TraceRecord(channel: channel, reading: .frame(frame))
    }
}
