public import HAL

/// A `VideoScreen` that shows videos in virtual time, at each video's frame rate: the screen a replay drives.
///
/// Where the videos come from is a ``ScreenVideoSource``: ``ScriptedVideos`` here (videos of a stated length, in blank
/// frames, needing no decoder), or the `FrameSources` module's video files, decoded by OpenCV (`VideoFileScreen`).
///
/// The screen keeps the video's own clock, its media time: frame `k` shows when the media time reaches `k / rate`,
/// and `finished` comes when it reaches the video's length. The media time runs while playing and stands still while
/// paused, so a pause and a resume take up where they were, as a soundtrack resumed at the same point does.
///
/// An opened video shows its first frame (and reports `started`) ``startDelay`` after the request at the earliest:
/// a pause, play or seek during that delay does not cut it short. A pause is reported when it is asked for, even
/// before the first frame (the screen holds the video), and so is the play that follows it. A seek sets the media
/// time to the frame there; paused, it shows that frame at once, unless the start delay has not passed yet. The same
/// requests at the same times give the same frames at the same times, so a replay's log does not depend on its rate.
///
/// A frame the file can no longer give (the file was removed or damaged before a seek back) ends the video with
/// `VideoScreenOutput.failed(_:error:)`, naming the file; the end of the file is `finished`. A video that has
/// finished releases its file.
public final class SimulatedScreen: VideoScreen {
    /// How long an opened video takes to show its first frame: the board's decoder start-up.
    public let startDelay: Duration
    /// Where the videos come from.
    public let videos: any ScreenVideoSource
    private let state = Locked(State())

    fileprivate struct State {
        var video: (any ScreenVideo)?
        var name = ""
        var frameCount = 0
        /// The next frame to show.
        var position = 0
        /// The media time, seconds, at `playingSince` while playing, or where it stands while paused.
        var media = 0.0
        var playingSince: Timestamp?
        /// When the video was opened, until its first frame is shown.
        var requested: Timestamp?
        /// Outputs already due (a frame shown at a seek, a pause), in order.
        var queued: [VideoScreenOutput] = []
    }

    /// A screen showing what `videos` opens, each first frame `startDelay` after its request at the earliest.
    public init(videos: any ScreenVideoSource, startDelay: Duration = .zero) {
        self.videos = videos
        self.startDelay = startDelay
    }

    public func open(_ clip: VideoClip, at time: Timestamp) throws {
        let video = try videos.open(clip)
        let frameCount = video.frameCount
        guard frameCount > 0 else { throw DeviceError(.ioFailure, uri: "video:\(clip.path)", "no frames in \(clip.path)") }
        state.withLock { state in
            state.close(at: time)
            state = State(video: video, name: clip.name, frameCount: frameCount, playingSince: time + startDelay, requested: time, queued: state.queued)
        }
    }

    public func play(at time: Timestamp) {
        state.withLock { state in
            guard let item = state.item, state.playingSince == nil else { return }
            state.playingSince = state.notBeforeStart(time, delay: startDelay)
            state.queued.append(.playback(PlaybackEvent(timestamp: time, phase: .resumed, item: item)))
        }
    }

    public func pause(at time: Timestamp) {
        state.withLock { state in
            guard let item = state.item, let since = state.playingSince else { return }
            state.media += max(0, since.duration(to: time).seconds)  // nothing while the start delay runs
            state.playingSince = nil
            state.queued.append(.playback(PlaybackEvent(timestamp: time, phase: .paused, item: item)))
        }
    }

