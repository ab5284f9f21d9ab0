import HALTestDoubles
import Audio
import CSndfile
import Foundation
import HAL
import Replay
import TraceFormat
import TestSupport
import Testing

/// A sine tone: `amplitude` peak, mono.
func tone(frequency: Double, amplitude: Float, seconds: Double, sampleRate: Int) -> PCMAudio {
    let count = Int(seconds * Double(sampleRate))
    let samples = (0..<count).map { amplitude * Float(sin(2 * .pi * frequency * Double($0) / Double(sampleRate))) }
    return PCMAudio(sampleRate: sampleRate, channelCount: 1, samples: samples)
}

extension Float {
    /// The sample as the 16-bit value a WAV file stores.
    var pcm16Value: Int16 { Int16(Swift.max(-32768, Swift.min(32767, (self * 32768).rounded()))) }
}

/// The frequency of a mono signal from its rising zero crossings.
func frequency(of samples: [Int16], sampleRate: Int) -> Double {
    var crossings: [Int] = []
    for index in 1..<samples.count where samples[index - 1] < 0 && samples[index] >= 0 { crossings.append(index) }
    guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
    return Double(crossings.count - 1) * Double(sampleRate) / Double(last - first)
}

/// Real alsa-lib, writing through its `file` plugin into a raw file: what the backend sends is what
/// a sound card would get. Each test runs `hal` with its own `ALSA_CONFIG_PATH`.
@Suite(.serialized)
struct ALSAFilePluginTests {

    /// An ALSA configuration whose default PCM writes raw PCM to `raw`, through a slave at `rate` if given.
    static func configuration(in folder: String, raw: String, rate: Int? = nil) throws -> String {
        var text = try String(contentsOfFile: "/usr/share/alsa/alsa.conf", encoding: .utf8)
        text += "\npcm.rawfile { type file; slave.pcm \"null\"; file \"\(raw)\"; format \"raw\" }\n"
        if let rate {
            text += "pcm.!default { type plug; slave { pcm \"rawfile\"; rate \(rate) } }\n"
        } else {
            text += "pcm.!default \"rawfile\"\n"
        }
        let path = folder + "/alsa.conf"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func rawSamples(_ path: String) throws -> [Int16] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map { Int16(littleEndian: $0) }
    }

    /// Writes a 440 Hz tone at 22,050 Hz as a WAV clip, plays it with `hal play` into the file plugin
    /// (through a slave at `rate` if given), and returns the clip's path and the raw samples written.
    static func playTone(seconds: Double, slaveRate rate: Int? = nil) throws -> (clip: String, written: [Int16]) {
        let folder = try makeScratchFolder()
        let clip = folder + "/a440.wav"
        try SoundFile.writeWAV(tone(frequency: 440, amplitude: 0.5, seconds: seconds, sampleRate: 22050), to: clip)
        let raw = folder + "/out.raw"
        let (status, output) = try runProcess(
            halExecutable, ["play", clip], environment: ["ALSA_CONFIG_PATH": try configuration(in: folder, raw: raw, rate: rate)], timeout: 30)
        #expect(status == 0, "\(output)")
        return (clip, try rawSamples(raw))
    }

    @Test func theFilePluginGetsExactlyThePCMThatWasPlayed() throws {
        let (clip, written) = try Self.playTone(seconds: 0.5)
        let sent = try SoundFile.read(clip).samples.map(\.pcm16Value)
        #expect(written.count == 11025)
        #expect(written == sent)
        #expect(abs(frequency(of: written, sampleRate: 22050) - 440) < 1)
        let rms = (written.map { Double($0) * Double($0) }.reduce(0, +) / Double(written.count)).squareRoot() / 32768
        #expect(abs(rms - 0.5 / 2.squareRoot()) < 0.005)
    }

    @Test func alsaLibResamplesForADeviceAtAnotherRate() throws {
        let (_, written) = try Self.playTone(seconds: 1, slaveRate: 48000)
        #expect(abs(written.count - 48000) < 480, "\(written.count) frames")
        #expect(abs(frequency(of: written, sampleRate: 48000) - 440) < 2)
    }

    @Test func saySpeaksIntoTheDevice() throws {
        let folder = try makeScratchFolder()
        let raw = folder + "/out.raw"
        let (status, output) = try runProcess(
            halExecutable, ["say", "I see ice cream"], environment: ["ALSA_CONFIG_PATH": try Self.configuration(in: folder, raw: raw)], timeout: 30)
        #expect(status == 0, "\(output)")
        let written = try Self.rawSamples(raw)
        #expect(written.count > 11025, "\(written.count) samples: less than half a second of speech")
        #expect(written.contains { abs(Int($0)) > 3000 })
    }
}

