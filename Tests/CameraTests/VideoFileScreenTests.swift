import FrameSources
import Foundation
import HAL
import Testing
import TestSupport
import HALTestDoubles

/// The video screen: frames of a `video:` file at its rate on the time it is driven to, with pause, seek and close.
@Suite struct VideoFileScreenTests {
    /// A 10-frame video at 10 frames a second (a moving bar pattern), and its path.
    static func video() throws -> String {
        let path = try makeScratchFolder() + "/ten.avi"
        let writer = try VideoWriter(path: path, framesPerSecond: 10, width: 64, height: 48)
        for index in 0..<10 {
            try writer.append(CVImage(converting: TestPattern(kind: .bars, width: 64, height: 48, format: .bgr24).frame(index, at: .zero), to: .bgr))
        }
        return path
    }

    static func time(_ seconds: Double) -> Timestamp { Timestamp(nanoseconds: Int64((seconds * 1e9).rounded())) }

    /// What the outputs were, as `frame N @ t` and `phase @ t` lines.
    static func lines(_ outputs: [VideoScreenOutput]) -> [String] {
        outputs.map { output in
            switch output {
            case .frame(let frame): "frame \(frame.sequence) @ \(frame.timestamp.seconds)"
            case .playback(let event): "\(event.phase.rawValue) @ \(event.timestamp.seconds)" + (event.latency.map { " latency \($0.seconds)" } ?? "")
            case .failed(let event, let error): "failed @ \(event.timestamp.seconds): \(error)"
            }
        }
    }

    @Test func aVideoPlaysEveryFrameAtItsRateAndTheSameFramesAsTheFrameSource() async throws {
        let path = try Self.video()
        let screen = VideoFileScreen(startDelay: .milliseconds(300))
        try screen.open(VideoClip(name: "ten.avi", path: path), at: Self.time(1))
        #expect(screen.nextEventTime == Self.time(1.3))
        #expect(screen.advance(to: Self.time(1.29)).isEmpty)
        let outputs = screen.advance(to: Self.time(5))
        #expect(Self.lines(outputs) == ["started @ 1.3 latency 0.3"] + (0..<10).map { "frame \($0) @ \(Double(13 + $0) / 10)" } + ["finished @ 2.3"])
        #expect(screen.nextEventTime == nil)
        // The screen shows exactly what the `video:` frame source gives.
        let camera = try VideoCameraBackend().open(DeviceURI("video:\(path)")) as! FileCamera
        var source: [Frame] = []
        for try await frame in camera.readings(buffering: .unbounded) { source.append(frame) }
        let shown = outputs.compactMap { if case .frame(let frame) = $0 { frame } else { nil } }
        #expect(shown.map(\.storage) == source.map(\.storage))
    }

