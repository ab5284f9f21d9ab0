import Foundation
import HAL
import TraceFormat
import TestSupport
import Testing

@Suite struct TraceRoundTripTests {
    /// One record of every kind, with optional fields both present and absent.
    static let records: [TraceRecord] = {
        func on(_ kind: DeviceKind, _ reading: Reading) -> TraceRecord {
            TraceRecord(channel: packageKinds.firstIndex(of: kind)!, reading: reading)
        }
        return [
            on(.gyroscope, .motion(MotionSample(timestamp: ts(1_000), quantity: .angularVelocity, value: Vector3(x: 0.1, y: -2.5e-7, z: 3.141592653589793)))),
            on(.accelerometer, .motion(MotionSample(timestamp: ts(1_000), quantity: .acceleration, value: Vector3(x: 0, y: 9.80665, z: -0.0)))),
            on(.magnetometer, .motion(MotionSample(timestamp: ts(2_000), quantity: .magneticField, value: Vector3(x: 22.5, y: 5.25e-300, z: -41.000000000000014)))),
            on(.attitude, .attitude(AttitudeSample(timestamp: ts(2_100), quaternion: Quaternion(axis: Vector3(x: 1, y: 2, z: 3), angle: 0.7), frame: .enu))),
            on(.attitude, .attitude(AttitudeSample(timestamp: ts(2_200), quaternion: .identity, frame: .enu, headingAccuracy: 2.5))),
            on(.pointer, .pointer(PointerEvent(timestamp: ts(2_500), pointer: 1, phase: .move, x: 0.25, y: 0.75))),
            on(.keys, .key(KeyEvent(timestamp: ts(3_000), code: 28, state: .repeat))),
            on(.location, .location(LocationFix(
                timestamp: ts(4_000), utcNanoseconds: 1_795_000_000_250_000_000, mode: .threeDimensional,
                coordinate: GeoCoordinate(latitude: 49.26765, longitude: -123.25293), altitude: 78.5,
                horizontalAccuracy: 3.2, verticalAccuracy: 5.0, speed: 1.4, course: 359.9, satellites: 9))),
            on(.location, .location(LocationFix(timestamp: ts(4_000), mode: .twoDimensional, coordinate: GeoCoordinate(latitude: -33.9, longitude: 151.2)))),
            on(.location, .location(.noFix(at: ts(5_000), utcNanoseconds: 1_795_000_001_000_000_123))),
            on(.camera, .frame(Frame(timestamp: ts(6_000), sequence: 41, width: 640, height: 480, pixelFormat: .mjpeg, bytesPerRow: 0, storage: .file(path: "frames/cam-41.jpg")))),
            on(.camera, .frame(Frame(timestamp: ts(6_100), sequence: 42, width: 320, height: 240, pixelFormat: .grey, bytesPerRow: 320, storage: .file(path: "./frames/../frames/cam-42.raw")))),
            on(.expression, .expression(ExpressionReading(
                timestamp: ts(7_000), face: FaceBox(x: 177, y: 66, width: 95, height: 95),
                scores: ExpressionScores([0.001, 0, 0.002, 0.98, 0.007, 0.005, 0.005])!))),
            on(.expression, .expression(ExpressionReading(
                timestamp: ts(7_200), face: FaceBox(x: 400, y: 60, width: 80, height: 80),
                scores: ExpressionScores([0.1, 0, 0.1, 0.5, 0.1, 0.1, 0.1])!, faceID: 3, rank: 0, faceCount: 2))),
            on(.expression, .expression(ExpressionReading(
                timestamp: ts(7_200), face: FaceBox(x: 17, y: 6, width: 60, height: 60),
                scores: ExpressionScores([0.1, 0, 0.1, 0.5, 0.1, 0.1, 0.1])!, faceID: 1, rank: 1, faceCount: 2))),
            on(.expression, .expression(.noFace(at: ts(7_500)))),
            on(.speaker, .playback(PlaybackEvent(timestamp: ts(8_000), phase: .started, item: .speech(text: "I see \"ice cream\"\n", voice: "en"), requested: ts(7_900), gain: -3.5))),
            on(.speaker, .playback(PlaybackEvent(timestamp: ts(8_500), phase: .paused, item: .clip(name: "door-créak.wav")))),
            on(.app, .appEvent(AppEvent(timestamp: ts(9_000), name: "hotspot.opened", attributes: [
                "hotspot": .string("speaker-1"), "count": .int(-3), "yaw": .double(12.0), "done": .bool(true),
            ]))),
            on(.app, .appEvent(AppEvent(timestamp: ts(9_000), name: "panorama.entered"))),
            on(.pressure, ScalarSample(timestamp: ts(9_500), kind: .pressure, value: 101_325.25).reading),
            on(.temperature, ScalarSample(timestamp: ts(9_500), kind: .temperature, value: -12.5).reading),
            on(.humidity, ScalarSample(timestamp: ts(9_600), kind: .humidity, value: 45.123).reading),
            on(.illuminance, ScalarSample(timestamp: ts(9_700), kind: .illuminance, value: 300).reading),
            on(.proximity, ScalarSample(timestamp: ts(9_800), kind: .proximity, value: 17).reading),
        ]
    }()

    @Test func everyKindRoundTripsExactly() throws {
        let trace = Trace(header: everyKindHeader, records: Self.records)
        let bytes = try trace.encoded()
        let decoded = try Trace.decode(bytes)
        #expect(decoded.header == everyKindHeader)
        #expect(decoded.records == Self.records)
        #expect(decoded.truncation == nil)
        #expect(try decoded.encoded() == bytes)
    }

