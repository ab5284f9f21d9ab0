public import TraceFormat
import Replay
public import HAL

/// Opens `sim:SCRIPT.motion.json#CHANNEL` devices that replay a motion script's
/// generated trace (channels `gyro`, `accel`, `touch` and whatever else the script
/// makes), with the same query options as `trace:`.
///
/// The fragment may list several channels, `#accel,baro`: the script is then generated
/// with only those (``MotionScript/generate(source:only:)``). A device is one channel, so
/// ``open(_:)`` takes one; ``channelURIs(_:)`` splits a list into one URI per channel, as
/// `hal record` does.
public struct SimulationBackend: DeviceBackend {
    /// `sim`.
    public var scheme: String { "sim" }
    /// What `hal devices` says about the backend.
    public var summary: String { "simulate a motion script: sim:FILE.motion.json#gyro|accel|mag|touch|truth|ENVIRONMENT-ID[,…][?rate=N|realtime&loop=N]" }
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
        let trace = try Self.trace(for: uri)
        if let fragment = uri.fragment, fragment.contains(",") {
            throw DeviceError(
                .invalidURI, uri: uri.description,
                "#\(fragment) names \(trace.header.channels.count) channels, and a device is one: open each (hal record takes the list)")
        }
        return try TraceBackend.openChannel(of: trace, uri: uri, pacingClock: pacingClock)
    }

    /// The trace of the script a `sim:` URI names, with only the channels its fragment lists (`#accel,baro`), or every
    /// channel the script makes when it has none. A channel the script does not make is an error that lists those it
    /// does.
    public static func trace(for uri: DeviceURI) throws -> Trace {
        let script: MotionScript
        do { script = try MotionScript.load(path: uri.body) } catch {
            throw DeviceError(.notFound, uri: uri.description, "\(error)")
        }
        let selection = try uri.fragment.map { fragment in
            let ids = fragment.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let emitted = script.emittedChannels
            for id in ids where !emitted.contains(id) {
                throw DeviceError(.notFound, uri: uri.description, "the script has no channel '\(id)' (channels: \(emitted.joined(separator: ", ")))")
            }
            return ids
        }
        return script.generate(source: "sim:\(uri.body)", only: selection)
    }

    /// A `sim:` URI whose fragment lists several channels (`sim:walk.motion.json#accel,baro`) as one URI per channel
    /// (`…#accel`, `…#baro`), with the query kept; any other URI as it is.
    public static func channelURIs(_ text: String) -> [String] {
        guard let uri = try? DeviceURI(text), uri.scheme == "sim", let fragment = uri.fragment, fragment.contains(",") else { return [text] }
        let base = text[..<text.lastIndex(of: "#")!]
        return fragment.split(separator: ",", omittingEmptySubsequences: false).map { base + "#" + $0 }
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
