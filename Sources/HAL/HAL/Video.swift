/// A video an app shows full screen: its frames from a video file, and its soundtrack, if any, on the speaker.
public struct VideoClip: Sendable, Hashable {
    /// The name recorded in events, such as `clips/hall-tour.avi`.
    public var name: String
    /// The video file, decoded as the `video:` frame source decodes it.
    public var path: String
    /// The sound that goes with the frames, played on the speaker from the same position.
    public var soundtrack: AudioClip?

    /// Creates a clip.
    public init(name: String, path: String, soundtrack: AudioClip? = nil) {
        self.name = name
        self.path = path
        self.soundtrack = soundtrack
    }
}

/// What a ``VideoScreen`` shows: a frame, or a change of its playback.
public enum VideoScreenOutput: Sendable, Hashable {
    /// A frame shown at its timestamp; its `sequence` is its index in the video.
    case frame(Frame)
    /// The video started (with `requested`, so its latency), paused, resumed, finished or was stopped. The item is
    /// the video, as a clip by name.
    case playback(PlaybackEvent)
    /// The video could no longer be shown (its file went away or is damaged): the screen closed it. The event is its
    /// `stopped`; the error names the file.
    case failed(PlaybackEvent, error: DeviceError)

    /// When it was shown.
    public var timestamp: Timestamp {
        switch self {
        case .frame(let frame): frame.timestamp
        case .playback(let event), .failed(let event, _): event.timestamp
        }
    }
}

/// A full-screen video player that plays in virtual time: what it shows follows from the requests and the video's
/// frame rate, so a runner replaying a trace tells it the time and collects what it shows, in order.
///
/// `AppCore`'s runner drives it the way it drives a ``VirtualTimeSpeaker``: each request is made at the time of the
/// input that caused it, and each frame and playback event is handed to the app at its own time. One video is open
/// at a time; opening another closes the first.
public protocol VideoScreen: Sendable {
    /// Opens a video at `time` and plays it from the start. Errors name the file.
    func open(_ clip: VideoClip, at time: Timestamp) throws
    /// Plays from where the video is, at `time`.
    func play(at time: Timestamp)
    /// Pauses at `time`, keeping the last frame shown.
    func pause(at time: Timestamp)
    /// Moves to `fraction` (0…1) of the video's length at `time`, showing the frame there; a playing video plays on
    /// from it. Returns the position moved to, from the start of the video.
    func seek(toFraction fraction: Double, at time: Timestamp) -> Duration
    /// Closes the video at `time`.
    func close(at time: Timestamp)
    /// When the next frame or playback event is due, if one is.
    var nextEventTime: Timestamp? { get }
    /// What the screen showed at or before `time`, in order.
    func advance(to time: Timestamp) -> [VideoScreenOutput]
}
