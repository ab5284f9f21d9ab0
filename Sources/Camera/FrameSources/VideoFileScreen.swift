public import HAL

/// A ``HAL/VideoScreen`` that shows video files in virtual time, decoding each frame as the `video:` frame source
/// does (OpenCV, BGR), at the file's frame rate.
///
/// The screen keeps the video's own clock, its media time: frame `k` shows when the media time reaches `k / rate`,
/// and `finished` comes when it reaches the video's length. The media time runs while playing and stands still while
/// paused, so a pause and a resume take up where they were, as a soundtrack resumed at the same point does. An opened
/// video starts ``startDelay`` after the request. A seek sets the media time to the frame there and shows that frame
/// at once, playing or paused. The same requests at the same times give the same frames at the same times, so a
/// replay's log does not depend on its rate.
public final class VideoFileScreen: VideoScreen {
    /// How long an opened video takes to show its first frame: the board's decoder start-up.
    public let startDelay: Duration
    private let state = Locked(State())

    fileprivate struct State {
        var video: VideoFile?
        var name = ""
        var frameCount = 0
        /// The next frame to show.
        var position = 0
        /// The media time, seconds, at `playingSince` while playing, or where it stands while paused.
        var media = 0.0
        var playingSince: Timestamp?
        /// When the video was opened, until its first frame is shown.
        var requested: Timestamp?
        var finished = false
        /// Outputs already due (a frame shown at a seek, a pause), in order.
        var queued: [VideoScreenOutput] = []
    }

    /// Creates a screen.
    public init(startDelay: Duration = .zero) {
        self.startDelay = startDelay
    }

    public func open(_ clip: VideoClip, at time: Timestamp) throws {
        let video = try VideoFile(path: clip.path, uri: "video:\(clip.path)")
        let frameCount = video.statedFrameCount > 0 ? video.statedFrameCount : video.countFrames()
        guard frameCount > 0 else { throw DeviceError(.ioFailure, uri: "video:\(clip.path)", "no frames in \(clip.path)") }
        state.withLock { state in
            state.close(at: time)
            state = State(video: video, name: clip.name, frameCount: frameCount, playingSince: time + startDelay, requested: time, queued: state.queued)
        }
    }

    public func play(at time: Timestamp) {
        state.withLock { state in
            guard let item = state.item, state.playingSince == nil, !state.finished else { return }
            state.playingSince = time
            if state.requested == nil { state.queued.append(.playback(PlaybackEvent(timestamp: time, phase: .resumed, item: item))) }
        }
    }

    public func pause(at time: Timestamp) {
        state.withLock { state in
            guard let item = state.item, let since = state.playingSince, !state.finished else { return }
            state.media += max(0, since.duration(to: time).seconds)
            state.playingSince = nil
            // Paused before its first frame, the video has not started: it starts when a frame shows.
            if state.requested == nil { state.queued.append(.playback(PlaybackEvent(timestamp: time, phase: .paused, item: item))) }
        }
    }

    public func seek(toFraction fraction: Double, at time: Timestamp) -> Duration {
        state.withLock { state in
            guard let video = state.video else { return .zero }
            let clamped = fraction.isFinite ? min(1, max(0, fraction)) : 0
            let index = min(state.frameCount - 1, Int((clamped * Double(state.frameCount)).rounded(.down)))
            state.finished = false
            state.position = index
            state.media = Double(index) / video.rate
            if state.playingSince != nil {
                state.playingSince = time  // the frame there is due now
            } else if let frame = state.show(index, at: time) {
                let outputs = state.shown(frame)
                state.queued += outputs
                state.position = index + 1
            }
            return .nanoseconds(Int64((state.media * 1e9).rounded()))
        }
    }

    public func close(at time: Timestamp) {
        state.withLock { $0.close(at: time) }
    }

    public var nextEventTime: Timestamp? {
        state.withLock { state in state.queued.first.map(\.timestamp) ?? state.nextDue }
    }

    public func advance(to time: Timestamp) -> [VideoScreenOutput] {
        state.withLock { state in
            var outputs = state.queued
            state.queued = []
            while let due = state.nextDue, due <= time {
                outputs += state.showNext(at: due)
            }
            return outputs
        }
    }
}

extension VideoFileScreen.State {
    var item: PlaybackItem? { video == nil ? nil : .clip(name: name) }

    /// When the next frame, or the end, is due while playing: when the media time reaches it.
    var nextDue: Timestamp? {
        guard let video, let playingSince, !finished else { return nil }
        let ahead = max(0, Double(position) / video.rate - media)
        return playingSince + .nanoseconds(Int64((ahead * 1e9).rounded()))
    }

    /// Shows the next frame at `time`, or finishes when there is none.
    mutating func showNext(at time: Timestamp) -> [VideoScreenOutput] {
        guard let item else { return [] }
        if position < frameCount, let frame = show(position, at: time) {
            position += 1
            return shown(frame)
        }
        frameCount = position  // the file held fewer frames than it stated
        finished = true
        playingSince = nil
        return [.playback(PlaybackEvent(timestamp: time, phase: .finished, item: item))]
    }

    /// A frame shown, after `started` when it is the video's first.
    mutating func shown(_ frame: Frame) -> [VideoScreenOutput] {
        guard let item, let requested else { return [.frame(frame)] }
        self.requested = nil
        return [.playback(PlaybackEvent(timestamp: frame.timestamp, phase: .started, item: item, requested: requested)), .frame(frame)]
    }

    /// Decodes frame `index`, stamped `time`; `nil` past the end, or when the file can no longer be read.
    func show(_ index: Int, at time: Timestamp) -> Frame? {
        guard let video else { return nil }
        do { try video.move(to: index) } catch { return nil }
        return video.read(at: time)
    }

    /// Closes the video: `stopped` when it had started and not finished. What was queued stays.
    mutating func close(at time: Timestamp) {
        if let item, !finished, requested == nil {
            queued.append(.playback(PlaybackEvent(timestamp: time, phase: .stopped, item: item)))
        }
        self = Self(queued: queued)
    }
}
