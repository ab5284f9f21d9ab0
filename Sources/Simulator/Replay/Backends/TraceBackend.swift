import HALTestDoubles
import LibC
package import TraceFormat
public import HAL

/// Opens `trace:FILE#CHANNEL` devices that replay a channel of a trace file.
///
/// Query options set the replay: `rate=N` (×N), `realtime`, `loop=N` (0 loops
/// forever) and `offset=SECONDS`. Without a fragment, a trace with one channel opens
/// that channel. ``discover()`` lists the channels of the `.jsonl` files in the search folders, and of the files of
/// every registered trace container (`.mcap`, once `hal` or the program has registered MCAP).
public struct TraceBackend: DeviceBackend {
    /// `trace`.
    public var scheme: String { "trace" }
    /// What `hal devices` says about the backend.
    public var summary: String { "replay a trace channel: trace:FILE.jsonl#CHANNEL (or a registered container's, such as FILE.mcap)[?rate=N|realtime&loop=N&offset=S&faults=PLAN.json]" }
    /// Folders whose `.jsonl` and `.mcap` traces discovery lists.
    public var searchFolders: [String]
    /// The clock that paces `realtime` and `rate=N` replays.
    public var pacingClock: any Clock<Duration>

    /// Creates the backend. `pacingClock` paces replays: the system's continuous clock by default, a
    /// ``VirtualClock`` with `advancesOnSleep` where a test wants paced devices to run at once.
    public init(searchFolders: [String] = ["traces"], pacingClock: any Clock<Duration> = ContinuousClock()) {
        self.searchFolders = searchFolders
        self.pacingClock = pacingClock
    }

    /// Opens a replay device.
    public func open(_ uri: DeviceURI) throws -> any Device {
        let trace: Trace
        do { trace = try Trace.load(path: uri.body) } catch {
            throw DeviceError(error.kind == .io ? .notFound : .ioFailure, uri: uri.description, error.description)
        }
        return try Self.openChannel(of: trace, uri: uri, pacingClock: pacingClock)
    }

    /// Opens the channel a URI's fragment names, with the replay options of its query.
    package static func openChannel(of trace: Trace, uri: DeviceURI, pacingClock: any Clock<Duration>) throws -> any ReadingSource {
        let id: String
        if let fragment = uri.fragment {
            id = fragment
        } else if trace.header.channels.count == 1 {
            id = trace.header.channels[0].id
        } else {
            let known = trace.header.channels.map { "#\($0.id)" }.joined(separator: ", ")
            throw DeviceError(.invalidURI, uri: uri.description, "name a channel with one of \(known)")
        }
        return try openReplayedChannel(
            trace: trace, channel: id, options: try replayOptions(uri), uri: uri.description, pacingClock: pacingClock)
    }

    /// Reads replay options from a URI's query.
    static func replayOptions(_ uri: DeviceURI) throws(DeviceError) -> ReplayOptions {
        var options = ReplayOptions()
        for (key, value) in uri.query {
            switch key {
            case "rate":
                guard let factor = Double(value), factor > 0, factor.isFinite else {
                    throw DeviceError(.invalidURI, uri: uri.description, "rate=\(value) is not a positive number")
                }
                options.pacing = .rate(factor)
            case "realtime": options.pacing = .realtime
            case "loop":
                guard let loops = Int(value), loops >= 0 else {
                    throw DeviceError(.invalidURI, uri: uri.description, "loop=\(value) is not a whole number (0 loops forever)")
                }
                options.loops = loops == 0 ? nil : loops
            case "offset":
                guard let seconds = Double(value), seconds >= 0, seconds.isFinite else {
                    throw DeviceError(.invalidURI, uri: uri.description, "offset=\(value) is not a number of seconds")
                }
                options.startOffset = .nanoseconds(Int64(seconds * 1e9))
            case "faults":
                do { options.faults = try FaultPlan.load(path: value) } catch {
                    throw DeviceError(.invalidURI, uri: uri.description, "faults=\(value): \(error)")
                }
            default:
                throw DeviceError(.invalidURI, uri: uri.description, "unknown option '\(key)' (rate, realtime, loop, offset, faults)")
            }
        }
        return options
    }

    /// Lists each channel of each trace in the search folders.
    public func discover() throws -> [DeviceInfo] {
        var devices: [DeviceInfo] = []
        for folder in searchFolders {
            let containers = TraceContainers.all
            let all = Self.files(in: folder, suffix: "")
            let names = all.filter { $0.hasSuffix(".jsonl") } + all.filter { name in
                !name.hasSuffix(".jsonl") && containers.contains { $0.writes(path: name) }
            }
            for name in names {
                let path = folder + "/" + name
                let container = containers.first { $0.writes(path: name) }
                let header = try? container.map { container throws(TraceError) in try container.header(path: path) } ?? TraceReader(path: path).header
                guard let header else { continue }
                devices += header.channels.map { $0.deviceInfo(uri: "trace:\(path)#\($0.id)") }
            }
        }
        return devices
    }

    /// The names of the files in `folder` ending in `suffix`, sorted.
    package static func files(in folder: String, suffix: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(suffix) { names.append(name) }
        }
        return names.sorted()
    }
}