    public func seek(toFraction fraction: Double, at time: Timestamp) -> Duration {
        state.withLock { state in
            guard let video = state.video else { return .zero }
            let clamped = fraction.isFinite ? min(1, max(0, fraction)) : 0
            let index = min(state.frameCount - 1, Int((clamped * Double(state.frameCount)).rounded(.down)))
            state.position = index
            state.media = Double(index) / video.rate
            let position = Duration.nanoseconds(Int64((state.media * 1e9).rounded()))
            if state.playingSince != nil {
                state.playingSince = state.notBeforeStart(time, delay: startDelay)  // the frame there is due now, or when the delay ends
            } else if state.notBeforeStart(time, delay: startDelay) == time {
                let shown = state.showNext(at: time)
                state.queued += shown
            }
            return position
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

extension SimulatedScreen.State {
    var item: PlaybackItem? { video == nil ? nil : .clip(name: name) }

    /// `time`, or the end of the start delay (`delay` after the open) while the first frame has not shown.
    func notBeforeStart(_ time: Timestamp, delay: Duration) -> Timestamp {
        guard let requested else { return time }
        return max(time, requested + delay)
    }

    /// When the next frame, or the end, is due while playing: when the media time reaches it.
    var nextDue: Timestamp? {
        guard let video, let playingSince else { return nil }
        let ahead = max(0, Double(position) / video.rate - media)
        return playingSince + .nanoseconds(Int64((ahead * 1e9).rounded()))
    }

    /// Shows the next frame at `time`; at the end of the file the video finishes, and a frame that cannot be read
    /// fails it.
    mutating func showNext(at time: Timestamp) -> [VideoScreenOutput] {
        guard let item, let video else { return [] }
        if position < frameCount {
            do {
                try video.move(to: position)
                if let frame = video.read(at: time) {
                    position += 1
                    return shown(frame)
                }
            } catch {
                self = Self(queued: queued)
                return [.failed(PlaybackEvent(timestamp: time, phase: .stopped, item: item), error: error)]
            }
        }
        // The end of the file, which may come before the frame count it stated.
        self = Self(queued: queued)
        return [.playback(PlaybackEvent(timestamp: time, phase: .finished, item: item))]
    }

    /// A frame shown, after `started` when it is the video's first.
    mutating func shown(_ frame: Frame) -> [VideoScreenOutput] {
        guard let item, let requested else { return [.frame(frame)] }
        self.requested = nil
        return [.playback(PlaybackEvent(timestamp: frame.timestamp, phase: .started, item: item, requested: requested)), .frame(frame)]
    }

    /// Closes the video: `stopped` when it had started. What was queued stays.
    mutating func close(at time: Timestamp) {
        if let item, requested == nil {
            queued.append(.playback(PlaybackEvent(timestamp: time, phase: .stopped, item: item)))
        }
        self = Self(queued: queued)
    }
}

/// A video a ``SimulatedScreen`` shows: frames at a rate, read one at a time. One owner reads it.
public protocol ScreenVideo: AnyObject {
    /// Frames per second.
    var rate: Double { get }
    /// How many frames the video has; reading may end sooner.
    var frameCount: Int { get }
    /// Makes frame `index` the next one read; a frame the video can no longer give throws, naming the video.
    func move(to index: Int) throws(DeviceError)
    /// The next frame, stamped `time`, or `nil` at the end.
    func read(at time: Timestamp) -> Frame?
}

/// Opens the videos a ``SimulatedScreen`` is asked to show.
public protocol ScreenVideoSource: Sendable {
    /// The video `clip` names. Errors name the clip.
    func open(_ clip: VideoClip) throws -> any ScreenVideo
}

/// Videos given by their length alone, in blank frames: a ``ScreenVideoSource`` that needs no decoder. A clip whose
/// path is not in the script cannot be opened (`DeviceError.Code.notFound`), as a missing file cannot.
public struct ScriptedVideos: ScreenVideoSource {
    /// One scripted video.
    public struct Video: Sendable, Hashable {
        /// How many frames it has.
        public var frameCount: Int
        /// Frames per second.
        public var rate: Double
        /// Its frames' width and height.
        public var width: Int
        /// Its frames' height.
        public var height: Int

        /// A video of `frameCount` frames at `rate` a second, `width` by `height`.
        public init(frameCount: Int, rate: Double = 30, width: Int = 16, height: Int = 16) {
            self.frameCount = frameCount
            self.rate = rate
            self.width = width
            self.height = height
        }
    }

    /// The videos, by the path their clips name.
    public var videos: [String: Video]

    /// Videos by path.
    public init(_ videos: [String: Video] = [:]) {
        self.videos = videos
    }

    /// The scripted video at the clip's path.
    public func open(_ clip: VideoClip) throws -> any ScreenVideo {
        guard let video = videos[clip.path] else {
            throw DeviceError(.notFound, uri: "video:\(clip.path)", "no scripted video at \(clip.path)")
        }
        return BlankVideo(video)
    }

    /// Gray frames, in sequence.
    private final class BlankVideo: ScreenVideo {
        let video: Video
        var next = 0
        init(_ video: Video) { self.video = video }
        var rate: Double { video.rate }
        var frameCount: Int { video.frameCount }
        func move(to index: Int) throws(DeviceError) { next = index }
        func read(at time: Timestamp) -> Frame? {
            guard next < video.frameCount else { return nil }
            defer { next += 1 }
            return Frame(
                timestamp: time, sequence: UInt64(next), width: video.width, height: video.height, pixelFormat: .grey,
                bytesPerRow: video.width, storage: .bytes([UInt8](repeating: 128, count: video.width * video.height)))
        }
    }
}