struct SpeechAndLoudnessTests {
    @Test func espeakSpeaksLongerForLongerTextAndDifferentlyPerVoice() throws {
        let short = try SpeechSynthesizer.synthesize(Utterance(text: "I see ice cream"))
        #expect(short.sampleRate == 22050 && short.channelCount == 1)
        #expect(short.duration > .milliseconds(500) && short.duration < .seconds(3))
        #expect(Loudness(measuring: short).integrated > -30)
        let long = try SpeechSynthesizer.synthesize(Utterance(text: "I see ice cream and a big red bus at the zoo"))
        #expect(long.duration > short.duration + .milliseconds(800))
        let french = try SpeechSynthesizer.synthesize(Utterance(text: "I see ice cream", voice: "fr"))
        #expect(french.samples != short.samples)
        for voice in ["es", "cmn"] {
            #expect(try SpeechSynthesizer.synthesize(Utterance(text: "hola", voice: voice)).samples.count > 2205)
        }
        let slow = try SpeechSynthesizer.synthesize(Utterance(text: "I see ice cream", wordsPerMinute: 90))
        #expect(slow.duration > short.duration)
        do {
            _ = try SpeechSynthesizer.synthesize(Utterance(text: "x", voice: "xx-nowhere"))
            Issue.record("an unknown voice was accepted")
        } catch {
            #expect(error.description == "espeak-ng has no voice 'xx-nowhere' (try en, fr, es, cmn; espeak-ng --voices lists them)")
        }
        // The same utterance again: espeak-ng's wave generator keeps state, so its length may differ a little,
        // more when other tests in the process speak in between.
        let again = try SpeechSynthesizer.synthesize(Utterance(text: "I see ice cream"))
        #expect(abs(again.samples.count - short.samples.count) < short.samples.count / 4)
    }

    @Test func aToneAtAKnownLevelMeasuresWithinHalfALoudnessUnit() {
        // EBU Tech 3341: a 997 Hz sine at 0 dBFS in one channel reads −3.01 LUFS.
        let quiet = Loudness(measuring: tone(frequency: 997, amplitude: 0.1, seconds: 5, sampleRate: 48000))
        #expect(abs(quiet.integrated - -23.01) < 0.5, "\(quiet.integrated)")
        #expect(abs(quiet.truePeak - -20) < 0.5, "\(quiet.truePeak)")
        let silent = Loudness(measuring: PCMAudio(sampleRate: 48000, channelCount: 1, samples: [Float](repeating: 0, count: 48000)))
        #expect(silent.integrated == -.infinity)
    }

    @Test func theGuardBringsALoudClipUnderTheCeilingAndSaysSo() {
        let loud = tone(frequency: 997, amplitude: 0.9, seconds: 3, sampleRate: 48000)
        let guardrail = LoudnessGuard(ceiling: -20)
        let (audio, report) = guardrail.apply(to: loud)
        #expect(report.measured.integrated > -5)
        #expect(report.result.integrated <= -19.9 && report.result.integrated > -20.5, "\(report)")
        #expect(abs(report.gain - (-20 - report.measured.integrated)) < 0.01)
        #expect(report.reason == "above the -20 LUFS ceiling")
        #expect(audio.samples.count == loud.samples.count)
        // A quiet clip is left alone unless normalising.
        let quiet = tone(frequency: 997, amplitude: 0.05, seconds: 3, sampleRate: 48000)
        #expect(guardrail.apply(to: quiet).report.gain == 0)
        let normalised = LoudnessGuard(target: -23, ceiling: -20).apply(to: quiet).report
        #expect(abs(normalised.result.integrated - -23) < 0.2, "\(normalised)")
    }

    @Test func queuedItemsPlayInOrderIntoAWAVFileWithTheirEvents() async throws {
        let folder = try makeScratchFolder()
        let path = folder + "/out.wav"
        let clock = MonotonicClock()
        let speaker = OutputSpeaker(
            info: DeviceInfo(uri: "wav:\(path)", name: "test", kind: .speaker, backend: "wav"), output: WAVOutput(path: path), clock: clock)
        let events = speaker.events(buffering: .unbounded)
        let beep = tone(frequency: 440, amplitude: 0.5, seconds: 0.2, sampleRate: 22050)
        try await speaker.play(AudioClip(name: "beep", source: .pcm(beep)))
        try await speaker.speak(Utterance(text: "go"))
        var phases: [String] = []
        for try await event in events {
            switch event.item {
            case .clip(let name): phases.append("\(event.phase.rawValue) \(name)")
            case .speech(let text, let voice): phases.append("\(event.phase.rawValue) \(text) (\(voice))")
            }
            if phases.count == 4 { break }
        }
        #expect(phases == ["started beep", "finished beep", "started go (en)", "finished go (en)"])
        speaker.closeFile()
        let written = try SoundFile.read(path)
        let speech = try SpeechSynthesizer.synthesize(Utterance(text: "go"))
        // espeak-ng's length for the same text drifts with its state (other tests in the process speak other
        // voices in between), so the speech part is compared loosely; the beep part exactly, below.
        #expect(abs(written.samples.count - (beep.samples.count + speech.samples.count)) < speech.samples.count / 4)
        #expect(zip(written.samples, beep.samples).allSatisfy { abs($0 - $1) < 1.0 / 16384 })
        // A clip of another format cannot join the same WAV file.
        let stereo = PCMAudio(sampleRate: 48000, channelCount: 2, samples: [0, 0])
        try await speaker.play(AudioClip(name: "stereo", source: .pcm(stereo)))
        await speaker.waitUntilIdle()
        await #expect(throws: DeviceError.self) { try await speaker.play(AudioClip(name: "again", source: .pcm(beep))) }
    }

