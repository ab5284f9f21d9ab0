import Audio
import AppCore
import DemoApps
import HAL
import HALTestDoubles
import Testing
import TestSupport

/// Apps' configs naming tones (`tone:HZ,SECONDS`, `tone:chime`) where they name clips: played as tones, never looked
/// for in the config's folder, at the level of the guard they play through.
@Suite struct ToneClipTests {
    @Test func theTrainersFeedbackSoundsCanBeTonesAndAreNotLookedForInTheFolder() async throws {
        var config = TrainerConfig(questions: [TrainerTests.question])
        config.sounds = TrainerConfig.Sounds(correct: "tone:chime", incorrect: "tone:220,0.4", click: "tone:1000,0.05")
        let speaker = TrainerTests.speaker()  // measures real audio: a file that is not there would fail to play
        let inputs = TrainerTests.choice(1, of: 3, at: 1) + TrainerTests.choice(0, of: 3, at: 5)  // wrong, then right
        let log = await events(try EmotionTrainer(config: config, soundFolder: "/no/such/folder"), inputs, end: 10, speaker: speaker)
        let clips = speaker.captures.filter { if case .clip = $0.item { true } else { false } }
        #expect(clips.map(\.item) == ["tone:1000,0.05", "tone:220,0.4", "tone:1000,0.05", "tone:chime"].map { .clip(name: $0) })
        #expect(clips.map(\.duration) == [.milliseconds(50), .milliseconds(400), .milliseconds(50), .milliseconds(500)])
        // No guard: the standard level, −16 LUFS, and never over it (the 50 ms click is too short to measure).
        for capture in clips where capture.duration >= .milliseconds(400) {
            #expect(capture.loudness.integrated <= -16 && capture.loudness.integrated > -16.01, "\(capture)")
        }
        #expect(log.named("speaker.failed").isEmpty)
        #expect(throws: AppConfigError(field: "sounds.click", "tone:440: expected tone:HZ,SECONDS (e.g. tone:440,0.5) or tone:chime")) {
            var bad = config
            bad.sounds?.click = "tone:440"
            try bad.validate()
        }
    }

    @Test func theViewersChimeIsAtItsGuardsTargetAndTheGuardLeavesItAlone() async throws {
        let speaker = CapturingSpeaker(info: DeviceInfo(uri: "capture:test", name: "test", kind: .speaker, backend: "capture"), clock: VirtualClock())
        let viewer = try ExperienceViewer(config: ViewerConfig(experience: ViewerTests.oneView(clip: "tone:chime")), clipFolder: "/no/such/folder")
        let log = await events(viewer, tap(1, 0.5, 0.5), end: 3, speaker: speaker)
        #expect(log.named("sound.played").map { $0.attributes["clip"] } == [.string("tone:chime")])
        // At the viewer's −30 LUFS target already: the guard applies no gain, so `speaker.started` names none.
        let started = try #require(log.named("speaker.started").first)
        #expect(started.attributes["gain"] == nil, "\(started)")
        #expect(log.named("speaker.finished").map(\.timestamp) == [at(1.58)])
        let capture = try #require(speaker.captures.first)
        #expect(capture.loudness.integrated <= ExperienceViewer.loudness.level && capture.loudness.integrated > -30.01, "\(capture)")
        #expect(throws: AppConfigError(field: "experience.panoramas[0].hotspots[0].clip", "tone:5,1: HZ 5 is out of range; expected 20 to 20000")) {
            try ExperienceViewer(config: ViewerConfig(experience: ViewerTests.oneView(clip: "tone:5,1")))
        }
    }
}
