/// Keeps clips and speech within a loudness target and ceiling, and says what it changed.
///
/// - Normalising (`target` set): the gain brings integrated loudness to the target.
/// - Limiting: loudness above `ceiling` is brought down to it; quieter audio is left alone unless normalising.
/// - The gain never lets the true peak exceed `truePeakCeiling` (so nothing clips).
///
/// A speaker of the Audio module measures each item (EBU R 128, libebur128) and applies the guard, its own or the
/// one an ``AudioClip`` carries; `started` playback events say the gain it applied.
public struct LoudnessGuard: Sendable, Hashable {
    /// The integrated loudness to normalise to, LUFS, or `nil` to leave quieter audio alone.
    public var target: Double?
    /// The loudest integrated loudness allowed, LUFS.
    public var ceiling: Double
    /// The highest true peak allowed, dBTP.
    public var truePeakCeiling: Double

    /// Creates a guard.
    public init(target: Double? = nil, ceiling: Double, truePeakCeiling: Double = -1) {
        self.target = target
        self.ceiling = ceiling
        self.truePeakCeiling = truePeakCeiling
    }

    /// The integrated loudness the guard passes unchanged, LUFS: its target, or its ceiling without one (a target
    /// above the ceiling is capped by it). What a ``Tone`` plays at.
    public var level: Double { min(target ?? ceiling, ceiling) }

    /// A −16 LUFS ceiling and a −1 dBTP true-peak ceiling: what `hal audio check` checks by default, and the level a
    /// ``Tone`` plays at when no guard applies.
    public static let standard = LoudnessGuard(ceiling: -16, truePeakCeiling: -1)
}