    /// A clip played from a point (a soundtrack after a seek) takes the whole clip's gain, even when what is left is
    /// shorter than one 400 ms gating block and so could not be measured on its own.
    @Test func aClipFromAPointTakesTheWholeClipsGain() async throws {
        let folder = try makeScratchFolder()
        let source = folder + "/loud.wav", path = folder + "/out.wav"
        try SoundFile.writeWAV(tone(frequency: 997, amplitude: 0.8, seconds: 3, sampleRate: 22050), to: source)
        let loudnessGuard = LoudnessGuard(target: -30, ceiling: -20)
        let speaker = OutputSpeaker(
            info: DeviceInfo(uri: "wav:\(path)", name: "test", kind: .speaker, backend: "wav"), output: WAVOutput(path: path),
            clock: MonotonicClock(), loudnessGuard: loudnessGuard)
        let events = speaker.events(buffering: .unbounded)
        try await speaker.play(AudioClip(name: "loud.wav", source: .file(path: source), start: .milliseconds(2800)))
        let started = try await collect(events, count: 1)
        await speaker.waitUntilIdle()
        speaker.closeFile()
        let whole = loudnessGuard.apply(to: try SoundFile.read(source))
        #expect(whole.report.gain < -10)
        #expect(started.map(\.phase) == [.started] && started.first?.gain == whole.report.gain)
        let written = try SoundFile.read(path)
        let tail = Array(whole.audio.samples.suffix(whole.audio.samples.count - 2800 * 22050 / 1000))
        #expect(written.samples.count == tail.count)
        #expect(zip(written.samples, tail).allSatisfy { abs($0 - $1) < 1.0 / 8192 })
    }
}

/// The capturing speaker on a virtual clock: what an app test asserts on.
struct CapturingSpeakerTests {
    static func seconds(_ value: Double) -> Timestamp { Timestamp(nanoseconds: Int64((value * 1e9).rounded())) }

    static func describe(_ event: PlaybackEvent) -> String {
        let what: String
        switch event.item {
        case .clip(let name): what = name
        case .speech(let text, let voice): what = "'\(text)' (\(voice))"
        }
        return "\(event.timestamp) \(event.phase.rawValue) \(what)"
    }

