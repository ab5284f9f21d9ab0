public import HAL

/// Clips as a speaker plays them: decoded from ``HAL/AudioClip/start`` on, and through a loudness guard, with the
/// guard's report. Files are kept once prepared, for the whole process, because measuring loudness (EBU R 128 with
/// true peak) is the costly part of a play and a suite of scenarios plays the same few clips thousands of times.
///
/// A file is known by its path, size and modification time, so a file that changes is read again; a tone
/// (``HAL/Tone``) by its notes, made at the guard's level once. Clips from memory are prepared each time. A clip
/// played from a point (``HAL/AudioClip/start``) takes the whole clip's gain and loudness, so a soundtrack sounds the
/// same after a seek. At most ``capacity`` files and tones of at most ``largestCachedSamples`` samples are kept; the
/// cache starts over when full.
public enum PreparedClips {
    /// The most files and tones kept.
    public static let capacity = 64
    /// The longest file kept, in samples (about 45 s of 44.1 kHz stereo); longer ones are prepared each time.
    public static let largestCachedSamples = 4_000_000

    /// A clip ready to play, its loudness, and what the guard did to it (`nil` without a guard).
    public struct Prepared: Sendable {
        /// The samples to play, after the guard.
        public var audio: PCMAudio
        /// Their loudness.
        public var loudness: Loudness
        /// What the guard did.
        public var report: LoudnessGuard.Report?
    }

    private struct Key: Hashable {
        enum Origin: Hashable {
            case file(FileVersion)
            case tone(Tone)
        }

        var origin: Origin
        var loudnessGuard: LoudnessGuard?

        /// The key of a clip that is kept: a file that can be read, or a tone; `nil` for samples in memory.
        init?(_ clip: AudioClip, _ loudnessGuard: LoudnessGuard?) {
            switch clip.source {
            case .file(let path):
                guard let file = FileVersion(path: path) else { return nil }
                origin = .file(file)
            case .tone(let tone): origin = .tone(tone)
            case .pcm: return nil
            }
            self.loudnessGuard = loudnessGuard
        }
    }

    private static let cache = Locked<[Key: Prepared]>([:])

    /// The clip decoded and through `loudnessGuard`. Errors are the file's, as ``SoundFile/read(_:)`` gives them.
    public static func prepare(_ clip: AudioClip, guard loudnessGuard: LoudnessGuard?) throws -> Prepared {
        if clip.start > .zero {
            var whole = clip
            whole.start = .zero
            var prepared = try prepare(whole, guard: loudnessGuard)
            prepared.audio = prepared.audio.dropping(clip.start)
            return prepared
        }
        guard let key = Key(clip, loudnessGuard) else { return try prepared(clip, loudnessGuard) }
        if let known = cache.withLock({ $0[key] }) { return known }
        let made = try prepared(clip, loudnessGuard)
        if made.audio.samples.count <= largestCachedSamples {
            cache.withLock { cache in
                if cache.count >= capacity { cache.removeAll() }
                cache[key] = made
            }
        }
        return made
    }

    /// Whether the file (as it is now) or the tone of `clip` is kept prepared through `loudnessGuard`: what a test
    /// checks to see that a clip is measured once.
    public static func isKept(_ clip: AudioClip, guard loudnessGuard: LoudnessGuard?) -> Bool {
        guard let key = Key(clip, loudnessGuard) else { return false }
        return cache.withLock { $0[key] != nil }
    }

    /// Audio from memory (speech) through `loudnessGuard`, prepared each time.
    public static func prepare(_ audio: PCMAudio, guard loudnessGuard: LoudnessGuard?) -> Prepared {
        guard let loudnessGuard else { return Prepared(audio: audio, loudness: Loudness(measuring: audio), report: nil) }
        let (guarded, report) = loudnessGuard.apply(to: audio)
        return Prepared(audio: guarded, loudness: report.result, report: report)
    }

    private static func prepared(_ clip: AudioClip, _ loudnessGuard: LoudnessGuard?) throws -> Prepared {
        prepare(try clip.audio(for: loudnessGuard), guard: loudnessGuard)  // the whole clip: `prepare` trims after
    }
}
