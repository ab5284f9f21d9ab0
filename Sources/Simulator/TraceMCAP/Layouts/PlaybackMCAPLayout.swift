import TraceFormat
import HAL

/// What a speaker played or spoke: `hal.PlaybackEvent`.
struct PlaybackMCAPLayout: MCAPRecordLayout {
    var formats: [String: MCAPMessageFormat] { [TraceSchemas.Schema.playback.name: .playback] }

    func encode(_ reading: Reading, _ context: MCAPRecordContext, into out: inout Protobuf.Writer) throws(TraceError) -> TraceSchemas.Schema {
        guard case .playback(let event) = reading else { return .playback }
        out.string(1, event.phase.rawValue)
        switch event.item {
        case .clip(let name):
            out.string(2, name)
        case .speech(let text, let voice):
            out.string(3, text)
            out.string(4, voice)
        }
        if let requested = event.requested { out.int64(5, requested.nanoseconds) }
        if let gain = event.gain { out.double(6, gain) }
        return .playback
    }
}
