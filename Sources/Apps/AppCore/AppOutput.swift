public import HAL

/// What an app asks of its `VideoScreen`. The runner plays the video's soundtrack on the speaker alongside:
/// it starts, pauses, resumes, moves and stops with the frames.
public enum VideoRequest: Sendable, Hashable {
    /// Open a video full screen and play it from the start.
    case open(VideoClip)
    /// Play from where the video is.
    case play
    /// Pause, keeping the frame shown.
    case pause
    /// Move to a fraction (0…1) of the video's length: where a finger let go of the timeline.
    case seek(Double)
    /// Close the video.
    case close
}

/// What an app emitted while handling one input: its events, in order, and its speaker and video requests.
public struct AppOutput: Sendable, Hashable {
    /// The events.
    public var events: [AppEvent] = []
    /// The speaker requests, in the order they must be carried out.
    public var requests: [SpeakerRequest] = []
    /// The video requests, in order. The runner makes them on the screen first, then carries out the speaker
    /// requests, and then the soundtrack's (its start, pause, resume or stop that the video requests call for).
    public var videoRequests: [VideoRequest] = []
    /// Files to write to the app's ``AppStorage``, in order.
    public var stored: [StoredFile] = []

    /// A file an app writes to its storage.
    public struct StoredFile: Sendable, Hashable {
        /// The file's name in the storage.
        public var name: String
        /// What it holds.
        public var contents: StoredContents
    }

    /// Creates an empty output.
    public init() {}

    /// Adds an event.
    public mutating func emit(_ name: String, at time: Timestamp, _ attributes: [String: AppEventValue] = [:]) {
        events.append(AppEvent(timestamp: time, name: name, attributes: attributes))
    }

    /// Adds `command.refused` for a command the app cannot carry out, with the reason a user can act on.
    public mutating func refuse(_ command: AppCommand, _ reason: String) {
        emit("command.refused", at: command.timestamp, ["action": .string(command.action), "reason": .string(reason)])
    }

    /// Writes a file to the app's storage (carried out by the runner; an error is logged as `storage.failed`).
    public mutating func store(_ contents: StoredContents, as name: String) {
        stored.append(StoredFile(name: name, contents: contents))
    }

    /// Adds a speaker request.
    public mutating func request(_ request: SpeakerRequest) {
        requests.append(request)
    }

    /// Adds a video request.
    public mutating func request(_ request: VideoRequest) {
        videoRequests.append(request)
    }
}

extension AppEventValue {
    /// A number rounded to `places` decimals, so event logs hold readable, stable digits.
    public static func rounded(_ value: Double, places: Int = 1) -> AppEventValue {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return .double((value * scale).rounded() / scale)
    }
}
