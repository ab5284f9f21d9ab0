import Audio
import Camera
import HAL
import Sensors
import Simulator

/// The device factory with every backend the tool links.
func makeDeviceFactory(searchFolders: [String] = ["traces"]) -> DeviceFactory {
    DeviceFactory(backends: [
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
}
