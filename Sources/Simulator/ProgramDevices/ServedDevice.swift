import FoundationEssentials
public import HAL
import LibC
public import TraceFormat

/// A simulated device served to a program that `ProgramRun` starts: an input device, an IIO sensor, a serial GPS,
/// a gpsd, a speaker that captures what the program plays. The extension point for new device types: a type that
/// conforms and is registered in ``ServedDeviceTypes`` is offered by `hal exec --device` with no other change.
///
/// A device is prepared before the program starts (it writes the testbed's files and says what the program's
/// environment needs), fed while the program runs (from the run's start, at its rate), and finished after it ends.
public protocol ServedDevice: AnyObject, Sendable {
    /// One line for the run's report: what the program sees, and from which channels.
    var summary: String { get }
    /// Writes what the device needs into `testbed` before the program starts.
    func prepare(_ testbed: inout TestbedPlan) throws
    /// Feeds the device while the program runs; returns when its inputs are all delivered. Cancelled when the run
    /// ends first.
    func feed(_ run: FeedContext) async throws
    /// Releases what ``prepare(_:)`` or ``feed(_:)`` started (a daemon, a reader thread). Called once, after the
    /// program ended.
    func finish()
    /// What the device delivered or saw, for the report: a line.
    var delivered: String { get }
    /// Events the device contributes to the run's timeline (a speaker's clips), stamped in the trace's time.
    func events() -> [AppEvent]
}

extension ServedDevice {
    /// Nothing to release.
    public func finish() {}
    /// No events of its own.
    public func events() -> [AppEvent] { [] }
}

/// What the program is started with: umockdev's files and the program's environment. Devices add to it.
public struct TestbedPlan: Sendable {
    /// A folder for the devices' files, removed with the run.
    public let folder: String
    /// The trace's first record's time: the run's start.
    public let origin: Timestamp
    /// How many trace seconds pass in a second.
    public let rate: Double
    /// `umockdev-run` arguments before `--`: `-d FILE`, `-i NODE=FILE`, `-e NODE=FILE`, `-s NODE=FILE`.
    public var umockdevArguments: [String] = []
    /// Variables added to the program's environment.
    public var environment: [String: String] = [:]
    /// Symbolic links made in the testbed's `/dev` before the program starts: a node's path to what it links to.
    public var links: [String: String] = [:]
    /// The next free `/dev/input/eventN` number.
    public var nextEventNumber = 0
    /// The next free `iio:deviceN` number.
    public var nextIIONumber = 0
    /// The next free `/dev/ttyACMN` number.
    public var nextSerialNumber = 0
    /// The next free `/dev/videoN` number.
    public var nextVideoNumber = 0

    /// A plan writing into `folder`, for a trace starting at `origin` played at `rate`.
    public init(folder: String, origin: Timestamp, rate: Double) {
        self.folder = folder
        self.origin = origin
        self.rate = rate
    }

    /// A channel id as part of an environment variable's name: `HAL_DEVICE_<NAME>` (letters and digits upper-cased,
    /// anything else `_`).
    public static func variableName(_ id: String) -> String {
        String(id.uppercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }

    /// Writes `bytes` to `name` in the plan's folder and returns its path.
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = folder + "/" + name
        do { try Data(bytes).write(to: URL(fileURLWithPath: path)) } catch {
            throw ProgramError("cannot write \(path): \(error)")
        }
        return path
    }

    /// Writes `text` to `name` in the plan's folder and returns its path.
    public func write(_ name: String, _ text: String) throws -> String { try write(name, Array(text.utf8)) }
}

/// The run as a device sees it while feeding: when it started, how fast the trace goes, and the testbed.
public struct FeedContext: Sendable {
    /// When the program was started: a trace time of `origin` is this instant.
    public let start: ContinuousClock.Instant
    /// The trace's first record's time.
    public let origin: Timestamp
    /// How many trace seconds pass in a second.
    public let rate: Double
    /// The testbed's root (`$UMOCKDEV_DIR`), found once umockdev made it.
    public let testbedRoot: @Sendable () async throws -> String

    /// Creates a context.
    public init(start: ContinuousClock.Instant, origin: Timestamp, rate: Double, testbedRoot: @escaping @Sendable () async throws -> String) {
        self.start = start
        self.origin = origin
        self.rate = rate
        self.testbedRoot = testbedRoot
    }

    /// The instant a record of time `timestamp` is due.
    public func instant(of timestamp: Timestamp) -> ContinuousClock.Instant {
        start + .nanoseconds(Int64(Double(timestamp.nanoseconds - origin.nanoseconds) / rate))
    }

