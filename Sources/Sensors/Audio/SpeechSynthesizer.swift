import HALTestDoubles
import LibC
import CEspeakNG
public import HAL

/// Text-to-speech with espeak-ng, synthesised into memory (22,050 Hz mono) and played on any `Speaker`.
///
/// espeak-ng keeps global state, so every synthesis in the process runs one at a time. Its wave
/// generator also carries state from one utterance to the next: the same text synthesised again in
/// the same process can differ by a few samples (a fresh process always gives the same samples).
/// Traces record what was spoken, not the samples, so replays stay byte-identical.
public enum SpeechSynthesizer {
    /// Why speech could not be synthesised.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    private struct Engine: ~Copyable {
        var sampleRate: Int32 = 0
        /// ``knownVoices(_:)``, listed once: espeak-ng reads every voice file to list them.
        var voices: Set<String>?
    }

    private static let engine = Locked(Engine())
    // Filled by the synthesis callback while `engine` is locked.
    nonisolated(unsafe) private static var collected: [Int16] = []

    /// The names a voice can be asked for by: each voice's name, its identifier and the identifier's
    /// last part (`gmw/en-US`, `en-us`), and its languages, lowercased. Call with the engine locked.
    private static func knownVoices(_ engine: inout Engine) -> Set<String> {
        if let voices = engine.voices { return voices }
        let names = listVoices()
        engine.voices = names
        return names
    }

    private static func listVoices() -> Set<String> {
        var names: Set<String> = []
        guard var voice = espeak_ListVoices(nil) else { return names }
        while let entry = voice.pointee {
            if let name = entry.pointee.name { names.insert(String(cString: name).lowercased()) }
            if let identifier = entry.pointee.identifier {
                let text = String(cString: identifier).lowercased()
                names.insert(text)
                if let last = text.split(separator: "/").last { names.insert(String(last)) }
            }
            // Languages: a priority byte, a NUL-terminated name, repeated; an empty name ends the list.
            if var language = entry.pointee.languages {
                while language.pointee != 0 {
                    let name = String(cString: language + 1)
                    if name.isEmpty { break }
                    names.insert(name.lowercased())
                    language += name.utf8.count + 2
                }
            }
            voice += 1
        }
        return names
    }

    /// How long `utterance` takes to say, estimated from its length without synthesising it
    /// (``HALTestDoubles/EstimatedSound/estimatedDuration(of:)``, fitted to espeak-ng's English voice within about 10 %). espeak-ng's own samples depend on what it said before in the process, so a simulated
    /// speaker that must give the same times in every run takes this instead. Unknown voices throw, as in
    /// ``synthesize(_:)``.
    public static func estimatedDuration(of utterance: Utterance) throws(Failure) -> Duration {
        let known: Result<Void, Failure> = engine.withLock { engine in
            if let failure = start(&engine) { return .failure(failure) }
            guard knownVoices(&engine).contains(utterance.voice.lowercased()) else { return .failure(unknownVoice(utterance.voice)) }
            return .success(())
        }
        try known.get()
        return EstimatedSound.estimatedDuration(of: utterance)
    }

    /// Starts espeak-ng once; call with the engine locked.
    private static func start(_ engine: inout Engine) -> Failure? {
        guard engine.sampleRate == 0 else { return nil }
        if let failure = CEspeakNG_load(nil) { return Failure(description: String(cString: failure)) }
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, 0)
        guard rate > 0 else { return Failure(description: "espeak-ng could not start (its data is missing?)") }
        engine.sampleRate = rate
        espeak_SetSynthCallback { samples, count, _ in
            if let samples, count > 0 { SpeechSynthesizer.collected.append(contentsOf: UnsafeBufferPointer(start: samples, count: Int(count))) }
            return 0
        }
        return nil
    }

    private static func unknownVoice(_ voice: String) -> Failure {
        Failure(description: "espeak-ng has no voice '\(voice)' (try en, fr, es, cmn; espeak-ng --voices lists them)")
    }

    /// Synthesises `utterance`: its voice (a language such as `en`, `fr`, `es`, `cmn`, or any espeak-ng
    /// voice name) and rate in words per minute (espeak-ng's default is 175).
    public static func synthesize(_ utterance: Utterance) throws(Failure) -> PCMAudio {
        let result: Result<PCMAudio, Failure> = engine.withLock { engine in
            if let failure = start(&engine) { return .failure(failure) }
            guard knownVoices(&engine).contains(utterance.voice.lowercased()), espeak_SetVoiceByName(utterance.voice) == EE_OK else {
                return .failure(unknownVoice(utterance.voice))
            }
            // Every parameter each time, so one utterance's settings never leak into the next.
            espeak_SetParameter(espeakRATE, Int32(utterance.wordsPerMinute ?? 175), 0)
            espeak_SetParameter(espeakVOLUME, 100, 0)
            espeak_SetParameter(espeakPITCH, 50, 0)
            espeak_SetParameter(espeakRANGE, 50, 0)
            espeak_SetParameter(espeakWORDGAP, 0, 0)
            espeak_SetParameter(espeakINTONATION, 0, 0)
            espeak_SetParameter(espeakPUNCTUATION, Int32(espeakPUNCT_NONE.rawValue), 0)
            espeak_SetParameter(espeakCAPITALS, 0, 0)
            collected.removeAll(keepingCapacity: true)
            let status = utterance.text.withCString { text in
                espeak_Synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, nil)
            }
            guard status == EE_OK else { return .failure(Failure(description: "espeak-ng failed to synthesise (status \(status.rawValue))")) }
            espeak_Synchronize()
            let samples = collected.map { Float($0) / 32768 }
            return .success(PCMAudio(sampleRate: Int(engine.sampleRate), channelCount: 1, samples: samples))
        }
        return try result.get()
    }
}
