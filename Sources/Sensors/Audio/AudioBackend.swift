public import HAL
import HALTestDoubles

/// Opens `alsa:NAME` speakers: an ALSA PCM such as `default` or `hw:1,0`, with `?latency=SECONDS` (0.1 by default).
/// Events are stamped on `CLOCK_MONOTONIC`.
public struct ALSASpeakerBackend: DeviceBackend {
    /// `alsa`.
    public var scheme: String { "alsa" }
    /// What `hal devices` says about the backend.
    public var summary: String { "ALSA playback (alsa-lib): alsa:default, alsa:hw:1,0, ?latency=SECONDS" }

    /// Creates the backend.
    public init() {}

    /// Opens the PCM the URI names.
    public func open(_ uri: DeviceURI) throws -> any Device {
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

    /// The ALSA default device.
    public func discover() throws -> [DeviceInfo] {
        [DeviceInfo(uri: "alsa:default", name: "ALSA default output", kind: .speaker, backend: "alsa")]
    }
}

/// Opens `wav:PATH` speakers: what would be played, written to a WAV file.
public struct WAVSpeakerBackend: DeviceBackend {
    /// `wav`.
    public var scheme: String { "wav" }
    /// What `hal devices` says about the backend.
    public var summary: String { "a WAV file as a speaker: wav:out.wav" }

    /// Creates the backend.
    public init() {}

    /// Opens a speaker writing the file the URI names.
    public func open(_ uri: DeviceURI) throws -> any Device {
        OutputSpeaker(
            info: DeviceInfo(uri: uri.description, name: "WAV file \(uri.body)", kind: .speaker, backend: "wav"),
            output: WAVOutput(path: uri.body, uri: uri.description), clock: MonotonicClock())
    }

    /// WAV files are not discovered.
    public func discover() throws -> [DeviceInfo] { [] }
}

/// Opens `capture:NAME` speakers: a ``HALTestDoubles/CapturingSpeaker`` on `CLOCK_MONOTONIC` that measures real audio
/// (``MeasuredPlayback``). App tests make a `CapturingSpeaker` on their own clock instead.
public struct CaptureSpeakerBackend: DeviceBackend {
    /// `capture`.
    public var scheme: String { "capture" }
    /// What `hal devices` says about the backend.
    public var summary: String { "records what would be played, for tests: capture:NAME" }

    /// Creates the backend.
    public init() {}

    /// Opens a capturing speaker.
    public func open(_ uri: DeviceURI) throws -> any Device {
        CapturingSpeaker(
            info: DeviceInfo(uri: uri.description, name: "capture \(uri.body)", kind: .speaker, backend: "capture"),
            clock: MonotonicClock())
    }

    /// Capturing speakers are not discovered.
    public func discover() throws -> [DeviceInfo] { [] }
}