    @Test func theGOButtonSpokeItsWordsAtTheTimeItWasPressed() async throws {
        let clock = VirtualClock(start: Self.seconds(12.4))
        let speaker = CapturingSpeaker(info: DeviceInfo(uri: "capture:test", name: "test", kind: .speaker, backend: "capture"), clock: clock)
        let events = speaker.events(buffering: .unbounded)
        try await speaker.speak(Utterance(text: "I see ice cream"))
        let beep = tone(frequency: 440, amplitude: 0.5, seconds: 0.5, sampleRate: 22050)
        try await speaker.play(AudioClip(name: "beep", source: .pcm(beep)))
        let captures = speaker.captures
        #expect(captures.count == 2)
        let speech = try #require(captures.first)
        #expect(speech.item == .speech(text: "I see ice cream", voice: "en"))
        #expect(speech.start == Self.seconds(12.4))
        #expect(speech.duration > .milliseconds(500) && speech.end == speech.start.advanced(by: speech.duration))
        #expect(speech.loudness.integrated > -30 && speech.loudness.truePeak < 0)
        // The beep queues behind the speech.
        #expect(captures[1].start == speech.end && captures[1].duration == .milliseconds(500))
        clock.advance(to: captures[1].end)
        let delivered = try await collect(events, count: 4)
        #expect(delivered.map(Self.describe) == [
            "\(speech.start) started 'I see ice cream' (en)", "\(speech.end) finished 'I see ice cream' (en)",
            "\(speech.end) started beep", "\(captures[1].end) finished beep",
        ])

        // Into a trace's speaker channel and back: the same events.
        let folder = try makeScratchFolder()
        let path = folder + "/speaker.jsonl"
        let channel = TraceChannel(id: "speaker", device: speaker.info)
        let writer = try TraceWriter(path: path, header: TraceHeader(channels: [channel]))
        for event in delivered { try writer.write(.playback(event), channel: "speaker") }
        try writer.close()
        let replayed = try DeviceFactory(backends: [TraceBackend()]).open("trace:\(path)#speaker", as: (any PlaybackEventSource).self)
        var again: [PlaybackEvent] = []
        for try await event in replayed.readings(buffering: .unbounded) { again.append(event) }
        #expect(again == delivered)
    }

    @Test func aSlowSpeakerStartsEachItemItsSeededLatencyLateAndSaysWhenItWasAsked() async throws {
        let latency = SpeakerLatency(base: .milliseconds(300), jitter: .milliseconds(100), seed: 9)
        let delays = (0..<50).map { latency.delay(ofRequest: $0) }
        // Seeded: the same seed gives the same delays, another seed others; never negative, spread around the base.
        #expect(delays == (0..<50).map { SpeakerLatency(base: .milliseconds(300), jitter: .milliseconds(100), seed: 9).delay(ofRequest: $0) })
        #expect(delays != (0..<50).map { SpeakerLatency(base: .milliseconds(300), jitter: .milliseconds(100), seed: 10).delay(ofRequest: $0) })
        #expect(delays.allSatisfy { $0 >= .zero } && Set(delays).count > 40)
        let mean = delays.map(\.seconds).reduce(0, +) / 50
        #expect(abs(mean - 0.3) < 0.05, "\(mean)")
        #expect(SpeakerLatency(base: .milliseconds(250)).delay(ofRequest: 7) == .milliseconds(250))

        let beep = tone(frequency: 440, amplitude: 0.5, seconds: 0.5, sampleRate: 22050)
        func run() async throws -> [PlaybackEvent] {
            // Driven by a runner's times: the clock is never read.
            let speaker = CapturingSpeaker(
                info: DeviceInfo(uri: "capture:slow", name: "slow", kind: .speaker, backend: "capture"), clock: VirtualClock(),
                latency: latency, speech: .estimated)
            var events = speaker.advance(to: Self.seconds(1))
            try await speaker.play(AudioClip(name: "beep", source: .pcm(beep)))
            #expect(speaker.nextEventTime == Self.seconds(1).advanced(by: delays[0]))
            events += speaker.advance(to: Self.seconds(1.1))
            try await speaker.speak(Utterance(text: "go"))  // queued behind the beep: it waits for it, not for the latency
            events += speaker.advance(to: Self.seconds(5))
            try await speaker.play(AudioClip(name: "late", source: .pcm(beep)))
            events += speaker.advance(to: Self.seconds(10))
            #expect(speaker.nextEventTime == nil)
            return events
        }
        let events = try await run()
        #expect(try await run() == events)
        let goLength = try SpeechSynthesizer.estimatedDuration(of: Utterance(text: "go"))
        let beepStart = Self.seconds(1).advanced(by: delays[0])
        let lateStart = Self.seconds(5).advanced(by: delays[2])
        #expect(events == [
            PlaybackEvent(timestamp: beepStart, phase: .started, item: .clip(name: "beep"), requested: Self.seconds(1)),
            PlaybackEvent(timestamp: beepStart.advanced(by: .milliseconds(500)), phase: .finished, item: .clip(name: "beep")),
            PlaybackEvent(
                timestamp: beepStart.advanced(by: .milliseconds(500)), phase: .started, item: .speech(text: "go", voice: "en"),
                requested: Self.seconds(1.1)),
            PlaybackEvent(timestamp: beepStart.advanced(by: .milliseconds(500) + goLength), phase: .finished, item: .speech(text: "go", voice: "en")),
            PlaybackEvent(timestamp: lateStart, phase: .started, item: .clip(name: "late"), requested: Self.seconds(5)),
            PlaybackEvent(timestamp: lateStart.advanced(by: .milliseconds(500)), phase: .finished, item: .clip(name: "late")),
        ])
        #expect(events[4].latency == delays[2])
        // A pause during the latency holds the item: it starts the pause's length later (1.8 s + 2.6 s); a request
        // during the pause follows the item before it, not a whole pause later.
        let speaker = CapturingSpeaker(
            info: DeviceInfo(uri: "capture:slow", name: "slow", kind: .speaker, backend: "capture"), clock: VirtualClock(),
            latency: SpeakerLatency(base: .milliseconds(800)))
        var held = speaker.advance(to: Self.seconds(1))
        try await speaker.play(AudioClip(name: "beep", source: .pcm(beep)))
        held += speaker.advance(to: Self.seconds(1.4))
        try await speaker.pause()
        held += speaker.advance(to: Self.seconds(3))
        try await speaker.play(AudioClip(name: "next", source: .pcm(beep)))
        held += speaker.advance(to: Self.seconds(4))
        try await speaker.resume()
        held += speaker.advance(to: Self.seconds(10))
        #expect(held.map { "\($0.phase.rawValue) \($0.timestamp.seconds)" } == [
            "started 4.4", "finished 4.9", "started 4.9", "finished 5.4",  // "next" follows the beep, its latency long past
        ])
        // The estimate: the same every time, longer for longer text and slower speech; unknown voices refused.
        #expect(goLength == .milliseconds(210))
        #expect(try SpeechSynthesizer.estimatedDuration(of: Utterance(text: "go", wordsPerMinute: 87)) > goLength)
        #expect(throws: SpeechSynthesizer.Failure.self) { try SpeechSynthesizer.estimatedDuration(of: Utterance(text: "go", voice: "no-such-voice")) }
    }

    @Test func aClipsOwnLoudnessGuardReplacesTheSpeakersAndTheStartSaysTheGain() async throws {
        let speaker = CapturingSpeaker(
            info: DeviceInfo(uri: "capture:test", name: "test", kind: .speaker, backend: "capture"), clock: VirtualClock(),
            loudnessGuard: LoudnessGuard(ceiling: -10))
        let loud = tone(frequency: 997, amplitude: 0.9, seconds: 1, sampleRate: 48000)
        _ = speaker.advance(to: .zero)
        try await speaker.play(AudioClip(name: "speaker's", source: .pcm(loud)))
        try await speaker.play(AudioClip(name: "clip's", source: .pcm(loud), loudnessGuard: LoudnessGuard(target: -30, ceiling: -20)))
        let started = speaker.advance(to: Self.seconds(5)).filter { $0.phase == .started }
        let measured = Loudness(measuring: loud).integrated
        #expect(started.map { $0.gain.map { ($0 * 10).rounded() / 10 } } == [((-10 - measured) * 10).rounded() / 10, ((-30 - measured) * 10).rounded() / 10])
        #expect(abs(speaker.captures[1].loudness.integrated - -30) < 0.2)
    }

    @Test func pauseHoldsTheQueueAndStopDropsWhatHadNotStarted() async throws {
        let clock = VirtualClock(start: .zero)
        let speaker = CapturingSpeaker(info: DeviceInfo(uri: "capture:test", name: "test", kind: .speaker, backend: "capture"), clock: clock)
        let events = speaker.events(buffering: .unbounded)
        let long = tone(frequency: 440, amplitude: 0.5, seconds: 2, sampleRate: 22050)
        try await speaker.play(AudioClip(name: "long", source: .pcm(long)))
        try await speaker.play(AudioClip(name: "next", source: .pcm(long)))
        clock.advance(to: Self.seconds(0.5))
        try await speaker.pause()
        clock.advance(to: Self.seconds(1.5))
        try await speaker.resume()
        clock.advance(to: Self.seconds(2))
        try await speaker.stop()
        let delivered = try await collect(events, count: 4)
        #expect(delivered.map(Self.describe) == [
            "0.000000000 started long", "0.500000000 paused long", "1.500000000 resumed long", "2.000000000 stopped long",
        ])
        #expect(speaker.captures.map(\.end) == [Self.seconds(2)])
        // Nothing more comes: "next" never started.
        clock.advance(to: Self.seconds(10))
        #expect(try await collect(speaker.events(buffering: .unbounded), count: 1, seconds: 0.3).isEmpty)
    }
}

