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

    /// A camera-key press delivered twice (a duplicated reading) opens the crop view once and does not save it; a press
    /// whose release was lost still acts the next time.
    @Test func aDuplicatedKeyPressActsOnce() async throws {
        var config = FieldGuideConfig()
        config.cropBeforeSaving = true
        let key = { (seconds: Double, state: KeyState) in AppInput.reading(.key(KeyEvent(timestamp: at(seconds), code: 212, state: state))) }
        let frame = Self.frame(1.9, sequence: 1, format: .grey, width: 80, height: 70, bytesPerPixel: 1)
        let twice = await events(try FieldGuide(config: config), [Self.fix(1.5), frame, key(2, .press), key(2, .press), key(2.1, .release)])
        #expect(twice.named("crop.shown").count == 1 && twice.named("capture.saved").isEmpty)
        // No release between two presses a second apart: both act (the crop view opens, then saves).
        let lost = await events(try FieldGuide(config: config), [Self.fix(1.5), frame, key(2, .press), key(2.05, .repeat), key(2.5, .press)])
        #expect(lost.named("crop.shown").count == 1 && lost.named("capture.saved").count == 1)
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

    static func touch(_ seconds: Double, _ phase: PointerPhase, _ pointer: Int, _ x: Double, _ y: Double) -> AppInput {
        .reading(.pointer(PointerEvent(timestamp: at(seconds), pointer: pointer, phase: phase, x: x, y: y)))
    }

    @Test func theCropViewMovesAndScalesTheBoxInTheCardsRatioInsideThePhotoBeforeSaving() async throws {
        var config = FieldGuideConfig()
        config.cropBeforeSaving = true
        let key = { (seconds: Double) in AppInput.reading(.key(KeyEvent(timestamp: at(seconds), code: 212, state: .press))) }
        let command = { (seconds: Double, action: String, arguments: [String: String]) in
            AppInput.command(AppCommand(timestamp: at(seconds), action: action, arguments: arguments))
        }
        var inputs = [Self.fix(1), Self.frame(1.5, sequence: 1, format: .grey, width: 200, height: 140, bytesPerPixel: 1), key(2)]
        inputs += [Self.touch(2.1, .press, 0, 0.5, 0.5), Self.touch(2.2, .move, 0, 0.3, 0.5), Self.touch(2.3, .release, 0, 0.1, 0.5)]  // far left: stops at the edge
        inputs += [Self.touch(3, .press, 0, 0.45, 0.4), Self.touch(3.05, .press, 1, 0.55, 0.4)]  // fingers 0.1 apart…
        inputs += [Self.touch(3.1, .move, 0, 0.35, 0.4), Self.touch(3.15, .move, 1, 0.65, 0.4)]  // …then 0.3: a third as wide
        inputs += [Self.touch(3.2, .release, 1, 0.65, 0.4), Self.touch(3.25, .release, 0, 0.35, 0.4)]
        inputs += [command(4, "scaleCrop", ["factor": "0.01"]), command(5, "moveCrop", ["dx": "500", "dy": "500"])]  // the smallest, bottom right
        inputs += [command(6, "scaleCrop", ["factor": "100"]), key(7)]  // the largest again, and saved
        inputs += [Self.frame(7.9, sequence: 2, format: .grey, width: 200, height: 140, bytesPerPixel: 1), Self.fix(7.9)]
        inputs += [key(8), Self.touch(8.5, .press, 0, 0.1, 0.9), Self.touch(8.55, .release, 0, 0.1, 0.9)]  // captured, cancelled
        inputs += [command(9, "cancelCrop", [:]), command(9.5, "scaleCrop", ["factor": "-1"])]
        var runner = AppRunner(logic: try FieldGuide(config: config))
        var log = await runner.start(at: .zero)
        for input in inputs { log += await runner.feed(input) }
        #expect(log.filter { $0.name.hasPrefix("crop.") }.map { "\($0.name) \($0.attributes["crop"]!)" } == [
            "crop.shown 50,0,100,140",  // 5:7, centred
            "crop.changed 0,0,100,140",  // moved 80 px left, held at the edge
            "crop.changed 34,47,33,46",  // scaled by 0.1/0.3 about its centre, 33 × 33·7/5
            "crop.changed 43,59,16,22",  // the smallest box
            "crop.changed 184,118,16,22",  // inside the photo however far it moves
            "crop.changed 100,0,100,140",  // the largest: the whole height
            "crop.shown 50,0,100,140",
        ])
        #expect(log.named("capture.saved").map { $0.attributes["crop"] } == [.string("100,0,100,140")])
        #expect(log.named("capture.cancelled").count == 1)
        #expect(log.named("command.refused").map { $0.attributes["reason"] } == [
            .string("no capture is being cropped"), .string("no capture is being cropped"),
        ])
        let entry = try #require(runner.logic.entries.first)
        #expect(entry.frame.width == 100 && entry.frame.height == 140)
        guard case .bytes(let pixels) = entry.frame.storage else { Issue.record("no pixels"); return }
        #expect(pixels[0] == 100)  // column 100 of row 0
        // A pinch whose second finger's release was lost: the shutter still takes the next tap.
        var lost = try FieldGuide(config: config)
        var output = AppOutput()
        for input in [Self.fix(1), Self.frame(2.5, sequence: 1, format: .grey, width: 200, height: 140, bytesPerPixel: 1),
                      Self.touch(2, .press, 0, 0.4, 0.4), Self.touch(2.05, .press, 1, 0.6, 0.4), Self.touch(2.3, .release, 0, 0.4, 0.4),
                      Self.touch(3, .press, 0, 0.5, 0.9), Self.touch(3.05, .release, 0, 0.5, 0.9),
                      command(3.5, "scaleCrop", ["factor": "inf"])] {
            lost.handle(input, output: &output)
        }
        #expect(output.events.map(\.name) == ["gps.acquired", "crop.shown", "command.refused"])
        #expect(output.events.last?.attributes["reason"] == .string("dx and dy are pixels (at most 100000 either way), factor 0.01…100"))
        for box in [FaceBox(x: 0, y: 0, width: 40, height: 56), FaceBox(x: 150, y: 80, width: 50, height: 60)] {
            for scale in [0.5, 1, 3] {
                let adjusted = FieldGuide.adjusted(box, moveX: 37, moveY: -91, scale: scale, width: 200, height: 140, aspect: (5, 7), format: .yuyv)
                #expect(adjusted.x >= 0 && adjusted.y >= 0 && adjusted.x + adjusted.width <= 200 && adjusted.y + adjusted.height <= 140)
                #expect(adjusted.x % 2 == 0 && adjusted.width % 2 == 0 && abs(Double(adjusted.height) / Double(adjusted.width) - 1.4) < 0.1)
            }
        }
    }
}
