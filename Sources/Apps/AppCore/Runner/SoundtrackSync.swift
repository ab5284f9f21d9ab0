import HAL

/// Keeps the open video's soundtrack with its frames: what the runner asks of the speaker when the app makes a
/// video request, and when the screen reports the video's playback. The soundtrack starts with the first frame (if
/// the app has the video playing), pauses and resumes with the frames, starts again from the new position after a
/// seek, and stops when the video is closed or ends. One of ``AppRunner``'s concerns, kept apart from the others.
struct SoundtrackSync: Sendable {
    /// What is kept of the open video to keep its soundtrack with the frames.
    private struct OpenVideo {
        /// The video, as its playback events name it.
        var item: PlaybackItem
        /// The soundtrack, if any.
        var soundtrack: AudioClip?
        /// Whether the app has it playing (not paused).
        var playing = true
        /// Whether its first frame has shown.
        var started = false
        /// The soundtrack to start at the next play or first frame: from the start, or from where a seek left it.
        var pending: AudioClip?
        /// Whether the speaker has the soundtrack (playing or paused), not yet finished or stopped.
        var soundtrackOn = false
    }


    /// The open video, as far as its soundtrack goes.
    private var video: OpenVideo?

    /// Whether a video is open.
    var isOpen: Bool { video != nil }
    /// Whether the speaker has the open video's soundtrack (playing or paused).
    var soundtrackOn: Bool { video?.soundtrackOn == true }

    /// A video the screen opened: its soundtrack waits for the first frame.
    mutating func opened(_ clip: VideoClip) {
        video = OpenVideo(item: .clip(name: clip.name), soundtrack: clip.soundtrack, pending: clip.soundtrack)
    }

    /// No video is open any more.
    mutating func closed() { video = nil }

    /// What the soundtrack does when the screen reports `playback` of the open video: it starts with the first frame
    /// (if the app has the video playing), and stops when the video ends or the screen gives it up; the video is then
    /// over, and the app's later requests for it are not made.
    mutating func followed(_ playback: PlaybackEvent) -> [SpeakerRequest] {
        guard var current = video, current.item == playback.item else { return [] }
        switch playback.phase {
        case .started:
            current.started = true
            video = current
            guard current.playing, let pending = current.pending else { return [] }
            video?.pending = nil
            video?.soundtrackOn = true
            return [.play(pending)]
        case .finished, .stopped:
            video = nil
            return current.soundtrackOn ? [.stop] : []
        case .paused, .resumed:
            return []
        }
    }

    /// Notes that the speaker finished the open video's soundtrack, so that nothing more is asked of it.
    mutating func ended(_ playback: PlaybackEvent) {
        if playback.phase == .finished, case .clip(let name) = playback.item, name == video?.soundtrack?.name {
            video?.soundtrackOn = false
        }
    }

    /// Makes `request` on `screen` at `time` for the open video (with none open, nothing is asked), and returns the
    /// speaker requests that keep the soundtrack with it.
    mutating func request(_ request: VideoRequest, on screen: any VideoScreen, at time: Timestamp) -> [SpeakerRequest] {
        guard var current = video else { return [] }
        var closed = false
        defer { video = closed ? nil : current }
        switch request {
        case .open:
            return []  // the runner opens videos, then calls `opened(_:)`
        case .play:
            screen.play(at: time)
            guard !current.playing else { return [] }
            current.playing = true
            guard current.started else { return [] }  // the first frame starts the soundtrack
            if let pending = current.pending {
                current.pending = nil
                current.soundtrackOn = true
                return [.play(pending)]
            }
            return current.soundtrackOn ? [.resume] : []
        case .pause:
            screen.pause(at: time)
            guard current.playing else { return [] }
            current.playing = false
            return current.soundtrackOn ? [.pause] : []
        case .seek(let fraction):
            let position = screen.seek(toFraction: fraction, at: time)
            guard var soundtrack = current.soundtrack else { return [] }
            soundtrack.start = position
            var requests: [SpeakerRequest] = current.soundtrackOn ? [.stop] : []
            current.soundtrackOn = false
            current.pending = soundtrack
            if current.playing, current.started {
                current.pending = nil
                current.soundtrackOn = true
                requests.append(.play(soundtrack))
            }
            return requests
        case .close:
            screen.close(at: time)
            closed = true
            return current.soundtrackOn ? [.stop] : []
        }
    }
}
