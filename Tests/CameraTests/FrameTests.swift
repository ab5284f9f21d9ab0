import V4L2
import FrameSources
import Expressions
import Foundation
import HAL
import TraceFormat
import Testing
import TestSupport

/// Frame conversion through OpenCV, the file and pattern sources, and the camera commands.
@Suite struct FrameTests {
    static let bgrBars = TestPattern(kind: .bars, width: 64, height: 16, format: .bgr24).frame(0, at: .zero)

    static func bgrPixels(_ frame: Frame) throws -> [UInt8] { try CVImage(converting: frame, to: .bgr).pixels }

    @Test(arguments: [PixelFormat.yuyv, .nv12, .grey, .rgb24])
    func everyRawFormatConvertsBackToTheSamePicture(format: PixelFormat) async throws {
        let frame = TestPattern(kind: .bars, width: 64, height: 16, format: format).frame(0, at: .zero)
        let converted = try Self.bgrPixels(frame)
        let original = try Self.bgrPixels(Self.bgrBars)
        #expect(converted.count == original.count)
        if format == .grey {
            // Gray keeps the luma: compare with OpenCV's own BGR-to-gray of the original.
            let gray = try CVImage(converting: Self.bgrBars, to: .gray).pixels
            let back = try CVImage(converting: frame, to: .gray).pixels
            #expect(zip(gray, back).allSatisfy { abs(Int($0) - Int($1)) <= 2 })
        } else {
            // YUV rounding and 4:2:x chroma at bar edges: most pixels exact to a few levels.
            let close = zip(converted, original).filter { abs(Int($0) - Int($1)) <= 6 }.count
            #expect(Double(close) / Double(original.count) > 0.95, "\(close) of \(original.count) within 6")
        }
    }

    /// BT.601 limited range, the standard's own arithmetic in floating point: B, G, R.
    static func bt601(y: Int, u: Int, v: Int) -> [Double] {
        let luma = 1.164 * Double(y - 16), cb = Double(u - 128), cr = Double(v - 128)
        return [luma + 2.018 * cb, luma - 0.813 * cr - 0.391 * cb, luma + 1.596 * cr].map { min(255, max(0, $0)) }
    }

    /// Every (Y, U, V) on a grid through the YUYV and NV12 conversions: gray is the Y samples exactly, and BGR is
    /// BT.601 to within the rounding of libyuv's fixed-point rows.
    @Test func yuvFramesConvertToTheStandardsColoursAndTheirLuma() throws {
        let lumas = Array(stride(from: 16, through: 235, by: 7)), chromas = Array(stride(from: 16, through: 240, by: 8))
        let pairs = chromas.flatMap { u in chromas.map { v in (u, v) } }
        let width = 2 * lumas.count, height = pairs.count  // a row per (U, V); a pair of pixels per Y
        var yuyv: [UInt8] = [], planeY: [UInt8] = [], planeUV: [UInt8] = []
        for (u, v) in pairs {
            for y in lumas { yuyv += [UInt8(y), UInt8(u), UInt8(y), UInt8(v)] }
            planeY += lumas.flatMap { [UInt8($0), UInt8($0)] }
        }
        // NV12 shares a chroma sample between two rows: give each (U, V) row a twin.
        var nv12Y: [UInt8] = [], nv12: [UInt8] = []
        for (index, (u, v)) in pairs.enumerated() {
            let row = Array(planeY[(index * width)..<((index + 1) * width)])
            nv12Y += row + row
            planeUV += Array(repeating: [UInt8(u), UInt8(v)], count: width / 2).flatMap { $0 }
        }
        nv12 = nv12Y + planeUV
        let frames = [
            (Frame(timestamp: .zero, sequence: 0, width: width, height: height, pixelFormat: .yuyv, bytesPerRow: width * 2, storage: .bytes(yuyv)), 1),
            (Frame(timestamp: .zero, sequence: 0, width: width, height: 2 * height, pixelFormat: .nv12, bytesPerRow: width, storage: .bytes(nv12)), 2),
        ]
        for (frame, rowsPerPair) in frames {
            let gray = try CVImage(converting: frame, to: .gray)
            let grayPixels = gray.pixels, grayStride = gray.bytesPerRow
            let bgr = try CVImage(converting: frame, to: .bgr)
            let pixels = bgr.pixels, stride = bgr.bytesPerRow
            var worst = 0.0
            for (index, (u, v)) in pairs.enumerated() {
                for row in (index * rowsPerPair)..<((index + 1) * rowsPerPair) {
                    for (column, y) in lumas.flatMap({ [$0, $0] }).enumerated() {
                        #expect(grayPixels[row * grayStride + column] == UInt8(y))
                        let expected = Self.bt601(y: y, u: u, v: v)
                        for channel in 0..<3 {
                            worst = max(worst, abs(Double(pixels[row * stride + column * 3 + channel]) - expected[channel]))
                        }
                    }
                }
            }
            #expect(worst <= 3, "\(frame.pixelFormat): BGR is \(worst) levels from BT.601 at worst")
        }
        var odd = frames[0].0
        odd.width -= 1
        #expect(throws: CameraError.self) { try CVImage(converting: odd, to: .bgr) }
    }

