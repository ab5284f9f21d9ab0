import FoundationEssentials
import HAL
import TraceFormat
import IIO
import LibC
import SystemSupport

/// An IIO device in the testbed's sysfs, as the Linux IIO ABI describes one: an IMU for the gyroscope, accelerometer
/// and magnetometer channels (one device, as a real IMU is), and a device per environment channel (pressure,
/// temperature, humidity, illuminance, proximity).
///
/// - **Polled reads:** `in_<type>_<axis>_raw`, `_scale` and `_offset`, `sampling_frequency` and the mount matrix.
///   While the program runs, each `_raw` file is replaced (write and rename, so a read never sees half a value) at
///   each record's time, holding the latest value.
/// - **Buffered reads (the IMU):** `scan_elements` (`_en`, `_index`, `_type`: `le:s16/16>>0` per axis, then a
///   `le:s64/64>>0` timestamp), `buffer/enable`, `buffer/length`, a trigger, and `/dev/iio:deviceN`, whose reads
///   are the scans written at each record time while the program has the buffer enabled, holding the channels it
///   enabled, on either clock (live readings: every channel).
///
/// Values are the trace's within one step of the scale: raw = value ÷ scale, rounded.
public final class IIOServedDevice: ServedDevice {
    private struct Channel {
        let kind: IIOKind
        /// The IIO unit's scale: raw × scale is the value in the IIO ABI's unit.
        let scale: Double
    }

    private let channels: [ServedChannel]
    private let iioChannels: [Channel]
    private let isIMU: Bool
    /// The scans: a time and each channel axis's raw value, in `iioChannels` order.
    private let scans: [(time: Timestamp, raw: [Int32])]
    private let state = Locked<State>(State())

    private struct State {
        var number = 0
        var folder = ""
        /// Readings written into sysfs.
        var written = 0
        /// The buffer's FIFO, and its node once fed.
        var live: String?
        var buffer: LiveNode?
        /// Where each scan written into the buffer ends, in bytes from the first.
        var scanEnds: [Int] = []
        /// The scans the program read, once the run is over.
        var read: Int?
    }
    /// Whether the run writes the readings on the trace's clock (from the records, through the live FIFO).
    private let onTraceClock = Locked(false)

    /// The scale of each raw step in the IIO ABI's unit: s16 covering ±2000 °/s, ±8 g and ±49 G on the IMU, and
    /// thousandths of the unit on an environment sensor.
    static func scale(of kind: IIOKind) -> Double {
        switch kind.kind {
        case .gyroscope: 0.001064724
        case .accelerometer: 0.002394202
        case .magnetometer: 0.0015
        default: 0.001
        }
    }

    /// A device for `channels`: an IMU when they are motion channels, else one environment channel.
    public init(channels: [ServedChannel]) {
        self.channels = channels
        let kinds = channels.compactMap { channel in IIOKind.all.first { $0.kind == channel.channel.kind } }
        iioChannels = IIOKind.all.filter { kind in kinds.contains(kind) }.map { Channel(kind: $0, scale: Self.scale(of: $0)) }
        isIMU = iioChannels.first?.kind.axes == 3
        // Each record time becomes a scan holding every channel's latest value.
        var records = channels.flatMap(\.records)
        records.sort { $0.timestamp < $1.timestamp }
        var current = [Int32](repeating: 0, count: iioChannels.reduce(0) { $0 + $1.kind.axes })
        var scans: [(time: Timestamp, raw: [Int32])] = []
        for record in records where Self.apply(record, channels: iioChannels, to: &current) {
            if let last = scans.last, last.time == record.timestamp { scans[scans.count - 1].raw = current } else { scans.append((record.timestamp, current)) }
        }
        self.scans = scans
    }

    /// Sets the raw values `record` carries in `current` (each channel's axes in `channels` order); `false` when the
    /// record is of none of them.
    private static func apply(_ record: TraceRecord, channels: [Channel], to current: inout [Int32]) -> Bool {
        var offset = 0
        for channel in channels {
            defer { offset += channel.kind.axes }
            guard channel.kind.kind == record.reading.kind else { continue }
            let values: [Double]
            if case .motion(let sample) = record.reading {
                values = [sample.value.x, sample.value.y, sample.value.z]
            } else if let sample = ScalarSample(record.reading) {
                values = [sample.value]
            } else {
                return false
            }
            let limit = channel.kind.axes == 3 ? Double(Int16.max) : Double(Int32.max)
            for (index, value) in values.enumerated() where index < channel.kind.axes {
                current[offset + index] = Int32(max(-limit, min(limit, (value / channel.kind.factor / channel.scale).rounded())))
            }
            return true
        }
        return false
    }

