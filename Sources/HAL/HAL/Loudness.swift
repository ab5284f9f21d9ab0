
/// How loud audio is, by EBU R 128: measured by the `Audio` module (libebur128), carried here as a value.
public struct Loudness: Sendable, Hashable {
    /// Integrated loudness in LUFS (−∞ for silence).
    public var integrated: Double
    /// True peak in dBTP, over all channels (−∞ for silence).
    public var truePeak: Double

    /// A loudness of `integrated` LUFS with a true peak of `truePeak` dBTP.
    public init(integrated: Double, truePeak: Double) {
        self.integrated = integrated
        self.truePeak = truePeak
    }

    /// Silence: −∞ for both figures.
    public static let silence = Loudness(integrated: -.infinity, truePeak: -.infinity)

    /// The loudness of the same audio made `gain` dB louder: both figures move by the gain. That is exact while the
    /// audio stays above EBU R 128's −70 LUFS absolute gate, which is why ``isShiftable(by:)`` asks for 10 dB above it.
    public func shifted(by gain: Double) -> Loudness {
        var shifted = self
        shifted.integrated += gain
        shifted.truePeak += gain
        return shifted
    }

    /// Whether ``shifted(by:)`` gives what a measurement would: the result is at least −60 LUFS.
    public func isShiftable(by gain: Double) -> Bool { integrated.isFinite && integrated + gain >= -60 }
}

