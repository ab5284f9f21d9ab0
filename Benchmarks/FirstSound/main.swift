// Time to first sound: from `play()` or `speak()` to the first block of samples accepted by
// alsa-lib, through the real OutputSpeaker and ALSAOutput on the `null` PCM (no card here), beside
// the command-line tools a board might run instead: `aplay -D null` and `espeak-ng --stdout`,
// timed from start to exit. `Benchmarks/first-sound` runs it.
import Audio
import Foundation
import HAL
import Synchronization

/// Wraps an output and notes when its first write returns.
final class FirstWriteOutput: PCMOutput {
    let inner: any PCMOutput
    let firstWrite = Mutex<ContinuousClock.Instant?>(nil)
    init(_ inner: any PCMOutput) { self.inner = inner }
    func start(sampleRate: Int, channelCount: Int) throws(DeviceError) { try inner.start(sampleRate: sampleRate, channelCount: channelCount) }
    func write(_ samples: ArraySlice<Float>) throws(DeviceError) {
        try inner.write(samples)
        firstWrite.withLock { if $0 == nil { $0 = .now } }
    }
    func finish() throws(DeviceError) { try inner.finish() }
    func abort() { inner.abort() }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

func summary(_ name: String, _ times: [Double]) {
    let sorted = times.sorted()
    print(String(format: "%@: median %.1f ms, max %.1f ms over %d runs", name, sorted[sorted.count / 2], sorted.last ?? 0, sorted.count))
}

func firstSound(runs: Int, _ request: (OutputSpeaker<MonotonicClock>) async throws -> Void) async throws -> [Double] {
    var times: [Double] = []
    for _ in 0..<runs {
        let output = FirstWriteOutput(ALSAOutput(device: "null"))
        let speaker = OutputSpeaker(
            info: DeviceInfo(uri: "alsa:null", name: "null", kind: .speaker, backend: "alsa"), output: output, clock: MonotonicClock())
        let start = ContinuousClock.now
        try await request(speaker)
        while output.firstWrite.withLock({ $0 }) == nil { try await Task.sleep(for: .microseconds(100)) }
        times.append(milliseconds(output.firstWrite.withLock { $0! } - start))
        await speaker.waitUntilIdle()
    }
    return times
}

func timeProcess(runs: Int, _ arguments: [String]) throws -> [Double] {
    var times: [Double] = []
    for _ in 0..<runs {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        times.append(milliseconds(ContinuousClock.now - start))
    }
    return times
}

let runs = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 20
let folder = NSTemporaryDirectory() + "first-sound-\(getpid())"
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
let clip = folder + "/clip.wav"
let samples = (0..<22050).map { 0.5 * Float(sin(2 * Double.pi * 440 * Double($0) / 22050)) }
try SoundFile.writeWAV(PCMAudio(sampleRate: 22050, channelCount: 1, samples: samples), to: clip)
let text = "I see ice cream"

summary("play() of a 1 s WAV clip to the first block in alsa-lib", try await firstSound(runs: runs) {
    try await $0.play(AudioClip(name: "clip", source: .file(path: clip)))
})
summary("speak(\"\(text)\") to the first block in alsa-lib", try await firstSound(runs: runs) {
    try await $0.speak(Utterance(text: text))
})
summary("peer: aplay -D null clip.wav, start to exit", try timeProcess(runs: runs, ["aplay", "-q", "-D", "null", clip]))
summary("peer: espeak-ng --stdout \"\(text)\", start to exit", try timeProcess(runs: runs, ["espeak-ng", "--stdout", text]))
try? FileManager.default.removeItem(atPath: folder)