    /// The device types' entry: `iio`.
    public static let type = ServedDeviceTypes.DeviceType(
        name: "iio", summary: "an IIO device (sysfs and /dev/iio:deviceN): an IMU, or an environment sensor",
        carries: { kind in IIOKind.all.contains { $0.kind == kind } },
        isDefault: { kind in IIOKind.all.contains { $0.kind == kind } },
        make: { channels in
            let motion = channels.filter { channel in IIOKind.all.contains { $0.kind == channel.channel.kind && $0.axes == 3 } }
            var devices: [any ServedDevice] = motion.isEmpty ? [] : [IIOServedDevice(channels: motion)]
            for channel in channels where !motion.contains(where: { $0.index == channel.index }) {
                devices.append(IIOServedDevice(channels: [channel]))
            }
            return devices
        })

    private var deviceName: String { isIMU ? "hal-imu" : "hal-" + (iioChannels.first?.kind.name ?? "sensor") }

    public var summary: String {
        let number = state.withLock { $0.number }
        return "\(isIMU ? "IMU" : iioChannels.first?.kind.name ?? "sensor") iio:device\(number) (IIO\(isIMU ? ", buffered /dev/iio:device\(number)" : "")) <- "
            + channels.map { "\($0.channel.id) (\($0.channel.kind))" }.joined(separator: ", ")
    }

    /// Each channel axis's sysfs name: `anglvel_x`, …, or `pressure`.
    private var axisNames: [String] {
        iioChannels.flatMap { channel in channel.kind.axes == 3 ? ["x", "y", "z"].map { "\(channel.kind.name)_\($0)" } : [channel.kind.name] }
    }

    /// The properties udev's rules from iio-sensor-proxy give such a device: `IIO_SENSOR_PROXY_TYPE`, which names the
    /// drivers that may read it (polled accelerometer for an IMU with one, polled light or proximity sensor); none for
    /// the other kinds, which iio-sensor-proxy does not serve.
    var udevProperties: [String] {
        let names = Set(iioChannels.map(\.kind.name))
        let types = [("accel", "iio-poll-accel"), ("illuminance", "iio-poll-als"), ("proximity", "iio-poll-proximity")].filter { names.contains($0.0) }
        return types.isEmpty ? [] : ["IIO_SENSOR_PROXY_TYPE=" + types.map(\.1).joined(separator: " ")]
    }

