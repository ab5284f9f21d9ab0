import HALTestDoubles
import AppCore
import Audio
import DemoApps
import HAL
import Testing
import TestSupport

/// A speaker that fails on its second request, as a device gone mid-session does.
final class FailingSpeaker: Speaker, @unchecked Sendable {
    let info = DeviceInfo(uri: "test:failing", name: "failing", kind: .speaker, backend: "test")
    private var calls = 0
    func play(_ clip: AudioClip) async throws { try fail() }
    func speak(_ utterance: Utterance) async throws { try fail() }
    func pause() async throws { try fail() }
    func resume() async throws { try fail() }
    func stop() async throws { try fail() }
    func setVolume(_ volume: Double) async throws {}
    func events(buffering: ReadingBuffering) -> AsyncThrowingStream<PlaybackEvent, any Error> { AsyncThrowingStream { $0.finish() } }
    private func fail() throws {
        calls += 1
        if calls > 1 { throw DeviceError(.disconnected, uri: info.uri, "the sound card went away") }
    }
}

@Suite struct RunnerTests {
    @Test func aFailingSpeakerIsReportedOnceAndTheAppGoesOn() async throws {
        let trainer = try EmotionTrainer(config: TrainerConfig(questions: [
            .init(level: 1, prompt: "One?", choices: ["a", "b", "c"], answer: "a"),
            .init(level: 1, prompt: "Two?", choices: ["a", "b", "c"], answer: "a"),
            .init(level: 1, prompt: "Three?", choices: ["a", "b", "c"], answer: "a"),
        ]))
        let log = await events(trainer, tap(1, 0.1, 0.75) + tap(2, 0.1, 0.75) + tap(3, 0.1, 0.75), speaker: FailingSpeaker())
        let failed = log.named("speaker.failed")
        #expect(failed.count == 1)
        #expect(failed.first?.timestamp == at(1.08))
        #expect(failed.first?.attributes["error"]?.description.contains("the sound card went away") == true)
        #expect(log.named("answer.correct").count == 3)
        #expect(log.last(where: { $0.name != "speaker.skipped" })?.name == "stats")
        // What was asked of the gone speaker is logged as not heard: each "Correct!" (the narration is 2.5 s after a
        // question, and each answer comes sooner).
        #expect(log.named("speaker.skipped").map { $0.attributes["text"] } == Array(repeating: .string("Correct!"), count: 3))
    }

    /// An app that asks for a beep on every command, sets a timer 0.2 s later, and logs what it hears back.
    struct Listener: AppLogic {
        static let name = "listener"
        var timer: Timestamp?
        mutating func start(at time: Timestamp, output: inout AppOutput) {}
        mutating func handle(_ input: AppInput, output: inout AppOutput) {
            switch input {
            case .command(let command):
                output.emit("asked", at: command.timestamp)
                let beep = PCMAudio(sampleRate: 1000, channelCount: 1, samples: Array(repeating: 0.1, count: 500))
                output.request(.play(AudioClip(name: "beep", source: .pcm(beep))))
                timer = command.timestamp.advanced(by: .milliseconds(200))
            case .reading(.playback(let event), let channel):
                output.emit("heard.\(event.phase.rawValue)", at: event.timestamp, ["channel": .string(channel ?? "")])
            default:
                break
            }
        }
        var nextDeadline: Timestamp? { timer }
        mutating func advance(to time: Timestamp, output: inout AppOutput) {
            output.emit("timer", at: time)
            timer = nil
        }
    }

