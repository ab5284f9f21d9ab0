import ArgumentParser
import Audio
import FoundationEssentials
import HAL
import TraceFormat

/// Where `hal say` and `hal play` send sound.
struct SpeakerOptions: ParsableArguments {
    @Option(help: "Write a WAV file instead of playing.")
    var out: String?

    @Option(help: "The speaker's URI.")
    var device = "alsa:default"

    /// Opens the speaker (`--out FILE` as `wav:FILE`), makes one request, and returns when it has
    /// finished playing, with a WAV file complete.
    func playToEnd(_ request: (any Speaker) async throws -> Void) async throws {
        if let out { try FileWrites.checkWritable(out) }
        let speaker = try makeDeviceFactory().open(out.map { "wav:\($0)" } ?? device, as: (any Speaker).self)
        let events = speaker.events(buffering: .unbounded)
        try await request(speaker)
        for try await event in events where event.phase == .finished || event.phase == .stopped { break }
        (speaker as? OutputSpeaker<MonotonicClock>)?.closeFile()
    }
}

/// `hal say "text" [--voice] [--rate] [--out FILE | --device URI]`.
struct Say: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "say", abstract: "Speak text with espeak-ng on a speaker, or into a WAV file.")

    @Argument(help: "The words.")
    var text: String

    @Option(help: "The voice or language: en, fr, es, cmn, or any espeak-ng voice.")
    var voice = "en"

    @Option(help: "Words per minute (espeak-ng's default is 175).")
    var rate: Int?

    @OptionGroup var speaker: SpeakerOptions

    func run() async throws {
        try await speaker.playToEnd { try await $0.speak(Utterance(text: text, voice: voice, wordsPerMinute: rate)) }
        if let out = speaker.out { printError("wrote speech to \(out)") }
    }
}

/// `hal play FILE|tone:HZ,SECONDS|tone:chime [--device URI]`.
struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "play", abstract: "Play a sound file (WAV, FLAC, OGG) or a tone on a speaker.")

    @Argument(help: "The file, or a tone: tone:HZ,SECONDS (e.g. tone:440,0.5) or tone:chime, at -16 LUFS.")
    var file: String

    @OptionGroup var speaker: SpeakerOptions

    func run() async throws {
        let clip = try soundClip(file)
        try await speaker.playToEnd { try await $0.play(clip) }
    }
}

/// `hal audio …`.
struct AudioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "audio", abstract: "Audio clips.", subcommands: [Check.self])

    /// `hal audio check FILE… [--ceiling LUFS]`; a tone is made at the ceilings' level.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "check", 
            abstract: "List clips' loudness (EBU R 128 integrated LUFS and true peak) and flag those above the ceiling.",
            discussion: "Exits with 1 when any clip is above the ceiling.")

        @Argument(help: "The clips: files, or tones (tone:HZ,SECONDS, tone:chime).")
        var files: [String]

        @Option(help: "The loudest integrated loudness allowed, LUFS (negative: write --ceiling=-20).")
        var ceiling = LoudnessGuard.standard.ceiling

        @Option(name: .customLong("peak-ceiling"), help: "The highest true peak allowed, dBTP.")
        var peakCeiling = LoudnessGuard.standard.truePeakCeiling

        func run() throws {
            var out = StandardOutput()
            var flagged = 0
            for file in files {
                let loudness = Loudness(measuring: try soundClip(file).audio(for: LoudnessGuard(ceiling: ceiling, truePeakCeiling: peakCeiling)))
                var problems: [String] = []
                if loudness.integrated > ceiling { problems.append("above the \(printfFormat("%g", ceiling)) LUFS ceiling") }
                if loudness.truePeak > peakCeiling { problems.append("peak above \(printfFormat("%g", peakCeiling)) dBTP") }
                if !problems.isEmpty { flagged += 1 }
                out.line("\(file)  \(printfFormat("%6.1f LUFS  %6.1f dBTP", loudness.integrated, loudness.truePeak))  \(problems.isEmpty ? "ok" : "LOUD: " + problems.joined(separator: ", "))")
            }
            out.flush()
            if flagged > 0 { throw ExitCode(1) }
        }
    }
}

/// The clip a command line names: a tone (`tone:440,0.5`, named as written), or a sound file (named by its last
/// component). A folder, an empty file or one that may not be read is refused in words before libsndfile reads it,
/// which says `Format not recognised.` of the first two; a missing file is libsndfile's to report (`System error : No
/// such file or directory.`).
private func soundClip(_ text: String) throws -> AudioClip {
    let source = try AudioClip.Source(clipName: text)
    guard case .file(let path) = source else { return AudioClip(name: text, source: source) }
    if FileManager.default.fileExists(atPath: path) { try FileReads.checkReadable(path, expecting: "a sound file (WAV, FLAC, OGG)") }
    return AudioClip(name: URL(fileURLWithPath: path).lastPathComponent, source: source)
}
