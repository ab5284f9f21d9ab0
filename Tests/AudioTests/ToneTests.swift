import Audio
import Foundation
import HAL
import HALTestDoubles
import Testing
import TestSupport
import TraceFormat

/// Tones (`tone:HZ,SECONDS`, `tone:chime`) measured by the package's meter (libebur128): at the level of the guard
/// they play through, which therefore passes them as they are.
@Suite struct ToneLoudnessTests {
    static let guards = [
        // The standard level, a ceiling alone, the viewer's target and ceiling, a target with a lower peak ceiling.
        LoudnessGuard.standard, LoudnessGuard(ceiling: -20), LoudnessGuard(target: -30, ceiling: -20), LoudnessGuard(target: -23, ceiling: -10, truePeakCeiling: -2),
    ]

    @Test(arguments: ["tone:100,0.5", "tone:440,0.5", "tone:997,1", "tone:1000,3", "tone:3150.5,0.45", "tone:8000,2", "tone:15000,1", "tone:chime"])
    func aToneMeasuresAtEachGuardsLevelAndTheGuardPassesIt(name: String) throws {
        let tone = try #require(try Tone(clipName: name))
        for loudnessGuard in Self.guards {
            let audio = tone.audio(for: loudnessGuard)
            let loudness = Loudness(measuring: audio)
            // The level worked out with no meter: the meter reads it within 0.01 LU below the guard's level (inside the
            // guard's own 0.01 dB tolerance), and never above it.
            let below = loudnessGuard.level - loudness.integrated
            #expect(below >= 0 && below < 0.01, "\(name) at \(loudnessGuard.level): \(loudness.integrated)")
            #expect(loudness.truePeak <= loudnessGuard.truePeakCeiling, "\(name): peak \(loudness.truePeak)")
            let report = loudnessGuard.apply(to: audio).report
            #expect(report.gain == 0 && report.appliedGain == nil, "\(name): \(report)")
        }
    }

