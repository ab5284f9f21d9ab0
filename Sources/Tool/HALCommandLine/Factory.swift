import Audio
import V4L2
import FrameSources
import Expressions
import HAL
import IIO
import Evdev
import GPS
import Replay
import Synthesis

/// The device factory with every backend the tool links, and those `HALCommandLine.main` was handed.
func makeDeviceFactory(searchFolders: [String] = ["traces"]) -> DeviceFactory {
    var factory = DeviceFactory(backends: [
        TraceBackend(searchFolders: searchFolders),
        SimulationBackend(searchFolders: searchFolders),
        IIOBackend(),
        EvdevBackend(),
        NMEABackend(),
        GPSDBackend(),
        V4L2Backend(),
        ImagesCameraBackend(),
        VideoCameraBackend(),
        PatternCameraBackend(),
        ALSASpeakerBackend(),
        WAVSpeakerBackend(),
        CaptureSpeakerBackend(),
    ])
    for backend in HALCommandLine.settings.withLock({ $0.backends }) { factory.register(backend) }
    // expressions: wraps any camera the factory opens, the tool's own schemes too.
    let cameras = factory
    if !factory.backends.contains(where: { $0.scheme == "expressions" }) {
        factory.register(ExpressionBackend { uri in (try cameras.open(uri, as: (any Camera).self), frameFolder(uri)) })
    }
    return factory
}
