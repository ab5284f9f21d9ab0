import CEbur128
import LibC
public import HAL

extension Loudness {
    /// Measures `audio`.
    public init(measuring audio: PCMAudio) {
        guard audio.channelCount > 0, audio.sampleRate > 0, !audio.samples.isEmpty,
              let state = ebur128_init(UInt32(audio.channelCount), UInt(audio.sampleRate), Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue))
        else {
            self = .silence
            return
        }
        var handle: UnsafeMutablePointer<ebur128_state>? = state
        defer { ebur128_destroy(&handle) }
        audio.samples.withUnsafeBufferPointer { _ = ebur128_add_frames_float(state, $0.baseAddress, audio.samples.count / audio.channelCount) }
        var loudness = 0.0
        let integrated = ebur128_loudness_global(state, &loudness) == 0 ? loudness : -.infinity
        var peak = 0.0
        for channel in 0..<audio.channelCount {
            var channelPeak = 0.0
            if ebur128_true_peak(state, UInt32(channel), &channelPeak) == 0 { peak = max(peak, channelPeak) }
        }
        self.init(integrated: integrated, truePeak: peak > 0 ? 20 * log10(peak) : -.infinity)
    }
}

extension LoudnessGuard {
    /// What the guard did to one clip.
    public struct Report: Sendable, Hashable, CustomStringConvertible {
        /// Before.
        public var measured: Loudness
        /// The gain applied, dB (0 when unchanged).
        public var gain: Double
        /// After.
        public var result: Loudness
        /// Why, in words.
        public var reason: String

        /// The gain, or `nil` when the guard left the audio as it was: what a `started` playback event says.
        public var appliedGain: Double? { gain == 0 ? nil : gain }

        /// One line.
        public var description: String {
            printfFormat("%.1f LUFS, peak %.1f dBTP -> gain %+.1f dB -> %.1f LUFS", measured.integrated, measured.truePeak, gain, result.integrated) + " (\(reason))"
        }
    }

    /// Returns `audio` with the guard's gain applied, and the report.
    public func apply(to audio: PCMAudio) -> (audio: PCMAudio, report: Report) {
        let measured = Loudness(measuring: audio)
        guard measured.integrated.isFinite else {
            return (audio, Report(measured: measured, gain: 0, result: measured, reason: "silent"))
        }
        var gain = 0.0
        var reason = "within the ceiling"
        if let target {
            gain = target - measured.integrated
            reason = "normalised to \(format(target)) LUFS"
        } else if measured.integrated > ceiling {
            gain = ceiling - measured.integrated
            reason = "above the \(format(ceiling)) LUFS ceiling"
        }
        if measured.integrated + gain > ceiling {
            gain = ceiling - measured.integrated
            reason = "limited to the \(format(ceiling)) LUFS ceiling"
        }
        if measured.truePeak.isFinite && measured.truePeak + gain > truePeakCeiling {
            gain = truePeakCeiling - measured.truePeak
            reason = "limited by the \(format(truePeakCeiling)) dBTP peak ceiling"
        }
        guard abs(gain) > 0.01 else {
            return (audio, Report(measured: measured, gain: 0, result: measured, reason: reason))
        }
        let factor = Float(pow(10, gain / 20))
        let scaled = PCMAudio(sampleRate: audio.sampleRate, channelCount: audio.channelCount, samples: audio.samples.map { $0 * factor })
        return (scaled, Report(measured: measured, gain: gain, result: Loudness(measuring: scaled), reason: reason))
    }

    private func format(_ value: Double) -> String { printfFormat("%g", value) }
}
