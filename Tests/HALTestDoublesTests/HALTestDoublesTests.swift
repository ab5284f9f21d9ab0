import HAL
import HALTestDoubles
import Testing

/// The test doubles on HAL alone: a capturing speaker with estimated sound, and a screen of scripted videos.
@Suite struct HALTestDoublesTests {
    static func at(_ seconds: Double) -> Timestamp { Timestamp(nanoseconds: Int64((seconds * 1e9).rounded())) }

    @Test func speechLastsItsEstimateAndARateScalesIt() throws {
        let utterance = Utterance(text: "Which face is happy?")  // 20 characters
        #expect(EstimatedSound.estimatedDuration(of: utterance) == .milliseconds(1200))  // 0.1 s + 20 × 55 ms
        #expect(EstimatedSound.estimatedDuration(of: Utterance(text: "Which face is happy?", wordsPerMinute: 350)) == .milliseconds(600))
        // Held within espeak-ng's 80…450 words a minute.
        #expect(EstimatedSound.estimatedDuration(of: Utterance(text: "Which face is happy?", wordsPerMinute: 10_000))
            == EstimatedSound.estimatedDuration(of: Utterance(text: "Which face is happy?", wordsPerMinute: 450)))
        let sound = try EstimatedSound().measure(utterance, guard: nil)
        #expect(sound.duration == .milliseconds(1200) && sound.loudness == .silence && sound.gain == nil)
    }

    @Test func aClipInMemoryLastsItsSamplesAndAClipFileIsRefusedWithWhatItNeeds() throws {
        let audio = PCMAudio(sampleRate: 1000, channelCount: 1, samples: Array(repeating: 0, count: 1500))
        let clip = AudioClip(name: "beep", source: .pcm(audio), start: .milliseconds(500))
        #expect(try EstimatedSound().measure(clip, guard: nil).duration == .seconds(1))
        let file = AudioClip(name: "sounds/click.wav", source: .file(path: "sounds/click.wav"))
        #expect { try EstimatedSound().measure(file, guard: nil) } throws: { "\($0)".contains("clip 'sounds/click.wav'") && "\($0)".contains("MeasuredPlayback") }
    }

    @Test func aDrivenCapturingSpeakerQueuesWhatItIsAsked() async throws {
        let speaker = CapturingSpeaker(
            info: DeviceInfo(uri: "capture:test", name: "test", kind: .speaker, backend: "capture"), clock: VirtualClock(),
            latency: SpeakerLatency(base: .milliseconds(100)), measure: EstimatedSound())
        _ = speaker.advance(to: Self.at(1))
        try await speaker.speak(Utterance(text: "Hello"))  // 0.1 + 5 × 0.055 = 0.375 s
        try await speaker.speak(Utterance(text: "Hi"))  // 0.21 s, after the first
        let events = speaker.advance(to: Self.at(3))
        #expect(events.map(\.phase) == [.started, .finished, .started, .finished])
        #expect(events.map(\.timestamp) == [Self.at(1.1), Self.at(1.475), Self.at(1.475), Self.at(1.685)])
        #expect(speaker.captures.map(\.duration) == [.milliseconds(375), .milliseconds(210)])
    }

    @Test func aScriptedVideoShowsItsFramesAtItsRateAndFinishes() throws {
        let screen = SimulatedScreen(videos: ScriptedVideos(["intro.mp4": .init(frameCount: 3, rate: 2)]), startDelay: .milliseconds(250))
        try screen.open(VideoClip(name: "intro", path: "intro.mp4"), at: Self.at(10))
        #expect(screen.nextEventTime == Self.at(10.25))
        let outputs = screen.advance(to: Self.at(20))
        let frames = outputs.compactMap { if case .frame(let frame) = $0 { frame } else { nil } }
        #expect(frames.map(\.timestamp) == [Self.at(10.25), Self.at(10.75), Self.at(11.25)])
        #expect(frames.map(\.sequence) == [0, 1, 2])
        let phases = outputs.compactMap { if case .playback(let event) = $0 { event.phase } else { nil } }
        #expect(phases == [.started, .finished])
        #expect(outputs.last?.timestamp == Self.at(11.75))
    }

    @Test func aVideoTheScriptLacksCannotBeOpened() {
        let screen = SimulatedScreen(videos: ScriptedVideos(), startDelay: .zero)
        #expect { try screen.open(VideoClip(name: "x", path: "missing.mp4"), at: .zero) } throws: {
            ($0 as? DeviceError)?.code == .notFound && "\($0)".contains("missing.mp4")
        }
    }
}
