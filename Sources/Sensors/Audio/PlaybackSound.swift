public import HAL

/// What a speaker channel's playback events sounded like: each clip's or utterance's samples placed on the trace's
/// timeline, from the event that started it to the one that paused, stopped or finished it, resumed where it paused.
///
/// A trace records what was played, not the sound; this renders it back (clips from their files, speech through
/// espeak-ng) so that a recording can be heard beside its other channels, as `hal convert --sound` does for
/// Foxglove's RawAudio.
public enum PlaybackSound {
    /// A stretch of sound and when it started.
    public struct Span: Sendable, Hashable {
        /// When the first sample played.
        public var start: Timestamp
        /// The samples.
        public var audio: PCMAudio
    }

    private static func describe(_ item: PlaybackItem) -> String {
        switch item {
        case .clip(let name): "clip '\(name)'"
        case .speech(let text, let voice): "speech \"\(text)\" (\(voice))"
        }
    }

    /// The spans `events` played, and the items that could not be rendered (a clip with no file, a voice espeak-ng
    /// lacks), each once, with why. `clip` gives a clip's samples by its name.
    public static func render(
        _ events: [PlaybackEvent], clip: (String) throws -> PCMAudio,
        speech: (Utterance) throws -> PCMAudio = { try SpeechSynthesizer.synthesize($0) }
    ) -> (spans: [Span], missing: [String]) {
        struct Playing {
            var audio: PCMAudio
            var position = 0  // frames played
            var since: Timestamp?
        }
        var playing: [PlaybackItem: Playing] = [:]
        var cache: [PlaybackItem: PCMAudio] = [:]
        var spans: [Span] = []
        var missing: [String] = []
        var failed: Set<PlaybackItem> = []

        func play(_ item: PlaybackItem, until end: Timestamp?) {
            guard var state = playing[item], let since = state.since else { return }
            let channels = max(1, state.audio.channelCount)
            let total = state.audio.samples.count / channels
            var frames = total - state.position
            if let end {
                // The frames that fit between the two times, in floating point: no time or rate can overflow it.
                let seconds = (Double(end.nanoseconds) - Double(since.nanoseconds)) / 1e9
                let fit = seconds * Double(state.audio.sampleRate)
                if fit < Double(frames) { frames = max(0, Int(fit)) }
            }
            if frames > 0 {
                let samples = Array(state.audio.samples[(state.position * channels)..<((state.position + frames) * channels)])
                spans.append(Span(start: since, audio: PCMAudio(sampleRate: state.audio.sampleRate, channelCount: channels, samples: samples)))
            }
            state.position += frames
            state.since = nil
            playing[item] = state
        }

        for event in events {
            switch event.phase {
            case .started:
                play(event.item, until: event.timestamp)
                if cache[event.item] == nil && !failed.contains(event.item) {
                    do {
                        switch event.item {
                        case .clip(let name): cache[event.item] = try clip(name)
                        case .speech(let text, let voice): cache[event.item] = try speech(Utterance(text: text, voice: voice))
                        }
                    } catch {
                        failed.insert(event.item)
                        missing.append("\(describe(event.item)): \(error)")
                    }
                }
                guard let audio = cache[event.item] else { continue }
                playing[event.item] = Playing(audio: audio, since: event.timestamp)
            case .resumed:
                if playing[event.item]?.since == nil { playing[event.item]?.since = event.timestamp }
            case .paused:
                play(event.item, until: event.timestamp)
            case .finished, .stopped:
                play(event.item, until: event.timestamp)
                playing[event.item] = nil
            }
        }
        // Still playing when the trace ends: to the clip's end.
        for item in playing.keys.sorted(by: { describe($0) < describe($1) }) { play(item, until: nil) }
        spans.sort { $0.start < $1.start }
        return (spans, missing)
    }
}