    @Test func mjpegFramesDecodeAndACorruptOneIsAClearError() async throws {
        let jpeg = try CVImage(converting: Self.bgrBars, to: .bgr).encoded(as: ".jpg")
        let frame = Frame(timestamp: .zero, sequence: 1, width: 64, height: 16, pixelFormat: .mjpeg, bytesPerRow: 0, storage: .bytes(jpeg))
        let decoded = try CVImage(converting: frame, to: .bgr)
        #expect(decoded.width == 64 && decoded.height == 16 && decoded.channels == 3)
        var corrupt = frame
        corrupt.storage = .bytes(Array(jpeg.prefix(20)) + [UInt8](repeating: 0, count: 50))
        #expect(throws: CameraError.self) { try CVImage(converting: corrupt, to: .bgr) }
        var short = Self.bgrBars
        short.storage = .bytes([1, 2, 3])
        do {
            _ = try CVImage(converting: short, to: .gray)
            Issue.record("a short frame converted")
        } catch {
            #expect(error.description.contains("the frame is smaller than its width, height and stride say"))
        }
    }

    /// A camera that delivers the frames it was given.
    struct ListCamera: Camera {
        let info = DeviceInfo(uri: "test:list", name: "list", kind: .camera, backend: "test")
        let frames: [Frame]
        func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<Frame, any Error> {
            AsyncThrowingStream { continuation in
                for frame in frames { continuation.yield(frame) }
                continuation.finish()
            }
        }
    }

    @Test func theExpressionSensorSkipsACorruptFrameAndReadsTheFaces() async throws {
        let classifier = try ExpressionClassifier(files: .folder(packageRoot + "/models"))
        let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: packageRoot + "/models/astronaut.png")))
        let face = { (sequence: UInt64) in
            Frame(timestamp: Timestamp(nanoseconds: Int64(sequence)), sequence: sequence, width: 512, height: 512, pixelFormat: .png, bytesPerRow: 0, storage: .bytes(png))
        }
        var corrupt = face(1)
        corrupt.storage = .bytes(Array(png.prefix(100)))
        let camera = ListCamera(frames: [face(0), corrupt, face(2), Self.bgrBars])
        var readings: [ExpressionReading] = []
        for try await reading in CameraExpressionSensor(camera: camera, classifier: classifier, smoothing: 2).readings(buffering: .unbounded) {
            readings.append(reading)
        }
        #expect(readings.map(\.timestamp) == [Timestamp(nanoseconds: 0), Timestamp(nanoseconds: 2), .zero])
        #expect(readings.prefix(2).allSatisfy { $0.dominant == .happy })
        #expect(readings.last?.face == nil)
    }

    @Test func anImageFolderWithABrokenFileNamesIt() async throws {
        let folder = try makeScratchFolder()
        try FileManager.default.copyItem(atPath: packageRoot + "/models/astronaut.png", toPath: folder + "/1-astronaut.png")
        try Data([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]).write(to: URL(fileURLWithPath: folder + "/2-broken.png"))
        let camera = try ImagesCameraBackend().open(DeviceURI("images:\(folder)?rate=2")) as! FileCamera
        var frames: [Frame] = []
        do {
            for try await frame in camera.readings(buffering: .unbounded) { frames.append(frame) }
            Issue.record("the broken file was accepted")
        } catch {
            #expect("\(error)".contains("2-broken.png: not a readable image"), "\(error)")
        }
        #expect(frames.map(\.width) == [512])
    }

    @Test func patternsAreDeterministicAndScroll() {
        let pattern = TestPattern(kind: .checkers, width: 64, height: 64, format: .yuyv)
        #expect(pattern.frame(3, at: .zero) == pattern.frame(3, at: .zero))
        #expect(pattern.frame(3, at: .zero).storage != pattern.frame(4, at: .zero).storage)
        #expect(pattern.frame(0, at: .zero).bytesPerRow == 128)
    }

    @Test func halCameraRecordsFramesAsFilesBesideTheTraceAndGrabsThemBack() async throws {
        let folder = try makeScratchFolder()
        let record = try await runProcess(
            halExecutable, ["camera", "record", "pattern:bars?width=160&height=120&format=NV12", "-o", folder + "/cam.jsonl", "--frames", "4"], timeout: 60)
        #expect(record.status == 0, "\(record.output)")
        let trace = try Trace.load(path: folder + "/cam.jsonl")
        let frames = trace.records.compactMap { Frame($0.reading) }
        #expect(frames.map(\.sequence) == [0, 1, 2, 3])
        #expect(frames.allSatisfy { $0.pixelFormat == .png && $0.storage == .file(path: "cam.frames/camera-\($0.sequence).png") })
        let grab = try await runProcess(halExecutable, ["camera", "grab", "trace:\(folder)/cam.jsonl#camera", "-o", folder + "/back.png", "--skip", "1"], timeout: 60)
        #expect(grab.status == 0, "\(grab.output)")
        let back = try CVImage(path: folder + "/back.png", as: .bgr)
        let original = try CVImage(converting: TestPattern(kind: .bars, width: 160, height: 120, format: .bgr24).frame(1, at: .zero), to: .bgr)
        let close = zip(back.pixels, original.pixels).filter { abs(Int($0) - Int($1)) <= 6 }.count
        #expect(Double(close) / Double(original.pixels.count) > 0.95)
        let bad = try await runProcess(halExecutable, ["camera", "grab", "v4l2:/dev/video0?format=XYZ", "-o", folder + "/x.png"], timeout: 30)
        #expect(bad.status != 0)
        #expect(bad.output.contains("format=XYZ: expected YUYV, MJPG, GREY, NV12, RGB3 or BGR3"), "\(bad.output)")
    }
}

