import HAL

/// A speaker record: the `phase`, a `clip` name or a `speech` text with its `voice`, and the `requested` time and
/// `gain` when the event has them.
struct PlaybackLayout: RecordLayout {
    func encode(_ reading: Reading, on channel: TraceChannel, into out: inout JSONOutput) throws(TraceError) -> Bool {
        guard case .playback(let event) = reading else { return false }
        out.key("phase")
        out.string(event.phase.rawValue)
        switch event.item {
        case .clip(let name):
            out.key("clip")
            out.string(name)
        case .speech(let text, let voice):
            out.key("speech")
            out.string(text)
            out.key("voice")
            out.string(voice)
        }
        if let requested = event.requested {
            out.key("requested")
            out.int(requested.nanoseconds)
        }
        if let gain = event.gain {
            out.key("gain")
            out.double(gain)
        }
        return true
    }

    func decode(_ fields: inout RecordFields, at timestamp: Timestamp, on channel: TraceChannel) throws(TraceError) -> Reading {
        let phase = try fields.enumeration("phase", PlaybackPhase.self)!
        let clip = try fields.optional("clip", Read.string)
        let speech = try fields.optional("speech", Read.string)
        let item: PlaybackItem
        switch (clip, speech) {
        case (let name?, nil): item = .clip(name: name)
        case (nil, let text?): item = .speech(text: text, voice: try fields.required("voice", "voice", Read.string))
        case (nil, nil): throw fields.error(.missingField, "clip", "a speaker record names a 'clip' or a 'speech'")
        case (.some, .some): throw fields.error(.invalidValue, "speech", "a speaker record has a 'clip' or a 'speech', not both")
        }
        let requested = try fields.optional("requested", Read.int)
        let gain = try fields.optional("gain", Read.double)
        return .playback(PlaybackEvent(
            timestamp: timestamp, phase: phase, item: item, requested: requested.map { Timestamp(nanoseconds: $0) }, gain: gain))
    }
}