/// An output that fails after some writes, as a device unplugged mid-clip does: ALSA here has no
/// device that can vanish, so the speaker's failure path is driven with this test double.
final class VanishingOutput: PCMOutput {
    var writesLeft: Int
    init(writes: Int) { writesLeft = writes }
    func start(sampleRate: Int, channelCount: Int) throws(DeviceError) {}
    func write(_ samples: ArraySlice<Float>) throws(DeviceError) {
        guard writesLeft > 0 else { throw DeviceError(.disconnected, uri: "alsa:test", "the device went away (write failed: No such device)") }
        writesLeft -= 1
    }
    func finish() throws(DeviceError) {}
    func abort() {}
}

struct SpeakerFailureTests {
    @Test func aDeviceGoneMidClipEndsTheEventsWithATypedErrorAndRefusesMore() async throws {
        let speaker = OutputSpeaker(
            info: DeviceInfo(uri: "alsa:test", name: "test", kind: .speaker, backend: "alsa"), output: VanishingOutput(writes: 3), clock: MonotonicClock())
        let events = speaker.events(buffering: .unbounded)
        let clip = AudioClip(name: "long", source: .pcm(tone(frequency: 440, amplitude: 0.5, seconds: 1, sampleRate: 22050)))
        try await speaker.play(clip)
        var phases: [PlaybackPhase] = []
        var ending: DeviceError?
        do {
            for try await event in events { phases.append(event.phase) }
        } catch let error as DeviceError {
            ending = error
        }
        #expect(phases == [.started])
        #expect(ending?.code == .disconnected)
        await #expect(throws: DeviceError(.disconnected, uri: "alsa:test", "the device went away (write failed: No such device)")) {
            try await speaker.play(clip)
        }
    }

    @Test func aMissingALSADeviceIsATypedError() throws {
        let folder = try makeScratchFolder()
        let clip = folder + "/beep.wav"
        try SoundFile.writeWAV(tone(frequency: 440, amplitude: 0.5, seconds: 0.1, sampleRate: 22050), to: clip)
        let (status, output) = try runProcess(halExecutable, ["play", clip, "--device", "alsa:hw:7,0"], timeout: 30)
        #expect(status != 0)
        #expect(output.contains("alsa:hw:7,0: cannot open 'hw:7,0'"), "\(output)")
        let missing = try runProcess(halExecutable, ["play", folder + "/none.wav", "--out", folder + "/x.wav"], timeout: 30)
        #expect(missing.status != 0)
        #expect(missing.output.contains("\(folder)/none.wav: System error"), "\(missing.output)")
    }

    /// The viewer's shipped clips against its guard's ceiling (−20 LUFS, `ExperienceViewer.loudness`): the two
    /// tones are too loud and are named; the spoken welcome is within it. The viewer plays them limited.
    @Test func audioCheckFlagsShippedClipsAboveTheViewersCeiling() throws {
        let clips = ["bell.wav", "hall-welcome.wav", "welcome.wav"].map { packageRoot + "/traces/viewer/clips/" + $0 }
        let (status, output) = try runProcess(halExecutable, ["audio", "check", "--ceiling=-20"] + clips, timeout: 30)
        #expect(status == 1)
        let lines = output.split(separator: "\n")
        #expect(lines.count == 3, "\(output)")
        #expect(lines.filter { $0.contains("LOUD: above the -20 LUFS ceiling") }.map { $0.split(separator: " ")[0].split(separator: "/").last! }
            == ["bell.wav", "welcome.wav"], "\(output)")
        #expect(lines.contains { $0.contains("hall-welcome.wav") && $0.hasSuffix("ok") }, "\(output)")
    }

    @Test func audioCheckFlagsClipsAboveTheCeiling() throws {
        let folder = try makeScratchFolder()
        try SoundFile.writeWAV(tone(frequency: 997, amplitude: 0.9, seconds: 1, sampleRate: 48000), to: folder + "/loud.wav")
        try SoundFile.writeWAV(tone(frequency: 997, amplitude: 0.05, seconds: 1, sampleRate: 48000), to: folder + "/quiet.wav")
        let (status, output) = try runProcess(
            halExecutable, ["audio", "check", folder + "/loud.wav", folder + "/quiet.wav", "--ceiling=-20"], timeout: 30)
        #expect(status == 1)
        let lines = output.split(separator: "\n")
        #expect(lines.contains { $0.contains("loud.wav") && $0.contains("LOUD: above the -20 LUFS ceiling") }, "\(output)")
        #expect(lines.contains { $0.contains("quiet.wav") && $0.hasSuffix("ok") }, "\(output)")
    }
}

