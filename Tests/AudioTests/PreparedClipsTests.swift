import Audio
import Foundation
import HAL
import Testing
import TestSupport

/// Clips prepared once per file, and loudness moved by a volume without measuring again.
@Suite struct PreparedClipsTests {
    static func tone(seconds: Double, amplitude: Float) -> PCMAudio {
        PCMAudio(sampleRate: 8000, channelCount: 1, samples: (0..<Int(seconds * 8000)).map { amplitude * Float(sin(Double($0) * 2 * Double.pi * 440 / 8000)) })
    }

    @Test func aFileIsPreparedOnceAndAgainWhenItChanges() throws {
        let path = try makeScratchFolder() + "/tone.wav"
        let loudnessGuard = LoudnessGuard(target: -30, ceiling: -20)
        try SoundFile.writeWAV(Self.tone(seconds: 1, amplitude: 0.5), to: path)
        let clip = AudioClip(name: "tone.wav", source: .file(path: path))
        #expect(!PreparedClips.isKept(clip, guard: loudnessGuard))
        let first = try PreparedClips.prepare(clip, guard: loudnessGuard)
        #expect(PreparedClips.isKept(clip, guard: loudnessGuard))
        #expect(!PreparedClips.isKept(clip, guard: nil))
        let again = try PreparedClips.prepare(clip, guard: loudnessGuard)
        #expect(first.audio == again.audio && first.report == again.report)
        #expect(abs(first.loudness.integrated - -30) < 0.1)
        // Louder and longer: a new size, so it is read and measured again.
        try SoundFile.writeWAV(Self.tone(seconds: 2, amplitude: 0.9), to: path)
        #expect(!PreparedClips.isKept(clip, guard: loudnessGuard))
        let changed = try PreparedClips.prepare(clip, guard: loudnessGuard)
        #expect(changed.audio.duration == .seconds(2))
        #expect(changed.report!.measured.integrated > first.report!.measured.integrated + 4)
        // From a point on: the whole clip's gain, on the rest of its samples.
        var later = clip
        later.start = .milliseconds(1500)
        let tail = try PreparedClips.prepare(later, guard: loudnessGuard)
        #expect(tail.audio.duration == .milliseconds(500) && tail.report == changed.report)
        #expect(tail.audio.samples == Array(changed.audio.samples.suffix(4000)))
        // With no guard, measured as it is.
        let plain = try PreparedClips.prepare(clip, guard: nil)
        #expect(plain.report == nil && plain.loudness == Loudness(measuring: plain.audio))
        // A file that is gone is the file's error.
        #expect(throws: (any Error).self) { try PreparedClips.prepare(AudioClip(name: "x", source: .file(path: path + ".missing")), guard: nil) }
    }

    @Test func aVolumeMovesTheLoudnessByItsGainAsAMeasurementDoes() {
        let audio = Self.tone(seconds: 1, amplitude: 0.5)
        let loudness = Loudness(measuring: audio)
        for volume in [0.25, 0.3, 0.8] {
            let gain = 20 * log10(volume)
            let measured = Loudness(measuring: PCMAudio(sampleRate: 8000, channelCount: 1, samples: audio.samples.map { $0 * Float(volume) }))
            #expect(loudness.isShiftable(by: gain))
            #expect(abs(loudness.shifted(by: gain).integrated - measured.integrated) < 0.01)
            #expect(abs(loudness.shifted(by: gain).truePeak - measured.truePeak) < 0.01)
        }
        #expect(!loudness.isShiftable(by: -80))  // below the absolute gate it must be measured
    }
}
