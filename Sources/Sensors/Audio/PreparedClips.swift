public import HAL

/// Clips as a speaker plays them: decoded from ``HAL/AudioClip/start`` on, and through a loudness guard, with the
/// guard's report. Files are kept once prepared, for the whole process, because measuring loudness (EBU R 128 with
/// true peak) is the costly part of a play and a suite of scenarios plays the same few clips thousands of times.
///
/// A file is known by its path, size and modification time, so a file that changes is read again. Clips from memory
/// are prepared each time. A clip played from a point (``HAL/AudioClip/start``) takes the whole clip's gain and
/// loudness, so a soundtrack sounds the same after a seek. At most ``capacity`` files of at most ``largestCachedSamples`` samples are kept; the
/// cache starts over when full.
public enum PreparedClips {
    /// The most files kept.
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
        var file: FileVersion
        var loudnessGuard: LoudnessGuard?
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
        guard case .file(let path) = clip.source, let file = FileVersion(path: path) else { return try prepared(clip, loudnessGuard) }
        let key = Key(file: file, loudnessGuard: loudnessGuard)
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

    /// Whether the file of `clip` is kept prepared through `loudnessGuard`, as it is now: what a test checks to see
    /// that a clip is measured once.
    public static func isKept(_ clip: AudioClip, guard loudnessGuard: LoudnessGuard?) -> Bool {
        guard case .file(let path) = clip.source, let file = FileVersion(path: path) else { return false }
        return cache.withLock { $0[Key(file: file, loudnessGuard: loudnessGuard)] != nil }
    }

    /// Audio from memory (speech) through `loudnessGuard`, prepared each time.
    public static func prepare(_ audio: PCMAudio, guard loudnessGuard: LoudnessGuard?) -> Prepared {
        guard let loudnessGuard else { return Prepared(audio: audio, loudness: Loudness(measuring: audio), report: nil) }
        let (guarded, report) = loudnessGuard.apply(to: audio)
        return Prepared(audio: guarded, loudness: report.result, report: report)
    }

    private static func prepared(_ clip: AudioClip, _ loudnessGuard: LoudnessGuard?) throws -> Prepared {
        prepare(try clip.audio(), guard: loudnessGuard)  // the whole clip: `prepare` trims after
    }
}
