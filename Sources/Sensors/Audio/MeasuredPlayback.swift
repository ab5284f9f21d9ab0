import LibC
public import HAL
public import HALTestDoubles

/// The ``HALTestDoubles/SoundMeasure`` of real audio: a clip is decoded from its file and passed through its loudness
/// guard (``PreparedClips``), speech is synthesised by espeak-ng or estimated, and loudness is measured by EBU R 128.
/// What `hal` hands its simulated speakers, so that a replay's playback times are the clips' real lengths.
public struct MeasuredPlayback: SoundMeasure {
    /// How speech gets its length.
    public enum SpeechTiming: Sendable, Hashable {
        /// Synthesised by espeak-ng: the real length and loudness, which can differ by some milliseconds from one
        /// synthesis of the same words to the next in one process.
        case synthesized
        /// ``SpeechSynthesizer/estimatedDuration(of:)``: the same length in every run, silent (no loudness).
        case estimated
    }

    /// How speech gets its length.
    public var speech: SpeechTiming

    /// The measure, timing speech by `speech`.
    public init(speech: SpeechTiming = .synthesized) {
        self.speech = speech
    }

    /// The clip decoded and through `guard`.
    public func measure(_ clip: AudioClip, guard loudnessGuard: LoudnessGuard?) throws -> MeasuredSound {
        Self.sound(try PreparedClips.prepare(clip, guard: loudnessGuard))
    }

    /// The utterance synthesised, or as long as its estimate and silent, through `guard`.
    public func measure(_ utterance: Utterance, guard loudnessGuard: LoudnessGuard?) throws -> MeasuredSound {
        switch speech {
        case .synthesized:
            return Self.sound(PreparedClips.prepare(try SpeechSynthesizer.synthesize(utterance), guard: loudnessGuard))
        case .estimated:
            // Silence, which a guard leaves as it is: no samples to make, measure or guard.
            return MeasuredSound(duration: try SpeechSynthesizer.estimatedDuration(of: utterance), loudness: .silence)
        }
    }

    /// The loudness moved by the volume's gain, or measured again where a shift would not be exact.
    public func loudness(of sound: MeasuredSound, atVolume volume: Double) -> Loudness {
        let gain = 20 * log10(volume)
        if sound.loudness.isShiftable(by: gain) { return sound.loudness.shifted(by: gain) }
        guard var played = sound.audio else { return .silence }
        let factor = Float(volume)
        played.samples = played.samples.map { $0 * factor }
        return Loudness(measuring: played)
    }

    private static func sound(_ prepared: PreparedClips.Prepared) -> MeasuredSound {
        MeasuredSound(duration: prepared.audio.duration, loudness: prepared.loudness, gain: prepared.report?.appliedGain, audio: prepared.audio)
    }
}

extension CapturingSpeaker {
    /// A capturing speaker that measures real audio (``MeasuredPlayback``), timing speech by `speech`.
    public convenience init(
        info: DeviceInfo, clock: C, loudnessGuard: LoudnessGuard? = nil, latency: SpeakerLatency = .none,
        speech: MeasuredPlayback.SpeechTiming = .synthesized
    ) {
        self.init(info: info, clock: clock, loudnessGuard: loudnessGuard, latency: latency, measure: MeasuredPlayback(speech: speech))
    }
}
