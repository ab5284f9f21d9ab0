public import HAL
import LibC

/// A sound as a ``CapturingSpeaker`` schedules it: how long it lasts and how loud it is.
public struct MeasuredSound: Sendable {
    /// The sound's length.
    public var duration: Duration
    /// Its loudness after the loudness guard, at full volume.
    public var loudness: Loudness
    /// The gain the loudness guard applied, dB, when it changed the sound.
    public var gain: Double?
    /// The samples, where the measure has them, for measuring the sound again at another volume.
    public var audio: PCMAudio?

    /// Creates a measured sound.
    public init(duration: Duration, loudness: Loudness, gain: Double? = nil, audio: PCMAudio? = nil) {
        self.duration = duration
        self.loudness = loudness
        self.gain = gain
        self.audio = audio
    }
}

/// How a ``CapturingSpeaker`` learns each sound's length and loudness: the one part of a simulated speaker that may
/// need an audio library. ``EstimatedSound`` needs none; the `Audio` module's `MeasuredPlayback` reads clip files,
/// synthesises speech with espeak-ng and measures loudness by EBU R 128.
public protocol SoundMeasure: Sendable {
    /// The clip as it would play, after `guard`.
    func measure(_ clip: AudioClip, guard: LoudnessGuard?) throws -> MeasuredSound
    /// The utterance as it would be spoken, after `guard`.
    func measure(_ utterance: Utterance, guard: LoudnessGuard?) throws -> MeasuredSound
    /// The loudness of `sound` played at `volume` (0 to 1).
    func loudness(of sound: MeasuredSound, atVolume volume: Double) -> Loudness
}

extension SoundMeasure {
    /// The loudness moved by the volume's gain, or silence where a shift would not be exact (`Loudness.isShiftable(by:)`).
    public func loudness(of sound: MeasuredSound, atVolume volume: Double) -> Loudness {
        let gain = 20 * log10(volume)
        return sound.loudness.isShiftable(by: gain) ? sound.loudness.shifted(by: gain) : .silence
    }
}

/// A ``SoundMeasure`` with no audio library: speech lasts as long as ``estimatedDuration(of:)`` says, the same in
/// every run; a clip in memory lasts as long as its samples, a tone as long as its notes; every sound is silent (no loudness to guard). A clip
/// stored as a file needs a measure that reads audio files, and is refused with an error that says so.
public struct EstimatedSound: SoundMeasure {
    /// Creates the measure.
    public init() {}

    /// A clip in memory, by its samples, or a tone, by its notes.
    public func measure(_ clip: AudioClip, guard: LoudnessGuard?) throws -> MeasuredSound {
        let length: Duration
        switch clip.source {
        case .pcm(let audio): length = audio.duration
        case .tone(let tone): length = tone.duration
        case .file:
            throw EstimatedSoundError(description: "clip '\(clip.name)': a clip stored as a file needs a sound measure that reads audio files (the Audio module's MeasuredPlayback)")
        }
        return MeasuredSound(duration: max(.zero, length - clip.start), loudness: .silence)
    }

    /// The utterance, by ``estimatedDuration(of:)``.
    public func measure(_ utterance: Utterance, guard: LoudnessGuard?) throws -> MeasuredSound {
        MeasuredSound(duration: Self.estimatedDuration(of: utterance), loudness: .silence)
    }

    /// How long the utterance takes at its rate (175 words a minute by default, within espeak-ng's 80 to 450): 0.1 s,
    /// and 55 ms a character at 175 words a minute, rounded to the millisecond.
    public static func estimatedDuration(of utterance: Utterance) -> Duration {
        let rate = Double(min(450, max(80, utterance.wordsPerMinute ?? 175)))
        let seconds = (0.1 + 0.055 * Double(utterance.text.count)) * 175 / rate
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}

/// What ``EstimatedSound`` cannot measure.
public struct EstimatedSoundError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var description: String
}
