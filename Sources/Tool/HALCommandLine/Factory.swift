import Audio
import V4L2
import FrameSources
import Expressions
import HAL
import IIO
import Evdev
import GPS
import Interchange
import Replay
import Synthesis
import TraceFormat

/// The device factory with every backend the tool links.
func makeDeviceFactory(searchFolders: [String] = ["traces"]) -> DeviceFactory {
    var factory = DeviceFactory(backends: [
        TraceBackend(searchFolders: searchFolders),
        SimulationBackend(searchFolders: searchFolders),
        IIOBackend(),
        EvdevBackend(),
        NMEABackend(),
        GPSDBackend(),
        V4L2Backend(),
        FileCameraBackend(scheme: "images"),
        FileCameraBackend(scheme: "video"),
        FileCameraBackend(scheme: "pattern"),
        AudioBackend(scheme: "alsa"),
        AudioBackend(scheme: "wav"),
        AudioBackend(scheme: "capture"),
    ])
    let cameras = factory
    factory.register(ExpressionBackend { uri in (try cameras.open(uri, as: (any Camera).self), frameFolder(uri)) })
    return factory
}