/// An output that takes a block only when the test allows it, as a sound card takes samples only as
/// fast as it plays them: the `null` and `file` PCMs take everything at once, so a clip would be over
/// before it could be paused. The test drives it block by block, with no timing involved.
final class GatedOutput: PCMOutput, @unchecked Sendable {
    private let lock = NSLock()
    private let permits = DispatchSemaphore(value: 0)
    private var kept: [Float] = []
    private var blocks = 0
    var samples: [Float] { lock.withLock { kept } }
    var blocksWritten: Int { lock.withLock { blocks } }
    func allow(_ count: Int) { for _ in 0..<count { permits.signal() } }
    func start(sampleRate: Int, channelCount: Int) throws(DeviceError) {}
    func write(_ samples: ArraySlice<Float>) throws(DeviceError) {
        permits.wait()
        lock.withLock {
            kept.append(contentsOf: samples)
            blocks += 1
        }
    }
    func finish() throws(DeviceError) {}
    func abort() {}

    /// Waits until `count` blocks were written; returns whether they were (within `stateTimeout`).
    func waitForBlocks(_ count: Int) async throws -> Bool {
        try await waitUntil(every: .milliseconds(1)) { blocksWritten >= count }
    }
}

struct OutputSpeakerControlTests {
    static func speaker(_ output: GatedOutput) -> OutputSpeaker<MonotonicClock> {
        OutputSpeaker(info: DeviceInfo(uri: "test:gated", name: "gated", kind: .speaker, backend: "test"), output: output, clock: MonotonicClock())
    }

    /// A tone of `blocks` whole speaker blocks.
    static func clip(blocks: Int) -> PCMAudio {
        tone(frequency: 440, amplitude: 0.5, seconds: Double(blocks * OutputSpeaker<MonotonicClock>.blockFrames) / 22050, sampleRate: 22050)
    }

    @Test func pauseResumeAndVolumeApplyWhilePlaying() async throws {
        let output = GatedOutput()
        let speaker = Self.speaker(output)
        var events = speaker.events(buffering: .unbounded).makeAsyncIterator()
        let clip = Self.clip(blocks: 8)
        try await speaker.play(AudioClip(name: "tone", source: .pcm(clip)))
        #expect(try await events.next()?.phase == .started)
        output.allow(2)
        try #require(await output.waitForBlocks(2))
        try await speaker.pause()
        output.allow(1)  // a write already waiting may finish; then the pause holds
        #expect(try await events.next()?.phase == .paused)
        // The playback thread writes nothing from its `.paused` event on, so this count is final until the resume.
        let heldAt = output.samples.count
        output.allow(100)
        // Given time and permits to write, a held pause writes nothing. The wait only gives a broken pause the chance
        // to show: a correct one passes however long it lasts, so no result depends on the machine's speed.
        try await Task.sleep(for: .milliseconds(50))
        #expect(output.samples.count == heldAt, "samples were written while paused")
        try await speaker.setVolume(0.5)
        try await speaker.resume()
        #expect(try await events.next()?.phase == .resumed)
        #expect(try await events.next()?.phase == .finished)
        let written = output.samples
        #expect(written.count == clip.samples.count)
        // Before the change, full level; after it, half.
        #expect(written[..<heldAt] == clip.samples[..<heldAt])
        #expect(zip(written[heldAt...], clip.samples[heldAt...]).allSatisfy { $0 == $1 * 0.5 })
        #expect(heldAt >= 2 * OutputSpeaker<MonotonicClock>.blockFrames && heldAt < clip.samples.count)
    }

