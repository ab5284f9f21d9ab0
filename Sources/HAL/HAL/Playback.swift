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
        /// A tone made when played (`tone:440,0.5`, `tone:chime`), at the level of the loudness guard it plays
        /// through (``Tone/audio(for:)``).
        case tone(Tone)

        /// The source a clip's name stands for, the one reading of a name wherever a clip is named: a ``Tone`` for
        /// `tone:…` (an error naming the field when it is malformed), otherwise the file at `filePath(name)`, such
        /// as the name resolved against a config file's folder.
        public init(clipName name: String, filePath: (String) -> String = { $0 }) throws(ToneError) {
            if let tone = try Tone(clipName: name) {
                self = .tone(tone)
            } else {
                self = .file(path: filePath(name))
            }
        }
    }

    /// The name recorded in playback events and traces, such as `door-creak.wav`.
    public var name: String
    /// The audio.
    public var source: Source
    /// The loudness the app allows for this clip, which the speaker applies in place of its own guard; `nil` leaves
    /// it to the speaker.
    public var loudnessGuard: LoudnessGuard?
    /// Where in the audio to start playing: zero for the whole clip, later for a video's soundtrack after a seek.
    public var start: Duration

    /// Creates a clip.
    public init(name: String, source: Source, loudnessGuard: LoudnessGuard? = nil, start: Duration = .zero) {
        self.name = name
        self.source = source
        self.loudnessGuard = loudnessGuard
        self.start = start
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
    /// On a `started` event, when the app asked for the item (on the same clock), where the speaker knows it: the
    /// time from the request to the first sample is the speaker's latency, including any wait behind the item
    /// before it. `nil` on other phases.
    public var requested: Timestamp?
    /// On a `started` event, the gain in dB a ``LoudnessGuard`` applied to the item (negative when it was too loud);
    /// `nil` when no guard changed it.
    public var gain: Double?

    /// Creates an event.
    public init(timestamp: Timestamp, phase: PlaybackPhase, item: PlaybackItem, requested: Timestamp? = nil, gain: Double? = nil) {
        self.timestamp = timestamp
        self.phase = phase
        self.item = item
        self.requested = requested
        self.gain = gain
    }

    /// From the request to the first sample, on a `started` event that knows its request.
    public var latency: Duration? { requested.map { $0.duration(to: timestamp) } }
}

/// How long a simulated speaker takes from a request to its first sample: a fixed delay, plus seeded Gaussian
/// jitter, never below zero. The same seed gives the same delays, so QA can replay "a slow board" exactly.
public struct SpeakerLatency: Sendable, Hashable {
    /// The delay every request has.
    public var base: Duration
    /// The jitter's standard deviation.
    public var jitter: Duration
    /// The jitter's seed.
    public var seed: UInt64

    /// A latency of `base`, with Gaussian jitter of σ = `jitter` drawn from `seed`.
    public init(base: Duration, jitter: Duration = .zero, seed: UInt64 = 0) {
        self.base = base
        self.jitter = jitter
        self.seed = seed
    }

    /// No delay: sound starts when it is asked for.
    public static let none = SpeakerLatency(base: .zero)

    /// The delay of the `index`th request (from 0): each request's jitter is its own draw, seeded by the seed and
    /// the index, so the same requests in the same order get the same delays in every run.
    public func delay(ofRequest index: Int) -> Duration {
        guard jitter > .zero else { return base }
        var random = SeededRandom(seed: seed &+ UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15)
        let nanoseconds = Double(base.wholeNanoseconds) + Double(jitter.wholeNanoseconds) * random.gaussian()
        return .nanoseconds(Int64(max(0, nanoseconds).rounded()))
    }
}