    @Test func aVirtualTimeSpeakerIsDrivenInTheInputsTimeAndHeardBackInOrderWithTimers() async throws {
        for latency in [0.3, 0.1] {
            let speaker = CapturingSpeaker(
                info: DeviceInfo(uri: "capture:slow", name: "slow", kind: .speaker, backend: "capture"), clock: VirtualClock(),
                latency: SpeakerLatency(base: .milliseconds(Int64(latency * 1000))))
            var runner = AppRunner(logic: Listener(), speaker: speaker)
            var log = await runner.start(at: at(0))
            log += await runner.feed(.command(AppCommand(timestamp: at(1), action: "beep")))
            log += await runner.feed(.tick(at(5)))
            let lines = log.map { EventLog.line($0, start: at(0)) }
            let expected = latency > 0.2 ? [
                "    1.000 asked", "    1.200 timer", "    1.300 speaker.started clip=beep latency=0.3", "    1.300 heard.started channel=speaker",
                "    1.800 speaker.finished clip=beep", "    1.800 heard.finished channel=speaker",
            ] : [
                "    1.000 asked", "    1.100 speaker.started clip=beep latency=0.1", "    1.100 heard.started channel=speaker",
                "    1.200 timer", "    1.600 speaker.finished clip=beep", "    1.600 heard.finished channel=speaker",
            ]
            #expect(lines == expected)
            // The same runner driven without suspending: a simulated speaker is never awaited.
            let twin = CapturingSpeaker(
                info: DeviceInfo(uri: "capture:slow", name: "slow", kind: .speaker, backend: "capture"), clock: VirtualClock(),
                latency: SpeakerLatency(base: .milliseconds(Int64(latency * 1000))))
            var synchronous = AppRunner(logic: Listener(), speaker: twin)
            #expect(synchronous.runsSynchronously)
            var syncLog = synchronous.syncStart(at: at(0))
            syncLog += synchronous.syncFeed(.command(AppCommand(timestamp: at(1), action: "beep")))
            syncLog += synchronous.syncFeed(.tick(at(5)))
            #expect(syncLog == log)
        }
        // A live speaker is awaited: its runner does not run synchronously.
        #expect(!AppRunner(logic: Listener(), speaker: FailingSpeaker()).runsSynchronously)
        let undriven = CapturingSpeaker(info: DeviceInfo(uri: "capture:live", name: "live", kind: .speaker, backend: "capture"), clock: VirtualClock())
        #expect(!AppRunner(logic: Listener(), speaker: undriven, drivesSpeaker: false).runsSynchronously)
        #expect(AppRunner(logic: Listener()).runsSynchronously)
    }

    /// Asks for two beeps at once, and stops the speaker when it hears the first one end.
    struct Stopper: AppLogic {
        static let name = "stopper"
        mutating func start(at time: Timestamp, output: inout AppOutput) {}
        mutating func handle(_ input: AppInput, output: inout AppOutput) {
            let beep = PCMAudio(sampleRate: 1000, channelCount: 1, samples: Array(repeating: 0.1, count: 500))
            switch input {
            case .command:
                output.request(.play(AudioClip(name: "a", source: .pcm(beep))))
                output.request(.play(AudioClip(name: "b", source: .pcm(beep))))
            case .reading(.playback(let event), _) where event.phase == .finished && event.item == .clip(name: "a"):
                output.request(.stop)
            default:
                break
            }
        }
    }

    @Test func whatTheAppsAnswerToAPlaybackEventCausesComesAfterTheEventsAlreadyDue() async throws {
        let speaker = CapturingSpeaker(info: DeviceInfo(uri: "capture:t", name: "t", kind: .speaker, backend: "capture"), clock: VirtualClock())
        var runner = AppRunner(logic: Stopper(), speaker: speaker)
        var log = await runner.start(at: at(0))
        log += await runner.feed(.command(AppCommand(timestamp: at(1), action: "go")))
        log += await runner.feed(.tick(at(5)))
        // "a" ends and "b" starts at 1.500 s, in one batch; the stop that answers "a" ending comes after both.
        #expect(log.map { EventLog.line($0, start: at(0)) } == [
            "    1.000 speaker.started clip=a latency=0.0", "    1.500 speaker.finished clip=a",
            "    1.500 speaker.started clip=b latency=0.5", "    1.500 speaker.stopped clip=b",
        ])
    }

    @Test func timersFireAtTheirOwnDeadlinesWhateverTheInputSpacing() async throws {
        let map = CampusMap(places: ["p": CampusPlace(name: "P", coordinate: GeoCoordinate(latitude: 49, longitude: -123))], route: ["p"])
        let fix = { (seconds: Double) in
            AppInput.reading(.location(LocationFix(
                timestamp: at(seconds), mode: .threeDimensional, coordinate: GeoCoordinate(latitude: 49.001, longitude: -123), horizontalAccuracy: 3)))
        }
        // The loss is due at 6 s whether the next input comes at 7 s or at 100 s.
        for next in [7.0, 100.0] {
            let log = await events(try CampusExplorer(map: map), [fix(0), fix(1), fix(next)])
            #expect(log.named("gps.lost").map(\.timestamp) == [at(6)])
        }
    }

    @Test func expectationsReportWhatHappened() {
        let events = [AppEvent(timestamp: at(5), name: "a", attributes: ["k": .string("v")]), AppEvent(timestamp: at(9), name: "b")]
        #expect(EventExpectation(event: "a", with: ["k": "v"], between: [4, 6]).check(events, start: .zero).passed)
        #expect(EventExpectation(event: "a", between: [6, 8]).check(events, start: .zero).line
            == "FAIL a between 6.000 s and 8.000 s: happened only outside the window, at 5.000 s")
        #expect(EventExpectation(no: "b").check(events, start: .zero).line == "FAIL no b: found 1, at 9.000 s")
        #expect(EventExpectation(event: "c").check(events, start: .zero).line == "FAIL c: never happened")
        #expect(EventExpectation(event: "a", count: 2).check(events, start: .zero).line == "FAIL a exactly 2×: found 1, at 5.000 s")
        let span = EventExpectation.Span(from: EventMatcher(event: "a"), to: EventMatcher(event: "b"))
        #expect(!EventExpectation(no: "a", during: span).check(events, start: .zero).passed)
        #expect(throws: AppConfigError(field: "expect[0]", "give exactly one of 'event' and 'no'")) {
            try EventExpectation(event: "a", no: "b").validate(field: "expect[0]")
        }
    }
}