    @Test func stopEndsTheItemAndDropsTheQueue() async throws {
        let output = GatedOutput()
        let speaker = Self.speaker(output)
        let events = speaker.events(buffering: .unbounded)
        let clip = Self.clip(blocks: 8)
        try await speaker.play(AudioClip(name: "first", source: .pcm(clip)))
        try await speaker.play(AudioClip(name: "second", source: .pcm(clip)))
        output.allow(2)
        try #require(await output.waitForBlocks(2))
        try await speaker.stop()
        output.allow(1)
        await speaker.waitUntilIdle()
        // Idle, the speaker has sent all its events: the short wait is for a third that must never come.
        let delivered = try await collect(events, count: 3, seconds: 0.5)
        #expect(delivered.map(\.phase) == [.started, .stopped])
        #expect(delivered.map(\.item) == [.clip(name: "first"), .clip(name: "first")])
        #expect(output.samples.count < clip.samples.count)
        // The speaker plays again after a stop.
        output.allow(100)
        try await speaker.play(AudioClip(name: "third", source: .pcm(clip)))
        await speaker.waitUntilIdle()
        #expect(output.samples.count > clip.samples.count)
    }
}

/// Underrun recovery through real alsa-lib, on a test sound card that keeps time: an alsa-lib
/// external PCM plugin (`Fixtures/timed_pcm.c`, built here with gcc) that consumes samples at the
/// real-time rate. alsa-lib's `null` and `file` PCMs cannot underrun; a card that keeps time does
/// when the writer stops feeding it, here by pausing without `snd_pcm_pause`.
///
/// alsa-lib reads `ALSA_CONFIG_PATH` once per process, so this is the only test that opens an ALSA
/// device in the test process itself; the others run `hal` with their own configuration.
/// Sound files whose headers lie about their length.
struct SoundFileBoundTests {
    @Test func aHeaderClaimingABillionFramesReadsOnlyWhatIsThere() throws {
        let folder = try makeScratchFolder()
        let claimed: UInt32 = 2_000_000_000  // bytes of 16-bit mono: a billion frames
        var bytes = Array("RIFF".utf8) + withUnsafeBytes(of: (claimed + 36).littleEndian, Array.init) + Array("WAVEfmt ".utf8)
        for (value, size) in [(16, 4), (1, 2), (1, 2), (16000, 4), (32000, 4), (2, 2), (16, 2)] as [(UInt32, Int)] {
            bytes += withUnsafeBytes(of: value.littleEndian, Array.init).prefix(size)
        }
        bytes += Array("data".utf8) + withUnsafeBytes(of: claimed.littleEndian, Array.init) + [UInt8](repeating: 0x10, count: 100)
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/claim.wav"))
        let audio = try SoundFile.read(folder + "/claim.wav")
        #expect(audio.samples.count == 50)  // libsndfile trusts the file's length; memory follows what was read
    }

    @Test func aClipLongerThanTenMinutesIsRefusedWithItsLength() throws {
        let folder = try makeScratchFolder()
        try SoundFile.writeWAV(PCMAudio(sampleRate: 1000, channelCount: 1, samples: [Float](repeating: 0, count: 601_000)), to: folder + "/long.wav")
        do {
            _ = try SoundFile.read(folder + "/long.wav")
            Issue.record("an 601 s clip was read")
        } catch {
            #expect(error.description.contains("601000 frames is longer than 600 s at 1000 Hz"), "\(error)")
        }
    }
}

struct ALSAUnderrunTests {
    /// The ALSA output, counting the blocks it has taken: the test knows from them when the card is playing.
    final class CountingOutput: PCMOutput, @unchecked Sendable {
        let alsa: ALSAOutput
        private let written = Locked(0)
        init(_ alsa: ALSAOutput) { self.alsa = alsa }
        var blocksWritten: Int { written.withLock { $0 } }
        func start(sampleRate: Int, channelCount: Int) throws(DeviceError) { try alsa.start(sampleRate: sampleRate, channelCount: channelCount) }
        func write(_ samples: ArraySlice<Float>) throws(DeviceError) {
            try alsa.write(samples)
            written.withLock { $0 += 1 }
        }
        func finish() throws(DeviceError) { try alsa.finish() }
        func abort() { alsa.abort() }
    }

