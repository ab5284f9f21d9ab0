import LibC

/// A clip made rather than read: a sine tone, `tone:HZ,SECONDS` (`tone:440,0.5`), or a two-note chime, `tone:chime`.
/// Any place that takes a clip's name takes these (an app's config, `hal play`, `hal audio check`, a trace's speaker
/// channel rendered by `hal convert --sound`); ``AudioClip/Source/init(clipName:filePath:)`` tells them from files.
///
/// The samples are 48 kHz mono, the same in every run. Each note starts and ends with a 10 ms raised-cosine fade, so
/// it does not click. The level is the one a ``LoudnessGuard`` passes unchanged (``LoudnessGuard/level``): a tone
/// played through a guard comes out at its target, or at its ceiling without one, never above it and never above its
/// true-peak ceiling. The level is worked out here, with no meter: the ITU-R BS.1770 K-weighting's gain at each
/// note's frequency, and the EBU R 128 gating blocks (400 ms, every 100 ms, the −10 LU relative gate) over the
/// samples, fades included. The Audio module's meter (libebur128) measures it within 0.01 LU of the level.
public struct Tone: Sendable, Hashable {
    /// One note: a frequency held for a number of frames.
    public struct Note: Sendable, Hashable {
        /// The frequency in millihertz: exact to the written decimal (`440.5` Hz is 440,500).
        public var millihertz: Int64
        /// The length in frames at ``Tone/sampleRate``.
        public var frames: Int

        /// A note of `millihertz` for `frames` frames.
        public init(millihertz: Int64, frames: Int) {
            self.millihertz = millihertz
            self.frames = frames
        }
    }

    /// The notes, one after another.
    public var notes: [Note]

    /// The frames per second of every tone.
    public static let sampleRate = 48_000
    /// The fade at each end of a note: 10 ms, or half a shorter note.
    public static let fadeFrames = 480
    /// The lowest and highest frequency a tone may have, Hz: the range of hearing, below the 24 kHz Nyquist frequency.
    public static let frequencies: ClosedRange<Int64> = 20...20_000
    /// The longest tone, seconds.
    public static let longestSeconds: Int64 = 60
    /// What every tone's name starts with.
    public static let prefix = "tone:"
    /// The form a tone's name takes, for messages.
    public static let form = "tone:HZ,SECONDS (e.g. tone:440,0.5) or tone:chime"

    /// How far below the guard's level a tone is made, dB: the meter reads the level worked out here within a few
    /// thousandths of a dB either way (the filters' first milliseconds), and a tone must never be over its guard.
    /// Inside the guard's own 0.01 dB tolerance, so a guard with a target leaves the tone as it is.
    public static let levelMargin = 0.001
    /// How far below the guard's true-peak ceiling a tone's amplitude stays, dB: the meter's oversampled true peak of
    /// a sine is up to about 0.01 dB above its amplitude.
    public static let peakMargin = 0.05

    /// The chime, `tone:chime`: 880 Hz for 0.2 s, then 660 Hz for 0.3 s. Half a second, so that EBU R 128 measures
    /// it (one gating block is 400 ms) and a guard's level means the same for it as for a longer clip.
    public static let chime = Tone(notes: [Note(millihertz: 880_000, frames: 9_600), Note(millihertz: 660_000, frames: 14_400)])

    /// The tone of `notes`.
    public init(notes: [Note]) {
        self.notes = notes
    }

    /// The tone a clip's name stands for: `tone:HZ,SECONDS` or `tone:chime`; `nil` when the name does not start with
    /// `tone:` (a file's name). HZ is a decimal of at most three places, 20 to 20,000; SECONDS a decimal of at most
    /// nine places, above 0 and at most 60, rounded to the nearest frame. A malformed tone is an error naming the
    /// field: `tone:440: expected tone:HZ,SECONDS (e.g. tone:440,0.5) or tone:chime`.
    public init?(clipName name: String) throws(ToneError) {
        guard name.hasPrefix(Self.prefix) else { return nil }
        let body = name.dropFirst(Self.prefix.count)
        if body == "chime" {
            self = Self.chime
            return
        }
        let fields = body.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == 2 else { throw ToneError(name: name, "expected \(Self.form)") }
        let (hz, seconds) = (fields[0], fields[1])
        guard let frequency = ExactDecimal(hz) else {
            throw ToneError(name: name, "HZ '\(hz)' is not a decimal number; expected \(Self.form)")
        }
        guard frequency >= ExactDecimal(Self.frequencies.lowerBound), frequency <= ExactDecimal(Self.frequencies.upperBound) else {
            throw ToneError(name: name, "HZ \(hz) is out of range; expected \(Self.frequencies.lowerBound) to \(Self.frequencies.upperBound)")
        }
        guard let millihertz = frequency.scaled(by: 3) else { throw ToneError(name: name, "HZ \(hz) has more than 3 decimal places") }
        guard let length = ExactDecimal(seconds) else {
            throw ToneError(name: name, "SECONDS '\(seconds)' is not a decimal number; expected \(Self.form)")
        }
        guard length > ExactDecimal(0), length <= ExactDecimal(Self.longestSeconds) else {
            throw ToneError(name: name, "SECONDS \(seconds) is out of range; expected more than 0 and at most \(Self.longestSeconds)")
        }
        guard let nanoseconds = length.scaled(by: 9) else { throw ToneError(name: name, "SECONDS \(seconds) has more than 9 decimal places") }
        // Nanoseconds × frames a second, to the nearest frame (half up): at most 6e10 × 48,000, well within Int64.
        let frames = Int((nanoseconds * Int64(Self.sampleRate) + 500_000_000) / 1_000_000_000)
        guard frames > 0 else { throw ToneError(name: name, "SECONDS \(seconds) is shorter than one frame at \(Self.sampleRate) Hz") }
        self.init(notes: [Note(millihertz: millihertz, frames: frames)])
    }

