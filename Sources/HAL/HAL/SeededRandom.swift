import LibC
/// Seeded randomness for simulation: xoshiro256** seeded through SplitMix64, with
/// Gaussian draws by the Box–Muller transform. The same seed gives the same numbers
/// on every run.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)
    private var spareGaussian: Double?

    /// Creates a generator from a seed.
    public init(seed: UInt64) {
        var splitMix = seed
        func next() -> UInt64 {
            splitMix &+= 0x9E37_79B9_7F4A_7C15
            var z = splitMix
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (next(), next(), next(), next())
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = ((state.1 &* 5) << 7 | (state.1 &* 5) >> 57) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = state.3 << 45 | state.3 >> 19
        return result
    }

    /// A uniform double in (0, 1].
    public mutating func unit() -> Double {
        Double(next() >> 11 + 1) * 0x1p-53
    }

    /// A draw from the standard normal distribution.
    public mutating func gaussian() -> Double {
        if let spare = spareGaussian {
            spareGaussian = nil
            return spare
        }
        let radius = (-2 * log(unit())).squareRoot()
        let angle = 2 * Double.pi * unit()
        spareGaussian = radius * sin(angle)
        return radius * cos(angle)
    }

    /// Three independent standard normal draws.
    public mutating func gaussianVector() -> (Double, Double, Double) {
        (gaussian(), gaussian(), gaussian())
    }
}