@Suite struct VideoFileTests {
    @Test func aVideoFileIsACameraAtItsFrameRate() async throws {
        let folder = try makeScratchFolder()
        let path = folder + "/bars.avi"
        do {
            let writer = try VideoWriter(path: path, framesPerSecond: 25, width: 160, height: 120)
            for index in 0..<10 {
                try writer.append(CVImage(converting: TestPattern(kind: .bars, width: 160, height: 120, format: .bgr24).frame(index, at: .zero), to: .bgr))
            }
        }
        let camera = try VideoCameraBackend().open(DeviceURI("video:\(path)")) as! FileCamera
        #expect(camera.rate == 25)
        var frames: [Frame] = []
        for try await frame in camera.readings(buffering: .unbounded) { frames.append(frame) }
        #expect(frames.count == 10)
        #expect(frames.map(\.sequence) == Array(0..<10))
        #expect(frames.last?.timestamp == Timestamp(nanoseconds: 360_000_000))
        #expect(frames.allSatisfy { $0.width == 160 && $0.height == 120 && $0.pixelFormat == .bgr24 })
        // Motion-JPEG is lossy: the bars come back close to what was written.
        let original = try CVImage(converting: TestPattern(kind: .bars, width: 160, height: 120, format: .bgr24).frame(3, at: .zero), to: .bgr).pixels
        let decoded = try CVImage(converting: frames[3], to: .bgr).pixels
        #expect(Double(zip(original, decoded).filter { abs(Int($0) - Int($1)) <= 16 }.count) / Double(original.count) > 0.9)
        #expect(throws: DeviceError.self) { try VideoCameraBackend().open(DeviceURI("video:\(folder)/missing.avi")) }
    }
}

/// How a capture counts the driver's sequence numbers: gaps, repeats, restarts and the 32-bit wrap.
@Suite struct SequenceCountTests {
    static func counts(_ sequences: [UInt32]) -> V4L2Statistics {
        var statistics = V4L2Statistics()
        var last: UInt32?
        for sequence in sequences {
            statistics.count(sequence: sequence, after: last)
            last = sequence
        }
        return statistics
    }

    @Test func gapsRepeatsRestartsAndTheWrapAreCountedWithoutTrapping() {
        #expect(Self.counts([3, 3, 4]).repeated == 1 && Self.counts([3, 3, 4]).dropped == 0)
        #expect(Self.counts([5, 9]).dropped == 3)
        #expect(Self.counts([0xFFFF_FFFE, 1]).dropped == 2 && Self.counts([0xFFFF_FFFE, 1]).restarts == 0)
        #expect(Self.counts([10, 2]).restarts == 1 && Self.counts([10, 2]).dropped == 0)
        #expect(Self.counts([0, 1, 2, 3]) == V4L2Statistics())
    }
}