    /// The trace time of `instant`.
    public func traceTime(of instant: ContinuousClock.Instant) -> Timestamp {
        let elapsed = start.duration(to: instant)
        let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        return Timestamp(nanoseconds: origin.nanoseconds + Int64(nanoseconds * rate))
    }

    /// Sleeps until the record of time `timestamp` is due.
    public func wait(until timestamp: Timestamp) async throws {
        try await ContinuousClock().sleep(until: instant(of: timestamp))
    }
}

/// What went wrong starting or running a program on simulated devices, in words that say what to do.
public struct ProgramError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}

/// A trace channel a device carries: its place in the header, its description and its records.
public struct ServedChannel: Sendable {
    /// The channel.
    public var channel: TraceChannel
    /// Its index in the trace's header.
    public var index: Int
    /// Its records, in order.
    public var records: [TraceRecord]

    /// Creates one.
    public init(channel: TraceChannel, index: Int, records: [TraceRecord]) {
        self.channel = channel
        self.index = index
        self.records = records
    }
}

/// The device types `hal exec --device CHANNEL=TYPE` offers, and which a channel's kind gets by default.
public struct ServedDeviceTypes: Sendable {
    /// One device type.
    public struct DeviceType: Sendable {
        /// Its name on the command line (`evdev`, `iio`, `nmea`, `gpsd`).
        public var name: String
        /// What it is, for help and errors.
        public var summary: String
        /// Whether it can carry channels of `kind`.
        public var carries: @Sendable (DeviceKind) -> Bool
        /// Whether channels of `kind` get it when the command names no device for them.
        public var isDefault: @Sendable (DeviceKind) -> Bool
        /// The devices serving `channels` (all of kinds it carries): one, or one per channel, as the type groups them.
        public var make: @Sendable ([ServedChannel]) throws -> [any ServedDevice]

        /// Creates a device type.
        public init(
            name: String, summary: String, carries: @escaping @Sendable (DeviceKind) -> Bool,
            isDefault: @escaping @Sendable (DeviceKind) -> Bool, make: @escaping @Sendable ([ServedChannel]) throws -> [any ServedDevice]
        ) {
            self.name = name
            self.summary = summary
            self.carries = carries
            self.isDefault = isDefault
            self.make = make
        }
    }

    /// The types, in the order their devices are made.
    public var types: [DeviceType]

    /// Types `types`.
    public init(_ types: [DeviceType]) {
        self.types = types
    }

    /// The devices for `trace`'s channels. `requested` maps a channel's id to the types asked for it; a channel not
    /// in it gets its kind's default types, and none when no type carries it by default.
    public func devices(for trace: Trace, requested: [String: [String]]) throws -> (devices: [any ServedDevice], unserved: [String]) {
        for (channel, names) in requested {
            guard let index = trace.header.channelIndex(of: channel) else {
                throw ProgramError("--device \(channel)=…: the inputs have no channel '\(channel)'; they have \(trace.header.channels.map(\.id).joined(separator: ", "))")
            }
            let kind = trace.header.channels[index].kind
            for name in names {
                guard let type = types.first(where: { $0.name == name }) else {
                    throw ProgramError("--device \(channel)=\(name): no device type '\(name)'; the types are \(types.map(\.name).joined(separator: ", "))")
                }
                guard type.carries(kind) else {
                    let able = types.filter { $0.carries(kind) }.map(\.name)
                    throw ProgramError(
                        "--device \(channel)=\(name): a \(name) device cannot carry channel '\(channel)' of kind \(kind); "
                            + (able.isEmpty ? "no device type carries that kind" : "it can be served as \(able.joined(separator: " or "))"))
                }
            }
        }
        var byIndex: [Int: [TraceRecord]] = [:]
        for record in trace.records { byIndex[record.channel, default: []].append(record) }
        var devices: [any ServedDevice] = []
        var served = Set<Int>()
        for type in types {
            var channels: [ServedChannel] = []
            for (index, channel) in trace.header.channels.enumerated() {
                let wanted = requested[channel.id].map { $0.contains(type.name) } ?? type.isDefault(channel.kind)
                guard wanted else { continue }
                channels.append(ServedChannel(channel: channel, index: index, records: byIndex[index] ?? []))
                served.insert(index)
            }
            if !channels.isEmpty { devices += try type.make(channels) }
        }
        let unserved = trace.header.channels.enumerated().filter { !served.contains($0.offset) }.map { "\($0.element.id) (\($0.element.kind))" }
        return (devices, unserved)
    }
}