    @Test func pauseHoldsTheFrameSeekShowsTheFrameThereAndCloseStops() throws {
        let screen = VideoFileScreen()
        try screen.open(VideoClip(name: "ten.avi", path: try Self.video()), at: .zero)
        #expect(Self.lines(screen.advance(to: Self.time(0.25))) == ["started @ 0.0 latency 0.0", "frame 0 @ 0.0", "frame 1 @ 0.1", "frame 2 @ 0.2"])
        screen.pause(at: Self.time(0.25))
        #expect(Self.lines(screen.advance(to: Self.time(2))) == ["paused @ 0.25"])
        // Paused: the seek shows frame 5 at once and stays paused: the file's own frame 5, as a straight read gives it.
        #expect(screen.seek(toFraction: 0.5, at: Self.time(2)) == .milliseconds(500))
        let atSeek = screen.advance(to: Self.time(3))
        #expect(Self.lines(atSeek) == ["frame 5 @ 2.0"])
        let straight = VideoFileScreen()
        try straight.open(VideoClip(name: "ten.avi", path: try Self.video()), at: .zero)
        let sixth = straight.advance(to: Self.time(0.55)).compactMap { if case .frame(let frame) = $0 { frame } else { nil } }.last
        #expect(sixth?.sequence == 5)
        if case .frame(let frame) = atSeek.first { #expect(frame.storage == sixth?.storage) }
        // The video's own time stood at 0.5 s: frame 6 (0.6 s) shows 0.1 s after the play.
        screen.play(at: Self.time(3))
        #expect(Self.lines(screen.advance(to: Self.time(3.25))) == ["resumed @ 3.0", "frame 6 @ 3.1", "frame 7 @ 3.2"])
        // Playing: a seek back plays on from there, decoding from the start again.
        #expect(screen.seek(toFraction: 0.1, at: Self.time(3.25)) == .milliseconds(100))
        #expect(Self.lines(screen.advance(to: Self.time(3.3))) == ["frame 1 @ 3.25"])
        // Paused between frames, it takes up where it was: frame 2 is due 0.1 s after frame 1.
        screen.pause(at: Self.time(3.3))
        screen.play(at: Self.time(4))
        #expect(Self.lines(screen.advance(to: Self.time(4.05))) == ["paused @ 3.3", "resumed @ 4.0", "frame 2 @ 4.05"])
        screen.close(at: Self.time(4.05))
        #expect(Self.lines(screen.advance(to: Self.time(9))) == ["stopped @ 4.05"])
        #expect(screen.nextEventTime == nil)
        // Paused before its first frame, it is held there; a seek past the end shows the last frame, and starts it.
        try screen.open(VideoClip(name: "ten.avi", path: try Self.video()), at: Self.time(10))
        screen.pause(at: Self.time(10))
        #expect(screen.seek(toFraction: 1, at: Self.time(10.5)) == .milliseconds(900))
        #expect(Self.lines(screen.advance(to: Self.time(11))) == ["paused @ 10.0", "started @ 10.5 latency 0.5", "frame 9 @ 10.5"])
        screen.play(at: Self.time(11))
        #expect(Self.lines(screen.advance(to: Self.time(12))) == ["resumed @ 11.0", "finished @ 11.1"])
        // A finished video has let its file go: nothing more plays, seeks or stops.
        screen.play(at: Self.time(12))
        #expect(screen.seek(toFraction: 0.5, at: Self.time(12)) == .zero)
        screen.close(at: Self.time(12))
        #expect(screen.nextEventTime == nil && screen.advance(to: Self.time(20)).isEmpty)
    }

    /// A slow screen's start delay is not cut short by a pause, a play or a seek made during it, and the pause is
    /// reported when it is asked for.
    @Test func requestsDuringTheStartDelayKeepItAndAPauseIsReportedAtOnce() throws {
        let path = try Self.video()
        let screen = VideoFileScreen(startDelay: .milliseconds(1500))
        try screen.open(VideoClip(name: "ten.avi", path: path), at: .zero)
        screen.pause(at: Self.time(0.3))
        screen.play(at: Self.time(0.4))
        #expect(Self.lines(screen.advance(to: Self.time(1.49))) == ["paused @ 0.3", "resumed @ 0.4"])
        #expect(Self.lines(screen.advance(to: Self.time(1.55))) == ["started @ 1.5 latency 1.5", "frame 0 @ 1.5"])
        // Playing or paused, a seek during the delay moves where the video starts, not when.
        for paused in [false, true] {
            try screen.open(VideoClip(name: "ten.avi", path: path), at: Self.time(10))
            if paused { screen.pause(at: Self.time(10.1)) }
            #expect(screen.seek(toFraction: 0.5, at: Self.time(10.2)) == .milliseconds(500))
            if paused { screen.play(at: Self.time(10.3)) }
            let lines = Self.lines(screen.advance(to: Self.time(11.55)))
            #expect(lines.drop { !$0.hasPrefix("started") } == ["started @ 11.5 latency 1.5", "frame 5 @ 11.5"], "\(lines)")
        }
    }

    /// A file is decoded once per process: it plays on after it goes away (as a player holding it open does), every
    /// screen that shows it gets the same pixels, and a file that changes is decoded again.
    @Test func aFileIsDecodedOnceAndDecodedAgainWhenItChanges() throws {
        let path = try Self.video()
        let screen = VideoFileScreen()
        try screen.open(VideoClip(name: "ten.avi", path: path), at: .zero)
        let first = screen.advance(to: Self.time(0.35))
        try FileManager.default.removeItem(atPath: path)
        _ = screen.seek(toFraction: 0, at: Self.time(0.4))
        #expect(Self.lines(screen.advance(to: Self.time(0.45))) == ["frame 0 @ 0.4"])
        // A new file at the path, of five frames: decoded anew, not the ten kept.
        do {  // the writer closes the file when it goes
            let writer = try VideoWriter(path: path, framesPerSecond: 10, width: 64, height: 48)
            for index in 0..<5 {
                try writer.append(CVImage(converting: TestPattern(kind: .checkers, width: 64, height: 48, format: .bgr24).frame(index, at: .zero), to: .bgr))
            }
        }
        let changed = VideoFileScreen()
        try changed.open(VideoClip(name: "five.avi", path: path), at: .zero)
        let lines = Self.lines(changed.advance(to: Self.time(5)))
        #expect(lines.filter { $0.hasPrefix("frame") }.count == 5, "\(lines)")
        let shownBefore = first.compactMap { if case .frame(let frame) = $0 { frame.storage } else { nil } }
        let again = VideoFileScreen()
        try again.open(VideoClip(name: "five.avi", path: path), at: .zero)
        let shownNow = again.advance(to: Self.time(5)).compactMap { if case .frame(let frame) = $0 { frame.storage } else { nil } }
        #expect(shownNow.count == 5 && shownNow.first != shownBefore.first)
    }

    /// A frame a video can no longer give fails it, naming the video, and the screen shows nothing more.
    @Test func aVideoThatCannotMoveFailsNamingIt() throws {
        final class Unseekable: ScreenVideo {
            var next = 0
            let rate = 10.0
            let frameCount = 10
            func move(to index: Int) throws(DeviceError) {
                guard index >= next else { throw DeviceError(.notFound, uri: "video:gone.avi", "the file went away") }
                next = index
            }
            func read(at time: Timestamp) -> Frame? {
                defer { next += 1 }
                return next < frameCount ? Frame(timestamp: time, sequence: UInt64(next), width: 1, height: 1, pixelFormat: .grey, bytesPerRow: 1, storage: .bytes([0])) : nil
            }
        }
        struct Source: ScreenVideoSource {
            func open(_ clip: VideoClip) throws -> any ScreenVideo { Unseekable() }
        }
        let screen = SimulatedScreen(videos: Source())
        try screen.open(VideoClip(name: "gone.avi", path: "gone.avi"), at: .zero)
        _ = screen.advance(to: Self.time(0.35))
        _ = screen.seek(toFraction: 0, at: Self.time(0.4))
        let lines = Self.lines(screen.advance(to: Self.time(1)))
        #expect(lines.count == 1 && lines[0].hasPrefix("failed @ 0.4: ") && lines[0].contains("gone.avi"), "\(lines)")
        #expect(screen.nextEventTime == nil)
    }

    @Test func aFileThatIsNoVideoIsAnErrorNamingIt() throws {
        let screen = VideoFileScreen()
        #expect { try screen.open(VideoClip(name: "none", path: "/nonexistent/film.avi"), at: .zero) } throws: { error in
            "\(error)".contains("/nonexistent/film.avi")
        }
        #expect(screen.nextEventTime == nil)
    }
}
