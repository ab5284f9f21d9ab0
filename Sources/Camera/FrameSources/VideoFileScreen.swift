public import HAL

/// A ``HAL/VideoScreen`` that shows video files in virtual time, decoding each frame as the `video:` frame source
/// does (OpenCV, BGR), at the file's frame rate.
///
/// Frame `k` of a video played from frame `i` at time `t` is shown at `t + (k − i) / rate`, after ``startDelay`` when
/// the video was just opened; `finished` comes one frame period after the last frame. A pause holds the last frame
/// shown; a seek shows the frame at the new position at once, playing or paused. The same requests at the same times
/// give the same frames at the same times, so a replay's log does not depend on its rate.
public final class VideoFileScreen: VideoScreen, @unchecked Sendable {
    /// How long an opened video takes to show its first frame: the board's decoder start-up.
    public let startDelay: Duration
    // @unchecked: every stored value is behind `state`'s lock.
    private let state = Locked(State())

    fileprivate struct State {
        var video: VideoFile?
        var name = ""
        var frameCount = 0
        /// The next frame to show, and, while playing, when frame `anchor.index` is due.
        var position = 0
        var anchor: (time: Timestamp, index: Int)?
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
        close(at: time)
        state.withLock { state in
            state = State(video: video, name: clip.name, frameCount: video.statedFrameCount > 0 ? video.statedFrameCount : video.countFrames())
            state.anchor = (time + startDelay, 0)
            state.requested = time
        }
    }

    public func play(at time: Timestamp) {
        state.withLock { state in
            guard let item = state.item, state.anchor == nil, !state.finished else { return }
            state.anchor = (time, state.position)
            if state.requested == nil { state.queued.append(.playback(PlaybackEvent(timestamp: time, phase: .resumed, item: item))) }
        }
    }

    public func pause(at time: Timestamp) {
        state.withLock { state in
            guard let item = state.item, state.anchor != nil, !state.finished else { return }
            state.anchor = nil
            // Paused before its first frame, the video has not started: it starts when a frame shows.
            if state.requested == nil { state.queued.append(.playback(PlaybackEvent(timestamp: time, phase: .paused, item: item))) }
        }
    }

    public func seek(toFraction fraction: Double, at time: Timestamp) -> Duration {
        state.withLock { state in
            guard let video = state.video, state.frameCount > 0 else { return .zero }
            let index = min(state.frameCount - 1, max(0, Int((fraction * Double(state.frameCount)).rounded(.down))))
            state.finished = false
            if state.anchor != nil {
                state.anchor = (time, index)
                state.position = index
            } else {
                state.position = index
                if let frame = state.show(index, at: time) {
                    let outputs = state.shown(frame)
                    state.queued += outputs
                    state.position = index + 1
                }
            }
            return .nanoseconds(Int64((Double(index) / video.rate * 1e9).rounded()))
        }
    }

    public func close(at time: Timestamp) {
        state.withLock { state in
            if let item = state.item, !state.finished, state.requested == nil {
                state.queued.append(.playback(PlaybackEvent(timestamp: time, phase: .stopped, item: item)))
            }
            let queued = state.queued
            state = State(queued: queued)
        }
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

    /// When the next frame, or the end, is due while playing.
    var nextDue: Timestamp? {
        guard let video, let anchor, !finished else { return nil }
        let frames = Double(position - anchor.index)
        return anchor.time + .nanoseconds(Int64((frames / video.rate * 1e9).rounded()))
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
        anchor = nil
        return [.playback(PlaybackEvent(timestamp: time, phase: .finished, item: item))]
    }

    /// A frame shown, after `started` when it is the video's first.
    mutating func shown(_ frame: Frame) -> [VideoScreenOutput] {
        guard let item, let requested else { return [.frame(frame)] }
        self.requested = nil
        return [.playback(PlaybackEvent(timestamp: frame.timestamp, phase: .started, item: item, requested: requested)), .frame(frame)]
    }

    /// Decodes frame `index`, stamped `time`; `nil` past the end.
    func show(_ index: Int, at time: Timestamp) -> Frame? {
        guard let video else { return nil }
        do { try video.move(to: index) } catch { return nil }
        return video.read(at: time)
    }
}
