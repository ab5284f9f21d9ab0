import FoundationEssentials
public import HAL
import LibC
import SystemSupport
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
    /// `hal-testbed` arguments: `-d FILE`, `-i NODE=FILE`, `-e NODE=FILE`, `-s NODE=FILE`, `-l NODE=FIFO`,
    /// `-x NODE=FILE`, `-v NODE=…`.
    public var umockdevArguments: [String] = []
    /// Variables added to the program's environment.
    public var environment: [String: String] = [:]
    /// Symbolic links made in the testbed's `/dev` before the program starts: a node's path to what it links to.
    public var links: [String: String] = [:]
    /// Files written into the testbed before the program starts, by path under its root: udev's database entries
    /// (`/run/udev/data/c13:64`), which `libhal-clock.so` shows the program at their machine paths.
    public var files: [String: String] = [:]
    /// The indexes of the channels fed live (``LiveReadings``) rather than from their records.
    public var liveChannels: Set<Int> = []

    /// Whether any of `channels` is fed live.
    public func isLive(_ channels: [ServedChannel]) -> Bool { channels.contains { liveChannels.contains($0.index) } }
    /// On the trace's clock, what a daemon a device starts (gpsd) needs in its environment to share the program's
    /// clock; empty on the machine's clock.
    public var clockEnvironment: [String: String] = [:]
    /// Whether the run is on the trace's clock: every channel is then written by the run, as a live one is, but from
    /// its records.
    public var onTraceClock: Bool { !clockEnvironment.isEmpty }
    /// The processes devices started that run on the trace's clock (a gpsd): the scheduler waits for them as for the
    /// program.
    public var clockedProcesses: [Int32] = []
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

    /// Makes a FIFO called `name` in the plan's folder and returns its path: a live node's input (`hal-testbed -l`).
    public func makeFIFO(_ name: String) throws -> String {
        let path = folder + "/" + name
        guard mkfifo(path, 0o600) == 0 else { throw ProgramError("cannot make \(path): \(describeErrno(errno))") }
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
    /// The testbed's root (`$UMOCKDEV_DIR`).
    public let testbedRoot: String
    /// The live channels' records, when the run has any.
    public let live: LiveReadings?
    /// The trace's clock, when the program runs on it (`--clock trace`); the machine's clock when `nil`.
    public let clock: TraceClock?

    /// Creates a context.
    public init(
        start: ContinuousClock.Instant, origin: Timestamp, rate: Double, live: LiveReadings? = nil, clock: TraceClock? = nil, testbedRoot: String
    ) {
        self.start = start
        self.origin = origin
        self.rate = rate
        self.live = live
        self.clock = clock
        self.testbedRoot = testbedRoot
    }

    /// The records of `channels`, from their records (waiting for each one's time) or, for live channels, as they
    /// arrive. On the trace's clock, each record is handed over at its time, and the device's asking for the next
    /// one tells the scheduler that it has delivered this one.
    ///
    /// `settled` says that the last record written has reached the program's side (see
    /// ``TraceClock/participant(key:settled:)``).
    public func records(of channels: [ServedChannel], settled: (@Sendable () -> Bool)? = nil) -> FeedRecords {
        if let live, live.carries(channels.map(\.index)) { return FeedRecords(stream: live.subscribe(channels.map(\.index))) }
        let records = channels.flatMap(\.records).sorted { $0.timestamp < $1.timestamp }
        if let clock {
            return FeedRecords(records: records, participant: clock.participant(key: channels.map(\.index).min() ?? 0, settled: settled))
        }
        let context = self
        return FeedRecords(stream: AsyncStream { continuation in
            let task = Task {
                for record in records {
                    do { try await context.wait(until: record.timestamp) } catch { break }
                    continuation.yield(record)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        })
    }

    /// The instant a record of time `timestamp` is due.
    public func instant(of timestamp: Timestamp) -> ContinuousClock.Instant {
        start + .nanoseconds(Int64(Double(timestamp.nanoseconds - origin.nanoseconds) / rate))
    }

    /// The trace time of `instant`; on the trace's clock, the trace's time now.
    public func traceTime(of instant: ContinuousClock.Instant) -> Timestamp {
        if let clock { return clock.now }
        let elapsed = start.duration(to: instant)
        let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        return Timestamp(nanoseconds: origin.nanoseconds + Int64(nanoseconds * rate))
    }

    /// Sleeps until the record of time `timestamp` is due.
    public func wait(until timestamp: Timestamp) async throws {
        if let clock {
            let participant = clock.participant(key: Int.max)
            defer { participant.finish() }
            return try await participant.wait(until: timestamp)
        }
        try await ContinuousClock().sleep(until: instant(of: timestamp))
    }
}

/// A device's records as they fall due: on the machine's clock or from live devices, a stream; on the trace's
/// clock, each handed over when the scheduler reaches its time.
public struct FeedRecords: AsyncSequence, Sendable {
    public typealias Element = TraceRecord
    public typealias Failure = Never

    private enum Source: Sendable {
        case stream(AsyncStream<TraceRecord>)
        case clock([TraceRecord], TraceClock.Participant)
    }

    private let source: Source

    init(stream: AsyncStream<TraceRecord>) { source = .stream(stream) }
    init(records: [TraceRecord], participant: TraceClock.Participant) { source = .clock(records, participant) }

    public func makeAsyncIterator() -> Iterator {
        switch source {
        case .stream(let stream): Iterator(stream: stream.makeAsyncIterator())
        case .clock(let records, let participant): Iterator(records: records, done: ParticipantEnd(participant))
        }
    }

    /// Hands out the records one at a time.
    public struct Iterator: AsyncIteratorProtocol {
        private var stream: AsyncStream<TraceRecord>.Iterator?
        private var records: [TraceRecord] = []
        private var index = 0
        private var done: ParticipantEnd?

        fileprivate init(stream: AsyncStream<TraceRecord>.Iterator) { self.stream = stream }
        fileprivate init(records: [TraceRecord], done: ParticipantEnd) {
            self.records = records
            self.done = done
        }

        /// The next record, when it is due; `nil` after the last or when the run ends.
        public mutating func next() async -> TraceRecord? {
            if stream != nil { return await stream!.next() }
            guard let done, index < records.count else {
                done?.participant.finish()
                return nil
            }
            do { try await done.participant.wait(until: records[index].timestamp) } catch {
                done.participant.finish()
                return nil
            }
            index += 1
            return records[index - 1]
        }
    }
}

/// Ends a participant when its feed's iterator goes away, however the feed ended.
private final class ParticipantEnd: Sendable {
    let participant: TraceClock.Participant
    init(_ participant: TraceClock.Participant) { self.participant = participant }
    deinit { participant.finish() }
}

/// Readings of live devices (`hal exec --live`), handed to the devices that serve them as they are recorded.
///
/// Each device subscribes to its channels when it starts feeding; ``publish(_:)`` hands a record to the subscribers of
/// its channel (or keeps it until its channel has one, so nothing recorded before a device starts is lost), and
/// ``finish()`` ends every subscription (the live devices ended, or the run did).
public final class LiveReadings: Sendable {
    private struct State {
        var subscribers: [(channels: Set<Int>, continuation: AsyncStream<TraceRecord>.Continuation)] = []
        var waiting: [TraceRecord] = []
        var finished = false
    }

    /// The live channels' indexes in the run's trace header.
    public let channels: Set<Int>
    private let state = Locked(State())

    /// Live inputs for the channels at `channels` (indexes in the run's trace header).
    public init(channels: Set<Int>) {
        self.channels = channels
    }

    /// Whether the channels at `indexes` are live.
    public func carries(_ indexes: [Int]) -> Bool { indexes.contains { channels.contains($0) } }

    /// The records of the channels at `indexes`, as they arrive, after those that arrived before.
    public func subscribe(_ indexes: [Int]) -> AsyncStream<TraceRecord> {
        let (stream, continuation) = AsyncStream<TraceRecord>.makeStream()
        let wanted = Set(indexes)
        state.withLock { state in
            for record in state.waiting where wanted.contains(record.channel) { continuation.yield(record) }
            state.waiting.removeAll { wanted.contains($0.channel) }
            if state.finished { continuation.finish() } else { state.subscribers.append((wanted, continuation)) }
        }
        return stream
    }

    /// Hands `record` to its channel's subscribers.
    public func publish(_ record: TraceRecord) {
        state.withLock { state in
            var handed = false
            for subscriber in state.subscribers where subscriber.channels.contains(record.channel) {
                subscriber.continuation.yield(record)
                handed = true
            }
            if !handed { state.waiting.append(record) }
        }
    }

    /// Ends every subscription.
    public func finish() {
        state.withLock { state in
            state.finished = true
            for subscriber in state.subscribers { subscriber.continuation.finish() }
        }
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

/// A FIFO that `hal-testbed -l` relays into a node: what is written here is what the program reads from the node.
///
/// It also tells how much of it the program read (``bytesRead()``): the node's terminal is held open from the start
/// (so its input queue outlives the program's last close), and once the program has ended, what it left is drained
/// from it until `hal-testbed` has relayed all that was written (`FIFO.count`).
final class LiveNode: Sendable {
    private let descriptor: Int32
    private let count: String
    /// The node's terminal, held open from the start.
    let node: PendingInput?
    private let written = Locked(0)

    /// Opens the FIFO at `path` for writing (hal-testbed holds its other end), and `node` (the node's path in the
    /// testbed, which links to its terminal), when given, for counting what is left unread.
    init(path: String, node: String? = nil) throws {
        descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ProgramError("cannot open \(path): \(describeErrno(errno))") }
        count = path + ".count"
        self.node = node.map { PendingInput(path: $0) }
        _ = self.node?.pendingBytes()
    }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { LibC.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { break }
            offset += written
        }
        written.withLock { $0 += offset }
    }

    /// The bytes written so far.
    var bytesWritten: Int { written.withLock { $0 } }

    /// What the program read of what was written, once it has ended and nothing more is written: what it left is
    /// drained from the node as `hal-testbed` relays it (a non-blocking read of a terminal also takes what is still on
    /// its way in). `nil` when the node or the relay's count cannot be read, or the relay stops short for 5 s.
    func bytesRead() -> Int? {
        guard let node else { return nil }
        let total = bytesWritten
        var drained = 0
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            guard let relayed = relayedBytes() else { return nil }
            let all = relayed >= total
            guard let taken = node.drain() else { return nil }
            drained += taken
            // What went into the node, less what the program left there.
            if all { return relayed - drained }
            if ContinuousClock.now > deadline { return nil }
            if taken == 0 { usleep(1000) }
        }
    }

    /// The bytes `hal-testbed` has written into the node (`FIFO.count`).
    private func relayedBytes() -> Int? {
        let file = open(count, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var little: UInt64 = 0
        guard pread(file, &little, 8, 0) == 8 else { return nil }
        return Int(UInt64(littleEndian: little))
    }

    deinit { close(descriptor) }
}
