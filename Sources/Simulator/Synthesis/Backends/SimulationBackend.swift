import TraceFormat
import Replay
public import HAL

/// Opens `sim:SCRIPT.motion.json#CHANNEL` devices that replay a motion script's
/// generated trace (channels `gyro`, `accel` and `touch`), with the same query
/// options as `trace:`.
public struct SimulationBackend: DeviceBackend {
    /// `sim`.
    public var scheme: String { "sim" }
    /// What `hal devices` says about the backend.
    public var summary: String { "simulate a motion script: sim:FILE.motion.json#gyro|accel|mag|touch|truth|ENVIRONMENT-ID[?rate=N|realtime&loop=N]" }
    /// Folders whose `.motion.json` scripts discovery lists.
    public var searchFolders: [String]
    /// The clock that paces `realtime` and `rate=N` replays.
    public var pacingClock: any Clock<Duration>

    /// Creates the backend. `pacingClock` paces replays, as ``Replay/TraceBackend``'s does.
    public init(searchFolders: [String] = ["traces"], pacingClock: any Clock<Duration> = ContinuousClock()) {
        self.searchFolders = searchFolders
        self.pacingClock = pacingClock
    }

    /// Generates the script's trace and opens the channel the fragment names.
    public func open(_ uri: DeviceURI) throws -> any Device {
        let script: MotionScript
        do { script = try MotionScript.load(path: uri.body) } catch {
            throw DeviceError(.notFound, uri: uri.description, "\(error)")
        }
        return try TraceBackend.openChannel(of: script.generate(source: "sim:\(uri.body)"), uri: uri, pacingClock: pacingClock)
    }

    /// Lists each channel of each script in the search folders.
    public func discover() throws -> [DeviceInfo] {
        var devices: [DeviceInfo] = []
        for folder in searchFolders {
            for name in TraceBackend.files(in: folder, suffix: ".motion.json") {
                let path = folder + "/" + name
                guard let script = try? MotionScript.load(path: path) else { continue }
                let header = script.header(source: "sim:\(path)")
                devices += header.channels.map {
                    var info = $0.deviceInfo(uri: "sim:\(path)#\($0.id)")
                    info.backend = "sim"
                    return info
                }
            }
        }
        return devices
    }
}