    @Test func withNoGuardAToneIsAtTheStandardLevelAndALowOneStopsAtThePeakCeiling() throws {
        let plain = Loudness(measuring: try #require(try Tone(clipName: "tone:440,0.5")).audio(for: nil))
        #expect(plain.integrated <= -16 && plain.integrated > -16.01)
        // K-weighting takes about 13 dB off 20 Hz: −16 LUFS would need a peak above 0 dBFS, so the peak ceiling
        // holds it, quieter than the level and never over the guard.
        let low = try #require(try Tone(clipName: "tone:20,2"))
        let loudness = Loudness(measuring: low.audio(for: .standard))
        #expect(loudness.integrated < -17 && loudness.truePeak <= -1 && loudness.truePeak > -1.1, "\(loudness)")
        #expect(LoudnessGuard.standard.apply(to: low.audio(for: .standard)).report.gain == 0)
    }

    @Test func aToneShorterThanAGatingBlockHasTheLongOnesAmplitude() throws {
        // 0.1 s: no 400 ms block, so the meter calls it silent; its samples peak as a longer tone's do (within the
        // 0.01 dB a long tone's fades add), and the guard passes it as it is.
        let short = try #require(try Tone(clipName: "tone:440,0.1")).audio(for: .standard)
        let long = try #require(try Tone(clipName: "tone:440,10")).audio(for: .standard)
        #expect(Loudness(measuring: short).integrated == -.infinity)
        let ratio = Double(short.samples.map(abs).max()! / long.samples.map(abs).max()!)
        #expect(abs(20 * log10(ratio)) < 0.01, "\(ratio)")
        #expect(LoudnessGuard.standard.apply(to: short).report.gain == 0)
    }

    @Test func aToneIsPreparedOnceAndPlaysOnEverySpeaker() async throws {
        let loudnessGuard = LoudnessGuard(target: -30, ceiling: -20)
        let clip = AudioClip(name: "tone:chime", source: try AudioClip.Source(clipName: "tone:chime"), loudnessGuard: loudnessGuard)
        let prepared = try PreparedClips.prepare(clip, guard: loudnessGuard)
        #expect(PreparedClips.isKept(clip, guard: loudnessGuard))
        #expect(prepared.report?.appliedGain == nil && abs(prepared.loudness.integrated - -30) < 0.01, "\(String(describing: prepared.report))")
        #expect(prepared.audio.samples.count == 24_000)
        // The simulated speaker with no audio library times it by its notes.
        let estimated = try EstimatedSound().measure(clip, guard: loudnessGuard)
        #expect(estimated.duration == .milliseconds(500))
        // A speaker writing a WAV file: 0.5 s at 48 kHz, and a started event with no gain.
        let path = try makeScratchFolder() + "/chime.wav"
        let speaker = OutputSpeaker(
            info: DeviceInfo(uri: "wav:" + path, name: "wav", kind: .speaker, backend: "wav"), output: WAVOutput(path: path), clock: MonotonicClock(),
            loudnessGuard: .standard)
        let events = speaker.events(buffering: .unbounded)
        try await speaker.play(AudioClip(name: "tone:440,0.5", source: try AudioClip.Source(clipName: "tone:440,0.5")))
        var started: PlaybackEvent?
        for try await event in events {
            if event.phase == .started { started = event }
            if event.phase == .finished { break }
        }
        speaker.closeFile()
        #expect(started?.gain == nil)
        let written = try SoundFile.read(path)
        #expect(written.sampleRate == 48_000 && written.samples.count == 24_000)
        #expect(abs(Loudness(measuring: written).integrated - -16) < 0.05)
    }

    @Test func halPlaysAndChecksATone() throws {
        let folder = try makeScratchFolder()
        let out = folder + "/tone.wav"
        let (status, output) = try runProcess(halExecutable, ["play", "tone:440,0.5", "--out", out], timeout: 30)
        #expect(status == 0, "\(output)")
        let written = try SoundFile.read(out)
        #expect(written.samples.count == 24_000)
        #expect(abs(frequency(of: written.samples.map(\.pcm16Value), sampleRate: 48_000) - 440) < 0.2)  // 16-bit, fades: to a sample
        let bad = try runProcess(halExecutable, ["play", "tone:440", "--out", out], timeout: 30)
        #expect(bad.status != 0 && bad.output.contains("tone:440: expected tone:HZ,SECONDS (e.g. tone:440,0.5)"), "\(bad.output)")
        let check = try runProcess(halExecutable, ["audio", "check", "tone:1000,1", "tone:chime", "--ceiling=-20"], timeout: 30)
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("tone:1000,1   -20.0 LUFS   -17.0 dBTP  ok") && check.output.contains("tone:chime   -20.0 LUFS"), "\(check.output)")
    }

    @Test func halConvertRendersATonePlayedOnASpeakerChannel() throws {
        let folder = try makeScratchFolder()
        let header = TraceHeader(channels: [TraceChannel(id: "speaker", kind: .speaker, source: "capture:")])
        let writer = try TraceWriter(path: folder + "/played.jsonl", header: header)
        for (ms, phase, name) in [(1000, PlaybackPhase.started, "tone:440,0.5"), (1500, .finished, "tone:440,0.5"), (2000, .started, "tone:440")]
            as [(Int64, PlaybackPhase, String)]
        {
            try writer.write(.playback(PlaybackEvent(timestamp: Timestamp(nanoseconds: ms * 1_000_000), phase: phase, item: .clip(name: name))), channel: "speaker")
        }
        try writer.close()
        // The clips folder is empty: the tone is made, not looked for there; the malformed one is named with why.
        let (status, output) = try runProcess(halExecutable, ["convert", "--quiet", "--sound", folder, folder + "/played.jsonl", folder + "/played.mcap"], timeout: 60)
        #expect(status == 0, "\(output)")
        #expect(!output.contains("no sound for clip 'tone:440,0.5'"), "\(output)")
        #expect(output.contains("no sound for clip 'tone:440': tone:440: expected tone:HZ,SECONDS"), "\(output)")
    }
}
