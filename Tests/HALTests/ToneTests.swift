import HAL
import Testing

/// `tone:HZ,SECONDS` and `tone:chime`: read from a clip's name, made as exact 48 kHz samples. Their loudness against
/// the meter is AudioTests' `ToneLoudnessTests`.
@Suite struct ToneTests {
    /// The frequency from the rising zero crossings, each placed between its two samples by linear interpolation.
    static func frequency(of samples: ArraySlice<Float>) -> (hertz: Double, crossings: Int) {
        var crossings: [Double] = []
        for index in samples.indices.dropFirst() where samples[index - 1] < 0 && samples[index] >= 0 {
            let (before, after) = (Double(samples[index - 1]), Double(samples[index]))
            crossings.append(Double(index - 1) + before / (before - after))
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return (0, crossings.count) }
        return (Double(crossings.count - 1) * Double(Tone.sampleRate) / (last - first), crossings.count)
    }

    @Test func aToneHasItsFrequencyAndLengthExactly() throws {
        let tone = try #require(try Tone(clipName: "tone:440,0.5"))
        #expect(tone.notes == [Tone.Note(millihertz: 440_000, frames: 24_000)])
        #expect(tone.duration == .milliseconds(500))
        let audio = tone.audio(for: nil)
        #expect(audio.sampleRate == 48_000 && audio.channelCount == 1 && audio.samples.count == 24_000)
        // Between the fades (10 ms each end, where a sample that fades to exactly 0 reads as a crossing): the rising
        // crossings at k·48000/440 frames, k = 5…215.
        let fade = Tone.fadeFrames
        let (hertz, crossings) = Self.frequency(of: audio.samples[fade..<(24_000 - fade)])
        #expect(crossings == 211)
        #expect(abs(hertz - 440) < 0.001, "\(hertz)")
        // A fractional frequency, exact to the millihertz.
        let odd = try #require(try Tone(clipName: "tone:3150.5,2"))
        #expect(odd.notes == [Tone.Note(millihertz: 3_150_500, frames: 96_000)])
        #expect(abs(Self.frequency(of: odd.audio(for: nil).samples[fade..<(96_000 - fade)]).hertz - 3150.5) < 0.001)
        // SECONDS to the nearest frame, half up: 1.00001 s is 48,000.48 frames, 1.00002 s 48,000.96.
        #expect(try Tone(clipName: "tone:440,1.00001")?.frames == 48_000)
        #expect(try Tone(clipName: "tone:440,1.00002")?.frames == 48_001)
        #expect(try Tone(clipName: "tone:20000,60")?.frames == 2_880_000)
        // The same samples every time.
        #expect(tone.audio(for: .standard) == tone.audio(for: .standard))
    }

    @Test func theEndsFadeInAndOutWithoutAClick() throws {
        let samples = try #require(try Tone(clipName: "tone:1000,0.5")).audio(for: nil).samples
        let peak = samples.map(abs).max()!
        #expect(samples.first == 0 && abs(samples.last!) < peak / 100)
        // The first 10 ms stay below the full amplitude, and each cycle's peak grows.
        let cycle = Tone.sampleRate / 1000
        let cyclePeaks = stride(from: 0, to: Tone.fadeFrames, by: cycle).map { samples[$0..<($0 + cycle)].map(abs).max()! }
        #expect(cyclePeaks.last! < peak && zip(cyclePeaks, cyclePeaks.dropFirst()).allSatisfy { $0 < $1 }, "\(cyclePeaks)")
        #expect(abs(samples[Tone.fadeFrames..<(Tone.fadeFrames + cycle)].map(abs).max()! - peak) < peak / 1000)
    }

    @Test func theChimeIs880HzThen660Hz() throws {
        let chime = try #require(try Tone(clipName: "tone:chime"))
        #expect(chime == Tone.chime && chime.frames == 24_000 && chime.duration == .milliseconds(500))
        let samples = chime.audio(for: nil).samples
        let fade = Tone.fadeFrames
        #expect(abs(Self.frequency(of: samples[fade..<(9_600 - fade)]).hertz - 880) < 0.001)
        #expect(abs(Self.frequency(of: samples[(9_600 + fade)..<(24_000 - fade)]).hertz - 660) < 0.001)
        #expect(samples[9_600] == 0)  // the second note starts from silence: no step between the notes
    }

    @Test func aClipNameIsAToneOrAFile() throws {
        #expect(try AudioClip.Source(clipName: "tone:440,0.5") { "/config/" + $0 } == .tone(Tone(notes: [Tone.Note(millihertz: 440_000, frames: 24_000)])))
        #expect(try AudioClip.Source(clipName: "bell.wav") { "/config/" + $0 } == .file(path: "/config/bell.wav"))
        // Only the prefix makes a tone: a bare `chime` or a folder named tone: is a file.
        #expect(try AudioClip.Source(clipName: "chime") == .file(path: "chime"))
        #expect(try Tone(clipName: "sounds/tone:440,1") == nil)
    }

    @Test(arguments: [
        ("tone:", "tone:: expected tone:HZ,SECONDS (e.g. tone:440,0.5) or tone:chime"),
        ("tone:440", "tone:440: expected tone:HZ,SECONDS (e.g. tone:440,0.5) or tone:chime"),
        ("tone:440,0.5,1", "tone:440,0.5,1: expected tone:HZ,SECONDS (e.g. tone:440,0.5) or tone:chime"),
        ("tone:abc,1", "tone:abc,1: HZ 'abc' is not a decimal number; expected tone:HZ,SECONDS (e.g. tone:440,0.5) or tone:chime"),
        ("tone:5,1", "tone:5,1: HZ 5 is out of range; expected 20 to 20000"),
        ("tone:20000.001,1", "tone:20000.001,1: HZ 20000.001 is out of range; expected 20 to 20000"),
        ("tone:440.0001,1", "tone:440.0001,1: HZ 440.0001 has more than 3 decimal places"),
        ("tone:440,", "tone:440,: SECONDS '' is not a decimal number; expected tone:HZ,SECONDS (e.g. tone:440,0.5) or tone:chime"),
        ("tone:440,0", "tone:440,0: SECONDS 0 is out of range; expected more than 0 and at most 60"),
        ("tone:440,-1", "tone:440,-1: SECONDS -1 is out of range; expected more than 0 and at most 60"),
        ("tone:440,61", "tone:440,61: SECONDS 61 is out of range; expected more than 0 and at most 60"),
        ("tone:440,0.0000000001", "tone:440,0.0000000001: SECONDS 0.0000000001 has more than 9 decimal places"),
        ("tone:440,0.00001", "tone:440,0.00001: SECONDS 0.00001 is shorter than one frame at 48000 Hz"),
    ])
    func aMalformedToneNamesTheField(name: String, message: String) {
        #expect(throws: ToneError(name: name, String(message.dropFirst(name.count + 2)))) { try Tone(clipName: name) }
        do {
            _ = try AudioClip.Source(clipName: name)
            Issue.record("\(name) was accepted")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func aGuardsLevelIsItsTargetCappedByItsCeiling() {
        #expect(LoudnessGuard(ceiling: -20).level == -20)
        #expect(LoudnessGuard(target: -30, ceiling: -20).level == -30)
        #expect(LoudnessGuard(target: -10, ceiling: -20).level == -20)
        #expect(LoudnessGuard.standard.level == -16 && LoudnessGuard.standard.truePeakCeiling == -1)
    }
}