    /// The length in frames.
    public var frames: Int { notes.reduce(0) { $0 + $1.frames } }

    /// The length.
    public var duration: Duration { .nanoseconds(Int64(frames) * 1_000_000_000 / Int64(Self.sampleRate)) }

    /// The samples, at the level `loudnessGuard` passes unchanged (``LoudnessGuard/level``), or
    /// ``LoudnessGuard/standard``'s with no guard; never above the guard's true-peak ceiling (a low tone, which
    /// K-weighting turns down, may need more than that allows, and is then quieter than the level).
    public func audio(for loudnessGuard: LoudnessGuard?) -> PCMAudio {
        let loudnessGuard = loudnessGuard ?? .standard
        // Each note's amplitude makes its steady loudness the same: 1/√(K-weighting's power gain at its frequency).
        let amplitudes = notes.map { 1 / KWeighting.powerGain(hertz: Double($0.millihertz) / 1000).squareRoot() }
        var samples = [Float](repeating: 0, count: frames)
        var weighted = [Double](repeating: 0, count: frames)  // each sample's K-weighted power, for the gating blocks
        var offset = 0
        for (note, amplitude) in zip(notes, amplitudes) {
            let fade = min(Self.fadeFrames, note.frames / 2)
            let cycle = Int64(Self.sampleRate) * 1000  // the phase in millihertz-frames: exact for any frame
            for frame in 0..<note.frames {
                let phase = Double((Int64(frame) * note.millihertz) % cycle) / Double(cycle)
                let edge = min(frame, note.frames - 1 - frame)
                let envelope = edge < fade ? 0.5 - 0.5 * cos(Double.pi * Double(edge) / Double(fade)) : 1
                let value = amplitude * envelope * sin(2 * Double.pi * phase)
                samples[offset + frame] = Float(value)
                weighted[offset + frame] = value * value / (amplitude * amplitude)  // × G, which is 1/amplitude²
            }
            offset += note.frames
        }
        // At amplitude 1/√G a note's steady K-weighted power is ½: its loudness is −0.691 + 10·log10(½) LUFS.
        let steady = -0.691 + 10 * log10(0.5)
        let measured = Self.gatedLoudness(weighted) ?? steady
        var gain = pow(10, (loudnessGuard.level - Self.levelMargin - measured) / 20)
        if let loudest = amplitudes.max() { gain = min(gain, pow(10, (loudnessGuard.truePeakCeiling - Self.peakMargin) / 20) / loudest) }
        let factor = Float(gain)
        return PCMAudio(sampleRate: Self.sampleRate, channelCount: 1, samples: samples.map { $0 * factor })
    }

    /// EBU R 128's integrated loudness of K-weighted power `weighted`: the mean of the 400 ms blocks every 100 ms,
    /// without those 10 LU below it; `nil` when no block fits. (The −70 LUFS absolute gate is left out: no guard's
    /// level is near it.)
    private static func gatedLoudness(_ weighted: [Double]) -> Double? {
        let block = sampleRate * 4 / 10, hop = sampleRate / 10
        guard weighted.count >= block else { return nil }
        var sums = [0.0]
        sums.reserveCapacity(weighted.count + 1)
        for power in weighted { sums.append(sums[sums.count - 1] + power) }
        let blocks = stride(from: block, through: weighted.count, by: hop).map { (sums[$0] - sums[$0 - block]) / Double(block) }
        let threshold = blocks.reduce(0, +) / Double(blocks.count) / 10
        let kept = blocks.filter { $0 > threshold }
        return -0.691 + 10 * log10(kept.reduce(0, +) / Double(kept.count))
    }
}

/// The K-weighting of ITU-R BS.1770: a high-frequency shelf and a high-pass filter, as the standard gives them for
/// 48 kHz.
enum KWeighting {
    /// The power gain of the two filters at `hertz`, at 48 kHz (``Tone/sampleRate``).
    static func powerGain(hertz: Double) -> Double {
        let omega = 2 * Double.pi * hertz / 48_000
        // |b0 + b1·e^−jω + b2·e^−2jω|² / |1 + a1·e^−jω + a2·e^−2jω|² for each biquad.
        func gain(_ b: (Double, Double, Double), _ a: (Double, Double)) -> Double {
            func power(_ c0: Double, _ c1: Double, _ c2: Double) -> Double {
                let real = c0 + c1 * cos(omega) + c2 * cos(2 * omega)
                let imaginary = -(c1 * sin(omega) + c2 * sin(2 * omega))
                return real * real + imaginary * imaginary
            }
            return power(b.0, b.1, b.2) / power(1, a.0, a.1)
        }
        let shelf = gain((1.53512485958697, -2.69169618940638, 1.19839281085285), (-1.69065929318241, 0.73248077421585))
        let highPass = gain((1, -2, 1), (-1.99004745483398, 0.99007225036621))
        return shelf * highPass
    }
}

/// A clip name that starts `tone:` but is not a tone, with the field at fault.
public struct ToneError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name as written.
    public var name: String
    /// What is wrong and what would be valid.
    public var message: String

    /// The error `message` in `name`.
    public init(name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    /// `name: message`.
    public var description: String { "\(name): \(message)" }
}