    public func prepare(_ testbed: inout TestbedPlan) throws {
        let number = testbed.nextIIONumber
        testbed.nextIIONumber += 1
        let folder = "/devices/platform/\(deviceName).\(number)/iio:device\(number)"
        state.withLock {
            $0.number = number
            $0.folder = folder
        }
        let rate = channels.compactMap(\.channel.rate).max() ?? estimatedRate ?? 100
        var tree = """
            P: \(folder)
            N: iio:device\(number)
            E: DEVNAME=/dev/iio:device\(number)
            E: DEVTYPE=iio_device
            E: SUBSYSTEM=iio
            E: MAJOR=241
            E: MINOR=\(number)
            \(udevProperties.map { "E: \($0)\n" }.joined())A: dev=241:\(number)
            A: name=\(deviceName)\\n
            A: sampling_frequency=\(Self.number(rate))\\n
            A: current_timestamp_clock=monotonic\\n

            """
        let first = scans.first?.raw ?? Array(repeating: 0, count: axisNames.count)
        for channel in iioChannels {
            tree += "A: in_\(channel.kind.name)_scale=\(Self.number(channel.scale))\\n\n"
            tree += "A: in_\(channel.kind.name)_offset=0\\n\n"
            if channel.kind.axes == 3 { tree += "A: in_\(channel.kind.name)_mount_matrix=1, 0, 0; 0, 1, 0; 0, 0, 1\\n\n" }
        }
        for (index, name) in axisNames.enumerated() { tree += "A: in_\(name)_raw=\(first[index])\\n\n" }
        if isIMU {
            tree += "A: buffer/enable=0\\n\nA: buffer/length=1\\n\nA: buffer/watermark=1\\n\nA: trigger/current_trigger=\\n\n"
            for (index, name) in axisNames.enumerated() {
                tree += "A: scan_elements/in_\(name)_en=0\\n\nA: scan_elements/in_\(name)_index=\(index)\\n\nA: scan_elements/in_\(name)_type=le:s16/16>>0\\n\n"
            }
            tree += "A: scan_elements/in_timestamp_en=0\\n\nA: scan_elements/in_timestamp_index=\(axisNames.count)\\n\nA: scan_elements/in_timestamp_type=le:s64/64>>0\\n\n"
            tree += """

                P: /devices/platform/\(deviceName).\(number)/trigger\(number)
                E: SUBSYSTEM=iio
                A: name=\(deviceName)-dev\(number)\\n
                A: sampling_frequency=\(Self.number(rate))\\n

                """
        }
        testbed.umockdevArguments += ["-d", try testbed.write("iio\(number).umockdev", tree)]
        if isIMU {
            // The buffer's node reads what the run writes into this FIFO: each scan at its time, laid out for the
            // channels the program enabled when it falls due, as a driver fills its buffer.
            let fifo = try testbed.makeFIFO("iio\(number).live")
            testbed.umockdevArguments += ["-l", "/dev/iio:device\(number)=\(fifo)"]
            state.withLock { $0.live = fifo }
        }
        onTraceClock.withLock { $0 = testbed.onTraceClock }
        for channel in channels { testbed.environment["HAL_DEVICE_" + TestbedPlan.variableName(channel.channel.id)] = "iio:device\(number)" }
    }

    /// A scan as the buffer holds it: the `enabled` channels' values (all when `nil`) as s16, then the timestamp as
    /// s64 aligned to 8 bytes when it is enabled; the whole padded to its largest element, as the kernel lays it out.
    private static func bytes(of scan: (time: Timestamp, raw: [Int32]), enabled: [Bool]? = nil, timestamp: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = []
        for (index, value) in scan.raw.enumerated() where enabled?[index] ?? true {
            bytes += withUnsafeBytes(of: Int16(clamping: value).littleEndian, Array.init)
        }
        if timestamp {
            while bytes.count % 8 != 0 { bytes.append(0) }
            bytes += withUnsafeBytes(of: scan.time.nanoseconds.littleEndian, Array.init)
        }
        return bytes
    }

    /// Whether the sysfs attribute at `path` reads 1 (as a program wrote it: libiio writes "1" and a NUL).
    private static func flag(_ path: String) -> Bool {
        (try? String(contentsOfFile: path, encoding: .utf8))?.split(whereSeparator: { $0.isWhitespace || $0 == "\0" }).first == "1"
    }