@Suite struct LiveInputTests {
    struct Lost: Error { var time: Timestamp }

    /// Live devices: the merged stream ticks on the injected clock, so a timer fires while no device speaks.
    @Test func ticksFromTheInjectedClockFireTimersWhenDevicesAreSilent() async throws {
        let clock = VirtualClock(start: at(100))
        let (gps, feed) = AsyncThrowingStream.makeStream(of: Reading.self)
        let inputs = LiveInputs.merge([("gps", gps)], clock: clock, tick: Duration.milliseconds(500))
        let map = CampusMap(places: ["p": CampusPlace(name: "P", coordinate: GeoCoordinate(latitude: 49, longitude: -123))], route: ["p"])
        let acquired = Locked(false)
        let run = Task {
            var runner = AppRunner(logic: try CampusExplorer(map: map))
            try await runner.run(inputs, start: at(100)) { batch in
                if batch.contains(where: { $0.name == "gps.acquired" }) { acquired.withLock { $0 = true } }
                if let lost = batch.first(where: { $0.name == "gps.lost" }) { throw Lost(time: lost.timestamp) }
            }
        }
        feed.yield(.location(LocationFix(
            timestamp: at(100), mode: .threeDimensional, coordinate: GeoCoordinate(latitude: 49.001, longitude: -123), horizontalAccuracy: 3)))
        // The app has the fix before the clock moves: a tick handled first would start the fix's deadline later.
        let handled = try await waitUntil { acquired.withLock { $0 } }
        try #require(handled)
        // Only the clock moves from here, half a second at a time once the ticker sleeps on it.
        var spins = 0
        while clock.now < at(110), spins < 1_000_000 {
            spins += 1
            if clock.sleeperCount == 0 { await Task.yield(); continue }
            clock.advance(by: .milliseconds(500))
        }
        let result = await run.result
        feed.finish()
        guard case .failure(let error as Lost) = result else {
            Issue.record("the run ended without losing the fix: \(result)")
            return
        }
        #expect(error.time == at(105))  // the fix's deadline, not the tick that noticed it
    }

    /// A live speaker whose events stream fails (OutputSpeaker ends it so when its device goes; AudioTests
    /// covers that side) becomes one `speaker.failed`, and the viewer stops counting on its clip.
    @Test(.timeLimit(.minutes(1))) func aSpeakerWhoseEventsFailIsReportedAndTheViewerDropsItsSound() async throws {
        let clock = VirtualClock(start: .zero)
        let (touch, fingers) = AsyncThrowingStream.makeStream(of: Reading.self)
        let (playback, speakerEvents) = AsyncThrowingStream.makeStream(of: Reading.self)
        let inputs = LiveInputs.merge([("touch", touch)], feedback: [playback], clock: clock, tick: .seconds(3600))
        let (seen, saw) = AsyncStream.makeStream(of: String.self)
        let run = Task {
            var runner = AppRunner(logic: try ExperienceViewer(config: ViewerConfig(experience: ViewerTests.oneView())))
            var log: [AppEvent] = []
            try await runner.run(inputs, start: .zero) { batch in
                log += batch
                for event in batch { saw.yield(event.name) }
            }
            return log
        }
        for case .reading(let reading, _) in tap(1, 0.5, 0.5) { fingers.yield(reading) }
        var names = seen.makeAsyncIterator()
        while let name = await names.next(), name != "sound.played" {}
        speakerEvents.finish(throwing: DeviceError(.disconnected, uri: "alsa:test", "the device went away"))
        while let name = await names.next(), name != "sound.interrupted" {}
        for case .reading(let reading, _) in tap(2, 0.5, 0.5) { fingers.yield(reading) }
        fingers.finish()
        let log = try await run.value
        #expect(log.named("speaker.failed").map { $0.attributes["error"]?.description.contains("the device went away") } == [true])
        // The second tap plays the clip again instead of pausing a clip no one hears.
        #expect(log.named("sound.played").count == 2)
        #expect(log.named("sound.paused").isEmpty)
    }
}