    @Test func eachKindRoundTripsOnItsOwn() throws {
        for record in Self.records {
            let trace = Trace(header: everyKindHeader, records: [record])
            let decoded = try Trace.decode(try trace.encoded())
            #expect(decoded.records == [record], "\(record)")
        }
    }

    @Test func canonicalLinesAreCompactAndOrdered() throws {
        let lines = String(decoding: try Trace(header: everyKindHeader, records: Self.records).encoded(), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        #expect(lines[1] == #"{"t":1000,"ch":"gyroscope","v":[0.1,-2.5e-07,3.141592653589793]}"#)
        #expect(lines[5] == #"{"t":2200,"ch":"attitude","q":[1.0,0.0,0.0,0.0],"hacc":2.5}"#)
        #expect(lines[8] == #"{"t":4000,"ch":"location","mode":"3d","utc":"2026-11-18T11:06:40.250Z","lat":49.26765,"lon":-123.25293,"alt":78.5,"hacc":3.2,"vacc":5.0,"speed":1.4,"course":359.9,"sats":9}"#)
        #expect(lines[10] == #"{"t":5000,"ch":"location","mode":"none","utc":"2026-11-18T11:06:41.000000123Z"}"#)
        #expect(lines[14] == #"{"t":7200,"ch":"expression","face":[400,60,80,80],"scores":{"angry":0.1,"disgust":0.0,"fear":0.1,"happy":0.5,"sad":0.1,"surprise":0.1,"neutral":0.1},"id":3,"rank":0,"faces":2}"#)
        #expect(lines[19] == #"{"t":9000,"ch":"app","event":"hotspot.opened","data":{"count":-3,"done":true,"hotspot":"speaker-1","yaw":12.0}}"#)
    }

    @Test func shippedTraceRoundTripsByteForByte() throws {
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: shippedTracePath)))
        let trace = try Trace.load(path: shippedTracePath)
        #expect(trace.records.count == 4211)
        #expect(try trace.encoded() == original)
    }

    @Test func theWriterAndTheReaderAgreeOnAFile() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/every-kind.jsonl"
        let writer = try TraceWriter(path: path, header: everyKindHeader, durability: .buffered)
        for record in Self.records { try writer.write(record) }
        try writer.close()
        let read = try Trace.load(path: path)
        #expect(read.records == Self.records)
        #expect(writer.counts[packageKinds.firstIndex(of: .location)!] == 3)
    }

    @Test func theWriterSavesInMemoryFramesBesideTheTrace() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/camera.jsonl"
        let header = TraceHeader(channels: [TraceChannel(id: "cam", kind: .camera, source: "test:cam")])
        let pixels: [UInt8] = (0..<12).map { UInt8($0 * 20) }
        let writer = try TraceWriter(path: path, header: header)
        try writer.write(.frame(Frame(timestamp: ts(1), sequence: 7, width: 4, height: 3, pixelFormat: .grey, bytesPerRow: 4, storage: .bytes(pixels))), channel: "cam")
        try writer.close()
        let trace = try Trace.load(path: path)
        guard case .frame(let frame) = trace.records.first?.reading, case .file(let relative) = frame.storage else {
            Issue.record("no frame record")
            return
        }
        #expect(relative == "camera.frames/cam-7.raw")
        let saved = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TracePath.resolve(relative, inTraceAt: path))))
        #expect(saved == pixels)
    }

    @Test func theWriterRefusesWhatTheFormatCannotHold() throws {
        let folder = try makeScratchFolder()
        let writer = try TraceWriter(path: folder + "/bad.jsonl", header: everyKindHeader)
        let gyro = packageKinds.firstIndex(of: .gyroscope)!
        #expect(throws: TraceError.self) {
            try writer.write(TraceRecord(channel: gyro, reading: .motion(MotionSample(timestamp: ts(1), quantity: .angularVelocity, value: Vector3(x: .nan, y: 0, z: 0)))))
        }
        #expect(throws: TraceError.self) {
            try writer.write(TraceRecord(channel: gyro, reading: .motion(MotionSample(timestamp: ts(1), quantity: .acceleration, value: .zero))))
        }
        try writer.write(TraceRecord(channel: gyro, reading: .motion(MotionSample(timestamp: ts(10), quantity: .angularVelocity, value: .zero))))
        do {
            try writer.write(TraceRecord(channel: gyro, reading: .motion(MotionSample(timestamp: ts(9), quantity: .angularVelocity, value: .zero))))
            Issue.record("wrote a record going back in time")
        } catch {
            #expect(error.kind == .timestampBackwards)
            #expect(error.line == 3)
        }
        try writer.close()
        #expect(try Trace.load(path: folder + "/bad.jsonl").records.count == 1)
    }

    @Test func utcTimesRoundTripAcrossCalendarEdges() throws {
        let header = TraceHeader(channels: [TraceChannel(id: "gps", kind: .location, source: "test:gps")])
        let instants: [Int64] = [0, -1, 951_782_400_000_000_000, 4_107_542_399_999_999_999, 1_234_567_890_123_456_789, -86_400_000_000_001]
        let records = instants.enumerated().map { index, utc in
            TraceRecord(channel: 0, reading: .location(.noFix(at: ts(Int64(index)), utcNanoseconds: utc)))
        }
        let bytes = try Trace(header: header, records: records).encoded()
        #expect(try Trace.decode(bytes).records == records)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""utc":"2000-02-29T00:00:00Z""#))
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""utc":"1969-12-31T23:59:59.999999999Z""#))
    }
}
