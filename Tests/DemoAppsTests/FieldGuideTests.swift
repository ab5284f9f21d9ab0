import AppCore
import DemoApps
import HAL
import Testing

@Suite struct FieldGuideTests {
    static func fix(_ seconds: Double) -> AppInput {
        .reading(.location(LocationFix(
            timestamp: at(seconds), mode: .threeDimensional, coordinate: GeoCoordinate(latitude: 49.26, longitude: -123.25), horizontalAccuracy: 4)))
    }

    static func frame(_ seconds: Double, sequence: UInt64, format: PixelFormat, width: Int, height: Int, bytesPerPixel: Int) -> AppInput {
        let stride = width * bytesPerPixel
        let rows = format == .nv12 ? height * 3 / 2 : height
        let pixels = (0..<(stride * rows)).map { UInt8(truncatingIfNeeded: ($0 % stride) / bytesPerPixel + ($0 / stride) * 7) }
        return .reading(.frame(Frame(
            timestamp: at(seconds), sequence: sequence, width: width, height: height, pixelFormat: format, bytesPerRow: stride, storage: .bytes(pixels))))
    }

    static let shutter: [AppInput] = [.reading(.key(KeyEvent(timestamp: at(2), code: 212, state: .press)))]

    @Test func aCaptureCropsRawPixelsToTheCard() async throws {
        var guide = try FieldGuide(config: FieldGuideConfig())
        var output = AppOutput()
        guide.start(at: .zero, output: &output)
        for input in [Self.fix(1.5), Self.frame(1.9, sequence: 1, format: .grey, width: 80, height: 70, bytesPerPixel: 1)] + Self.shutter {
            guide.handle(input, output: &output)
        }
        let entry = try #require(guide.entries.first)
        #expect(entry.crop == FaceBox(x: 15, y: 0, width: 50, height: 70))  // 5:7 out of 80×70
        #expect(entry.frame.width == 50 && entry.frame.bytesPerRow == 50)
        guard case .bytes(let pixels) = entry.frame.storage else { Issue.record("no pixels"); return }
        #expect(pixels.count == 50 * 70)
        #expect(pixels[0] == 15 && pixels[50] == 15 + 7 && pixels[49] == 64)  // column 15 of row 0, row 1, column 64
    }

    @Test(arguments: [(PixelFormat.yuyv, 2), (.rgb24, 3), (.nv12, 1)])
    func subsampledAndColourFormatsCropOnWholePixels(format: PixelFormat, bytesPerPixel: Int) throws {
        var output = AppOutput()
        var guide = try FieldGuide(config: FieldGuideConfig(cardAspect: [1, 1]))
        for input in [Self.fix(1.5), Self.frame(1.9, sequence: 1, format: format, width: 64, height: 30, bytesPerPixel: bytesPerPixel)] + Self.shutter {
            guide.handle(input, output: &output)
        }
        let entry = try #require(guide.entries.first)
        #expect(entry.crop == FaceBox(x: 17, y: 0, width: 30, height: 30) || format != .rgb24)
        if format != .rgb24 { #expect(entry.crop == FaceBox(x: 16, y: 0, width: 30, height: 30)) }  // even for 4:2:x
        guard case .bytes(let pixels) = entry.frame.storage else { Issue.record("no pixels"); return }
        #expect(pixels.count == (format == .nv12 ? 30 * 45 : 30 * 30 * bytesPerPixel))
    }

    @Test func capturesAreRefusedWithTheReason() async throws {
        let guide = try FieldGuide(config: FieldGuideConfig(maxFixAge: 5, maxFrameAge: 1))
        let frame = { (seconds: Double) in Self.frame(seconds, sequence: UInt64(seconds * 10), format: .grey, width: 8, height: 8, bytesPerPixel: 1) }
        let capture = { (seconds: Double) in AppInput.command(AppCommand(timestamp: at(seconds), action: "capture")) }
        let inputs: [AppInput] = [
            capture(0.5),  // nothing yet
            frame(1), capture(1.1),  // no fix
            Self.fix(1.2), frame(1.3), capture(1.4),  // saved
            .reading(.location(.noFix(at: at(2)))), capture(2.1),  // lost
            Self.fix(3), frame(9), capture(9.1),  // the fix is 6.1 s old
            Self.fix(9.2), capture(10.5),  // the frame is 1.5 s old
        ]
        let log = await events(guide, inputs)
        #expect(log.named("capture.refused").map { $0.attributes["reason"]!.description } == [
            "no camera frame", "no GPS fix yet", "the GPS fix is lost", "the GPS fix is 6.1 s old; at most 5.0 s",
            "the last camera frame is 1.5 s old; at most 1.0 s",
        ])
        #expect(log.named("capture.saved").count == 1)
        #expect(log.named("camera.framesDropped").map { $0.attributes["count"] } == [.int(2), .int(76)])
    }
}
