import FrameSources
import Expressions
import FaceScenes
import Foundation
import HAL
import Testing
import TestSupport

/// Several faces in a frame: a reading per face, ranked, with ids that stay with the faces. The pictures are
/// composed from the shipped test face (the astronaut, whose face fer finds at 177, 66, 95×95): the face at full
/// size and at three quarters, side by side on a gray canvas, moving from frame to frame.
@Suite struct MultipleFaceTests {
    static let canvasWidth = 1024, canvasHeight = 512
    static let smallScale = 0.75

    /// A gray canvas with the astronaut at full size with its corner at `big` (if any) and at three quarters with
    /// its corner at `small` (if any).
    static func picture(big: (x: Int, y: Int)?, small: (x: Int, y: Int)?) throws -> CVImage {
        var placements: [FaceScene.Placement] = []
        if let big { placements.append(.init(x: big.x, y: big.y)) }
        if let small { placements.append(.init(x: small.x, y: small.y, scale: smallScale)) }
        return try FaceScene(models: ExpressionTests.models).frame(width: canvasWidth, height: canvasHeight, placements)
    }

    /// The frames of a short stream: both faces moving 6 px a frame, then the big one gone for a frame, then back.
    static func frames() throws -> [CVImage] {
        var frames: [CVImage] = []
        for step in 0..<4 { frames.append(try picture(big: (6 * step, 0), small: (620 - 6 * step, 64))) }
        frames.append(try picture(big: nil, small: (596, 64)))
        frames.append(try picture(big: (24, 0), small: (596, 64)))
        return frames
    }

    @Test func aFrameWithTwoFacesGivesAReadingPerFaceTheLargestFirst() throws {
        let classifier = try ExpressionTests.classifier()
        var tracker = FaceTracker()
        let readings = try classifier.readings(for: Self.picture(big: (0, 0), small: (620, 64)), at: .zero, tracker: &tracker)
        try #require(readings.count == 2, "\(readings)")
        #expect(readings.map(\.rank) == [0, 1] && readings.allSatisfy { $0.faceCount == 2 && $0.timestamp == .zero })
        let big = try #require(readings[0].face), small = try #require(readings[1].face)
        // The big face where fer finds it alone; the small one where three quarters of that puts it.
        #expect(abs(big.x - 177) <= 3 && abs(big.y - 66) <= 3 && abs(big.width - 95) <= 3, "\(big)")
        #expect(abs(small.x - (620 + 133)) <= 6 && abs(small.y - (64 + 50)) <= 6 && abs(small.width - 71) <= 6, "\(small)")
        #expect(readings.allSatisfy { $0.dominant == .happy }, "\(readings)")
        #expect(Set(readings.compactMap(\.faceID)) == [1, 2])
    }

