import HAL

/// The log's events for what the driven devices did: a speaker's and a screen's playback, a video that failed, and a
/// sound that was not heard. One of ``AppRunner``'s concerns, kept apart from the others.
enum DeviceEvents {
    /// The log's event for what a screen showed: none for a frame.
    static func logged(_ output: VideoScreenOutput) -> AppEvent? {
        switch output {
        case .frame: nil
        case .playback(let event): logged(event, device: "screen")
        case .failed(let event, let error): screenFailed(event.item, error, at: event.timestamp)
        }
    }

    /// The log's event for a video the screen could not open or show further.
    static func screenFailed(_ item: PlaybackItem, _ error: any Error, at time: Timestamp) -> AppEvent {
        var attributes: [String: AppEventValue] = ["error": .string("\(error)")]
        if case .clip(let name) = item { attributes["clip"] = .string(name) }
        return AppEvent(timestamp: time, name: "screen.failed", attributes: attributes)
    }

    /// The log's event for what a speaker (or, with `device` `screen`, a video screen) did.
    static func logged(_ playback: PlaybackEvent, device: String = "speaker") -> AppEvent {
        var attributes: [String: AppEventValue]
        switch playback.item {
        case .clip(let name): attributes = ["clip": .string(name)]
        case .speech(let text, let voice): attributes = ["text": .string(text), "voice": .string(voice)]
        }
        if let latency = playback.latency { attributes["latency"] = .rounded(latency.seconds, places: 3) }
        if let gain = playback.gain { attributes["gain"] = .rounded(gain) }
        return AppEvent(timestamp: playback.timestamp, name: "\(device).\(playback.phase.rawValue)", attributes: attributes)
    }

    /// The event for a clip or utterance that was not heard; pause, resume and stop need none.
    static func skipped(_ request: SpeakerRequest, at time: Timestamp) -> [AppEvent] {
        switch request {
        case .play(let clip): [AppEvent(timestamp: time, name: "speaker.skipped", attributes: ["clip": .string(clip.name)])]
        case .speak(let utterance): [AppEvent(timestamp: time, name: "speaker.skipped", attributes: ["text": .string(utterance.text)])]
        case .pause, .resume, .stop, .setVolume: []
        }
    }
}