    /// Each step waits for a state: the card playing, the speaker holding, the underrun counted. The one wait for a
    /// time is the pause's length, a lower bound that a loaded machine only makes longer.
    @Test func aPauseLongerThanTheBufferUnderrunsAndIsRecovered() async throws {
        let folder = try makeScratchFolder()
        let plugin = folder + "/libasound_module_pcm_timed.so"
        let flags = try await runProcess("/usr/bin/pkg-config", ["--cflags", "--libs", "alsa"], timeout: 30).output
            .split(whereSeparator: \.isWhitespace).map(String.init)
        let (built, log) = try await runProcess(
            "/usr/bin/gcc", ["-shared", "-fPIC", "-DPIC", "-o", plugin, "\(packageRoot)/Tests/AudioTests/Fixtures/timed_pcm.c"] + flags, timeout: 120)
        try #require(built == 0, "\(log)")
        var configuration = try String(contentsOfFile: "/usr/share/alsa/alsa.conf", encoding: .utf8)
        configuration += "\npcm_type.timed { lib \"\(plugin)\" }\npcm.timedcard { type timed }\n"
        try configuration.write(toFile: folder + "/alsa.conf", atomically: true, encoding: .utf8)
        setenv("ALSA_CONFIG_PATH", folder + "/alsa.conf", 1)
        // Programs this process starts later must not inherit it (the lane runs one test at a time, so no other
        // thread reads the environment meanwhile).
        defer { unsetenv("ALSA_CONFIG_PATH") }

        let alsa = ALSAOutput(device: "timedcard", latency: 0.02)
        let output = CountingOutput(alsa)
        let speaker = OutputSpeaker(
            info: DeviceInfo(uri: "alsa:timedcard", name: "timed", kind: .speaker, backend: "alsa"), output: output, clock: MonotonicClock())
        var events = speaker.events(buffering: .unbounded).makeAsyncIterator()
        // A minute, so the pause comes mid-clip however loaded the machine; the test stops it early.
        try await speaker.play(AudioClip(name: "tone", source: .pcm(tone(frequency: 440, amplitude: 0.5, seconds: 60, sampleRate: 22050))))
        #expect(try await events.next()?.phase == .started)
        // The card starts once its buffer is full, and a block (1024 frames, 46 ms) is more than its 20 ms buffer
        // holds: with two blocks written it is playing. (Paused before it started, it could not run dry.)
        let playing = try await waitUntil { output.blocksWritten >= 2 }
        try #require(playing, "the card never took two blocks")
        try await speaker.pause()
        // From this event on the playback thread writes nothing.
        #expect(try await events.next()?.phase == .paused)
        // The card plays on with nothing new to play: held ten times its buffer's length, it runs dry.
        try await Task.sleep(for: .milliseconds(200))
        try await speaker.resume()
        #expect(try await events.next()?.phase == .resumed)
        // The first write after the resume finds the underrun, recovers and counts it.
        let recovered = try await waitUntil { alsa.underruns >= 1 }
        #expect(recovered, "no underrun recovered")
        try await speaker.stop()
        #expect(try await events.next()?.phase == .stopped)
        await speaker.waitUntilIdle()
    }
}

/// FLAC and Ogg Vorbis clips, written with libsndfile here, read back through `SoundFile`.
struct CompressedClipTests {
    static func write(_ audio: PCMAudio, to path: String, format: Int32) throws {
        var info = SF_INFO()
        info.samplerate = Int32(audio.sampleRate)
        info.channels = Int32(audio.channelCount)
        info.format = format
        let file = try #require(sf_open(path, Int32(SFM_WRITE), &info), "libsndfile cannot write \(path)")
        _ = audio.samples.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress, sf_count_t(audio.samples.count / audio.channelCount)) }
        sf_close(file)
    }

    @Test(arguments: [("flac", Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)), ("ogg", Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS))])
    func aClipInEitherFormatPlaysLikeItsWAV(extension name: String, format: Int32) throws {
        let folder = try makeScratchFolder()
        let original = tone(frequency: 440, amplitude: 0.5, seconds: 0.5, sampleRate: 22050)
        let path = folder + "/clip.\(name)"
        try Self.write(original, to: path, format: format)
        let read = try SoundFile.read(path)
        #expect(read.sampleRate == 22050 && read.channelCount == 1)
        #expect(abs(read.samples.count - original.samples.count) <= 1024, "\(read.samples.count)")
        #expect(abs(frequency(of: read.samples.map(\.pcm16Value), sampleRate: 22050) - 440) < 2)
        #expect(abs(Loudness(measuring: read).integrated - Loudness(measuring: original).integrated) < 0.5)
    }

    @Test func halSaySpeechIntoAWAVFile() throws {
        let folder = try makeScratchFolder()
        let (status, output) = try runProcess(halExecutable, ["say", "I see ice cream", "--out", folder + "/x.wav"], timeout: 30)
        #expect(status == 0, "\(output)")
        let speech = try SoundFile.read(folder + "/x.wav")
        #expect(speech.sampleRate == 22050 && speech.duration > .milliseconds(500))
        #expect(Loudness(measuring: speech).integrated > -30)
    }
}