    private var estimatedRate: Double? {
        guard scans.count > 1, let first = scans.first?.time, let last = scans.last?.time, last > first else { return nil }
        return (Double(scans.count - 1) / first.duration(to: last).seconds).rounded()
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    public func feed(_ run: FeedContext) async throws {
        if run.live?.carries(channels.map(\.index)) == true { return try await feedLive(run) }
        let root = run.testbedRoot
        let folder = root + "/sys" + state.withLock { $0.folder }
        let buffer = try openBuffer(run)
        let names = axisNames
        var current = scans.first?.raw ?? []
        // On the trace's clock, a scan has reached the reader's side once the buffer's node holds it (a sysfs value is
        // there as soon as it is renamed into place). A record whose scan is written already, or that goes to sysfs
        // alone, has nothing in the node to settle.
        let pending = run.clock == nil ? nil : buffer?.node
        let wrote = Locked(false)
        let settled = pending.map { pending in { @Sendable in !wrote.withLock { $0 } || pending.isWaiting() } }
        // The scans, each whole at its time (the channels' records of one time make one scan), on either clock. As a
        // driver fills its buffer, a scan goes into the buffer only while the program has it enabled
        // (`buffer/enable`), and holds the channels it enabled (`scan_elements/*_en`), in index order, each aligned to
        // its size.
        var next = 0
        for await record in run.records(of: channels, settled: settled) {
            wrote.withLock { $0 = false }
            guard next < scans.count, scans[next].time <= record.timestamp else { continue }
            let scan = scans[next]
            next += 1
            for (index, name) in names.enumerated() where scan.raw[index] != current[index] {
                try Self.replace(folder + "/in_\(name)_raw", with: "\(scan.raw[index])\n", scratch: root)
            }
            current = scan.raw
            if let buffer, Self.flag(folder + "/buffer/enable") {
                let enabled = names.map { Self.flag(folder + "/scan_elements/in_\($0)_en") }
                let timestamp = Self.flag(folder + "/scan_elements/in_timestamp_en")
                // Nothing enabled (a program that only opens the node and reads): every channel and the timestamp.
                let all = !enabled.contains(true) && !timestamp
                buffer.write(Self.bytes(of: scan, enabled: all ? nil : enabled, timestamp: all || timestamp))
                wrote.withLock { $0 = true }
                state.withLock { $0.scanEnds.append(buffer.bytesWritten) }
            }
            state.withLock { $0.written += 1 }
        }
    }

    /// Feeds live readings as they arrive: each one's values into sysfs, and (the IMU) a scan of every channel into
    /// the buffer.
    private func feedLive(_ run: FeedContext) async throws {
        let root = run.testbedRoot
        let folder = root + "/sys" + state.withLock { $0.folder }
        let buffer = try openBuffer(run)
        let names = axisNames
        var current = [Int32](repeating: 0, count: names.count)
        for await record in run.records(of: channels) {
            var next = current
            guard Self.apply(record, channels: iioChannels, to: &next) else { continue }
            for (index, name) in names.enumerated() where next[index] != current[index] {
                try Self.replace(folder + "/in_\(name)_raw", with: "\(next[index])\n", scratch: root)
            }
            current = next
            buffer?.write(Self.bytes(of: (record.timestamp, current)))
            state.withLock {
                $0.written += 1
                if let buffer { $0.scanEnds.append(buffer.bytesWritten) }
            }
        }
    }

    /// The buffer's FIFO (the IMU), its node held open to count what the program leaves unread.
    private func openBuffer(_ run: FeedContext) throws -> LiveNode? {
        let (fifo, number) = state.withLock { ($0.live, $0.number) }
        guard let fifo else { return nil }
        let buffer = try LiveNode(path: fifo, node: run.testbedRoot + "/dev/iio:device\(number)")
        state.withLock { $0.buffer = buffer }
        return buffer
    }

    public func finish() {
        guard let buffer = state.withLock({ $0.buffer }) else { return }
        // A scan counts as read once none of its bytes is left in the node.
        let read = buffer.bytesRead()
        state.withLock { state in state.read = read.map { read in state.scanEnds.prefix { $0 <= read }.count } }
    }

    /// Writes `text` to a file beside the testbed's sysfs and renames it over `path`, so a reader sees the old value
    /// or the new one, never an empty file.
    private static func replace(_ path: String, with text: String, scratch: String) throws {
        // One temporary file per attribute: devices feed at once, and a shared one could be renamed over another's.
        let temporary = scratch + "/.hal-value" + String(path.map { $0 == "/" ? "_" : $0 })
        let file = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard file >= 0 else { throw ProgramError("cannot write \(temporary): \(describeErrno(errno))") }
        _ = Array(text.utf8).withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        close(file)
        guard rename(temporary, path) == 0 else { throw ProgramError("cannot replace \(path): \(describeErrno(errno))") }
    }

    public var delivered: String {
        let (number, written, buffered, read, live) = state.withLock { ($0.number, $0.written, $0.scanEnds.count, $0.read, $0.live) }
        let clock = onTraceClock.withLock { $0 } ? " on the trace's clock" : ""
        guard live != nil else { return "iio:device\(number): \(written) readings in sysfs\(clock)" }
        return "iio:device\(number): \(written) readings in sysfs\(clock), \(buffered) scans into the enabled buffer" + (read.map { ", \($0) read by the program" } ?? "")
    }
}
