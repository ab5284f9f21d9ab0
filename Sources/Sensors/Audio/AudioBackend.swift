public import HAL
public import HALTestDoubles

/// Opens speakers: `alsa:NAME` (an ALSA PCM such as `default` or `hw:1,0`, with `?latency=SECONDS`),
/// `wav:PATH` (a WAV file) and `capture:NAME` (a ``CapturingSpeaker``). Their events are stamped on
/// `CLOCK_MONOTONIC`; app tests make a `CapturingSpeaker` on their own clock instead.
public struct AudioBackend: DeviceBackend {
    /// `alsa`, `wav` or `capture`.
    public let scheme: String

    /// A backend for one of the two schemes.
    public init(scheme: String) {
        self.scheme = scheme
    }

    /// What `hal devices` says about the backend.
    public var summary: String {
        switch scheme {
        case "wav": "a WAV file as a speaker: wav:out.wav"
        case "capture": "records what would be played, for tests: capture:NAME"
        default: "ALSA playback (alsa-lib): alsa:default, alsa:hw:1,0, ?latency=SECONDS"
        }
    }

    /// Opens the speaker a URI names.
    public func open(_ uri: DeviceURI) throws -> any Device {
        switch uri.scheme {
        case "capture":
            return CapturingSpeaker(
                info: DeviceInfo(uri: uri.description, name: "capture \(uri.body)", kind: .speaker, backend: "capture"),
                clock: MonotonicClock())
        case "wav":
            return OutputSpeaker(
                info: DeviceInfo(uri: uri.description, name: "WAV file \(uri.body)", kind: .speaker, backend: "wav"),
                output: WAVOutput(path: uri.body, uri: uri.description), clock: MonotonicClock())
        default:
            let latency = try uri.queryValue("latency").map { text throws(DeviceError) -> Double in
                guard let value = Double(text), value > 0 else {
                    throw DeviceError(.invalidURI, uri: uri.description, "latency=\(text) is not a positive number of seconds")
                }
                return value
            } ?? 0.1
            return OutputSpeaker(
                info: DeviceInfo(uri: uri.description, name: "ALSA \(uri.body)", kind: .speaker, backend: "alsa"),
                output: ALSAOutput(device: uri.body, latency: latency, uri: uri.description), clock: MonotonicClock())
        }
    }

    /// The ALSA default device; WAV files are not discovered.
    public func discover() throws -> [DeviceInfo] {
        scheme == "alsa" ? [DeviceInfo(uri: "alsa:default", name: "ALSA default output", kind: .speaker, backend: "alsa")] : []
    }
}
