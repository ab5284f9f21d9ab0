/// Interleaved PCM audio as 32-bit floats in -1...1.
public struct PCMAudio: Sendable, Hashable {
    /// Frames per second.
    public var sampleRate: Int
    /// Interleaved channels.
    public var channelCount: Int
    /// The samples, `channelCount` per frame.
    public var samples: [Float]

    /// Creates audio from interleaved samples.
    public init(sampleRate: Int, channelCount: Int, samples: [Float]) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.samples = samples
    }

    /// The length in seconds.
    public var duration: Duration {
        guard sampleRate > 0, channelCount > 0 else { return .zero }
        let frames = Int64(samples.count / channelCount)
        return .nanoseconds(frames * 1_000_000_000 / Int64(sampleRate))
    }
}

/// A sound to play: a named clip from a file or from memory.
public struct AudioClip: Sendable, Hashable {
    /// Where the clip's audio comes from.
    public enum Source: Sendable, Hashable {
        /// An audio file (WAV, FLAC or OGG).
        case file(path: String)
        /// Samples in memory.
        case pcm(PCMAudio)
    }

    /// The name recorded in playback events and traces, such as `door-creak.wav`.
    public var name: String
    /// The audio.
    public var source: Source

    /// Creates a clip.
    public init(name: String, source: Source) {
        self.name = name
        self.source = source
    }
}

/// Text to speak.
public struct Utterance: Sendable, Hashable {
    /// The words.
    public var text: String
    /// The voice or language, such as `en`, `fr`, `es` or `cmn`.
    public var voice: String
    /// Speaking rate in words per minute, or `nil` for the voice's default.
    public var wordsPerMinute: Int?

    /// Creates an utterance, English by default.
    public init(text: String, voice: String = "en", wordsPerMinute: Int? = nil) {
        self.text = text
        self.voice = voice
        self.wordsPerMinute = wordsPerMinute
    }
}

/// What a speaker played: a clip or spoken text.
public enum PlaybackItem: Sendable, Hashable {
    /// A sound clip, by name.
    case clip(name: String)
    /// Spoken text and its voice.
    case speech(text: String, voice: String)
}

/// What happened to a playback.
public enum PlaybackPhase: String, Sendable, Hashable, Codable, CaseIterable {
    /// Sound started.
    case started
    /// Paused by the app.
    case paused
    /// Resumed after a pause.
    case resumed
    /// Played to the end.
    case finished
    /// Stopped by the app before the end.
    case stopped
}

/// One playback event from a speaker: an output record of what was played or spoken.
public struct PlaybackEvent: Sendable, Hashable {
    /// When it happened, on the speaker's injected clock.
    public var timestamp: Timestamp
    /// What happened.
    public var phase: PlaybackPhase
    /// What was playing.
    public var item: PlaybackItem

    /// Creates an event.
    public init(timestamp: Timestamp, phase: PlaybackPhase, item: PlaybackItem) {
        self.timestamp = timestamp
        self.phase = phase
        self.item = item
    }
}
