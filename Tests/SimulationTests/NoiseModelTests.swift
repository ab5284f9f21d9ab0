import HAL
import Synthesis
import Testing

@Suite struct NoiseModelTests {
    func samples(_ model: IMUNoiseModel, truth: Vector3 = .zero, count: Int = 100_000, rate: Double = 100, seed: UInt64 = 7) -> [Vector3] {
        var process = IMUNoiseProcess(model: model, rate: rate, seed: seed)
        return (0..<count).map { _ in process.measure(truth) }
    }

    func standardDeviation(_ values: [Double]) -> Double {
        let mean = values.reduce(0, +) / Double(values.count)
        return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
    }

    @Test func whiteNoiseHasTheDensityTimesRootRate() {
        let values = samples(IMUNoiseModel(noiseDensity: 0.01), rate: 400)
        // σ = 0.01 · √400 = 0.2; 100 000 draws estimate it within 1 %.
        for axis in 0..<3 {
            #expect(abs(standardDeviation(values.map { $0[axis] }) - 0.2) < 0.002)
        }
        #expect(abs(values.map(\.x).reduce(0, +) / 100_000) < 0.003)
    }

    @Test func theSameSeedGivesTheSameNoiseAndAnotherSeedDoesNot() {
        let model = IMUNoisePreset.phone.gyroscope
        #expect(samples(model, count: 1000, seed: 3) == samples(model, count: 1000, seed: 3))
        #expect(samples(model, count: 1000, seed: 3) != samples(model, count: 1000, seed: 4))
    }

    @Test func biasIsFixedPlusDrawnThenWalks() {
        let fixed = samples(IMUNoiseModel(bias: [0.1, -0.2, 0.3]), count: 10)
        #expect(fixed.allSatisfy { $0 == Vector3(x: 0.1, y: -0.2, z: 0.3) })
        // A random walk of density 0.01 /s/√Hz spreads by 0.01 · √t: after 100 s, σ = 0.1.
        let ends = (0..<400).map { seed in samples(IMUNoiseModel(biasRandomWalk: 0.01), count: 10_000, seed: UInt64(seed)).last!.x }
        #expect(abs(standardDeviation(ends) - 0.1) < 0.015)
    }

    @Test func scaleMisalignmentQuantisationAndSaturation() {
        let model = IMUNoiseModel(scaleSigma: 0.05, misalignmentSigma: 0.02, resolution: 0.001, range: 10)
        let truth = Vector3(x: 4, y: 0, z: 0)
        let out = samples(model, truth: truth, count: 1).first!
        for axis in 0..<3 { #expect(abs((out[axis] / 0.001).rounded() * 0.001 - out[axis]) < 1e-12) }
        // Scale moves x; misalignment leaks some of x into y and z.
        #expect(out.x != 4)
        #expect(out.y != 0 && out.z != 0)
        #expect(abs(out.x - 4) < 1)
        let saturated = samples(IMUNoiseModel(range: 10), truth: Vector3(x: 50, y: -50, z: 3), count: 1).first!
        #expect(saturated == Vector3(x: 10, y: -10, z: 3))
    }

    @Test func presetsDescribeTheirGrades() {
        #expect(IMUNoisePreset.named.keys.sorted() == ["hobby", "phone"])
        #expect(IMUNoisePreset.phone.gyroscope.noiseDensity < IMUNoisePreset.phone.gyroscope.biasSigma)
        #expect(IMUNoisePreset.hobby.gyroscope.range < IMUNoisePreset.phone.gyroscope.range)
        #expect(IMUNoisePreset.hobby.accelerometer.biasSigma > IMUNoisePreset.phone.accelerometer.biasSigma)
    }

    @Test func gaussianDrawsAreStandardNormal() {
        var random = SeededRandom(seed: 11)
        let draws = (0..<200_000).map { _ in random.gaussian() }
        #expect(abs(standardDeviation(draws) - 1) < 0.01)
        #expect(abs(draws.reduce(0, +) / 200_000) < 0.01)
        let beyondTwo = Double(draws.filter { abs($0) > 2 }.count) / 200_000
        #expect(abs(beyondTwo - 0.0455) < 0.003)
    }
}