    @Test func facesKeepTheirIdsAcrossFramesAndThroughAMissedFrame() throws {
        let classifier = try ExpressionTests.classifier()
        var tracker = FaceTracker()
        var perFrame: [[ExpressionReading]] = []
        for (index, frame) in try Self.frames().enumerated() {
            perFrame.append(try classifier.readings(for: frame, at: Timestamp(nanoseconds: Int64(index) * 100_000_000), tracker: &tracker))
        }
        #expect(perFrame.map(\.count) == [2, 2, 2, 2, 1, 2], "\(perFrame)")
        let bigID = try #require(perFrame[0][0].faceID), smallID = try #require(perFrame[0][1].faceID)
        #expect(bigID != smallID)
        for frame in perFrame[0..<4] { #expect(frame.map(\.faceID) == [bigID, smallID]) }
        // The big face gone: the small one is the frame's only face, ranked first.
        #expect(perFrame[4].map(\.faceID) == [smallID] && perFrame[4][0].rank == 0 && perFrame[4][0].faceCount == 1)
        // Back a frame later, where it was: the same id.
        #expect(perFrame[5].map(\.faceID) == [bigID, smallID])
    }

    @Test func theTrackerMatchesByOverlapAndRanksByAreaAndCentre() {
        var tracker = FaceTracker(patience: 1)
        let a = FaceBox(x: 100, y: 100, width: 100, height: 100), b = FaceBox(x: 600, y: 300, width: 100, height: 100)
        let first = tracker.track([a, b], frameWidth: 800, frameHeight: 600)
        #expect(first.map(\.id) == [2, 1], "equal areas: the one nearer the centre (b) first")
        // Moved a little: same ids. Far away: a new id.
        let moved = tracker.track([FaceBox(x: 110, y: 100, width: 100, height: 100), FaceBox(x: 300, y: 0, width: 50, height: 50)], frameWidth: 800, frameHeight: 600)
        #expect(moved.map(\.id) == [1, 3])
        // b missed two frames, more than the patience of 1: when it comes back it is a new face.
        _ = tracker.track([a], frameWidth: 800, frameHeight: 600)
        let back = tracker.track([a, b], frameWidth: 800, frameHeight: 600)
        #expect(Set(back.map(\.id)) == [1, 4])
        #expect(FaceTracker.overlap(a, a) == 1 && FaceTracker.overlap(a, b) == 0)
        #expect(abs(FaceTracker.overlap(a, FaceBox(x: 150, y: 100, width: 100, height: 100)) - 1.0 / 3) < 1e-12)
    }

    @Test func halExpressionsPrintsEveryFaceWithItsId() async throws {
        let folder = try makeScratchFolder()
        for (index, frame) in try Self.frames().prefix(2).enumerated() { try frame.write(to: folder + "/frame-\(index).png") }
        let run = try await runProcess(halExecutable, ["expressions", folder, "--models", ExpressionTests.models], timeout: 60)
        #expect(run.status == 0, "\(run.output)")
        let lines = run.output.split(separator: "\n").filter { $0.contains("frame-") }
        #expect(lines.count == 4, "\(run.output)")
        #expect(lines.filter { $0.contains("id=1 ") || $0.contains("id=2 ") }.count == 4, "\(run.output)")
        #expect(lines[0].contains("rank=0/2") && lines[1].contains("rank=1/2"), "\(run.output)")
    }
}

/// Following faces between full detections on a stream: boxes like a full detection's, for a part of the cost.
@Suite struct StreamingDetectionTests {
    @Test func followingAMovingGrowingLeavingReturningFaceGivesTheBoxesOfFullDetection() throws {
        let classifier = try ExpressionTests.classifier()
        let scene = try FaceScene(models: ExpressionTests.models, headOnly: true)
        var streaming = StreamingDetection()
        var agreeing = 0, frames = 0
        var report: [String] = []
        for placement in FaceScene.movingFace() {
            let frame = try scene.frame(width: 640, height: 480, placement.map { [$0] } ?? [])
            let full = try classifier.faces(in: frame)
            let followed = try streaming.faces(in: frame, using: classifier)
            frames += 1
            let close = full.count == followed.count && zip(full, followed).allSatisfy { a, b in
                abs(a.x - b.x) <= 5 && abs(a.y - b.y) <= 5 && abs(a.width - b.width) <= 5 && abs(a.height - b.height) <= 5
            }
            if close { agreeing += 1 } else { report.append("frame \(frames - 1): full \(full), followed \(followed)") }
        }
        #expect(Double(agreeing) / Double(frames) >= 0.95, "\(agreeing) of \(frames) within 5 px:\n\(report.joined(separator: "\n"))")
        // Most frames were followed, not detected in full: that is where the time is saved.
        #expect(streaming.followedFrames >= frames / 2, "\(streaming.followedFrames) followed, \(streaming.fullDetections) full")
        #expect(streaming.fullDetections + streaming.followedFrames == frames)
    }

    @Test func redetectingEveryFrameIsFullDetection() throws {
        let classifier = try ExpressionTests.classifier()
        let scene = try FaceScene(models: ExpressionTests.models, headOnly: true)
        var streaming = StreamingDetection(redetectEvery: 1)
        for placement in FaceScene.movingFace(frames: 12).compactMap({ $0 }).prefix(4) {
            let frame = try scene.frame(width: 640, height: 480, [placement])
            #expect(try streaming.faces(in: frame, using: classifier) == classifier.faces(in: frame))
        }
        #expect(streaming.followedFrames == 0)
    }
}
