public import TraceFormat
public import HAL

/// A device to record, and the channel it goes to.
public struct RecordingSource: Sendable {
    /// The channel the device's readings are written to.
    public var channel: TraceChannel
    let readings: @Sendable () -> AsyncThrowingStream<Reading, any Error>
    let reopen: (@Sendable () throws -> any ReadingSource)?
    let buffering: ReadingBuffering

    /// Records `device` on a channel with id `id`, described by the device's info.
    ///
    /// With `reopen`, a device that goes away (``HAL/DeviceError/Code/disconnected``) is opened
    /// again through it when the recorder's ``ReconnectPolicy`` allows, and its channel goes on.
    public init(
        id: String, device: any ReadingSource, buffering: ReadingBuffering = .unbounded,
        reopen: (@Sendable () throws -> any ReadingSource)? = nil
    ) {
        channel = TraceChannel(id: id, device: device.info)
        readings = { device.anyReadings(buffering: buffering) }
        self.reopen = reopen
        self.buffering = buffering
    }
}

/// Whether and how a recording waits for a device that went away.
public struct ReconnectPolicy: Sendable, Hashable {
    /// Seconds between attempts to open the device again; `nil` ends the channel at once.
    public var retryInterval: Double?

    /// A device that goes away ends its channel.
    public static let never = ReconnectPolicy(retryInterval: nil)

    /// A device that goes away is opened again every `seconds` until it is back or the recording stops.
    public static func every(_ seconds: Double) -> ReconnectPolicy { ReconnectPolicy(retryInterval: seconds) }
}

/// A device that went away during a recording, and when it came back.
public struct RecordingInterruption: Sendable {
    /// The channel's id.
    public var channel: String
    /// Why the device's stream ended.
    public var error: DeviceError
    /// When it went away and when it was back, on the monotonic clock; `back` is `nil` if it never was.
    public var lost: Timestamp, back: Timestamp?
}

/// What a recording did.
public struct RecordingSummary: Sendable {
    /// Records written per channel, in header order.
    public var counts: [Int]
    /// Channels whose device failed, with the device's error. Their records up to the failure are kept.
    public var failures: [(channel: String, error: any Error)]
    /// Whether the recording was stopped (Ctrl-C, a time limit) rather than running out.
    public var stopped: Bool
    /// Devices that went away and were waited for (with a ``ReconnectPolicy``), in the order they went.
    public var interruptions: [RecordingInterruption]
}

/// Records HAL devices into a trace file, one channel per device: JSON Lines, or MCAP for a `.mcap` path
/// (``TraceFiles/makeWriter(path:header:durability:)``).
///
/// Each record is written as soon as it arrives, in arrival order. In JSON Lines each is one `write`, so a
/// recording cut off by a crash or Ctrl-C is readable up to its last whole record; MCAP writes a chunk at least
/// every second of log time, so such a recording loses at most its last second. A device that fails ends its channel; the others go on, and the
/// summary reports the failure. With a ``ReconnectPolicy``, a device that goes away is
/// opened again until it is back, and its channel goes on in the same file.
public final class TraceRecorder: Sendable {
    private let writer: Locked<any TraceSink>
    private let sources: [RecordingSource]
    private let liveCounts: Locked<[Int]>
    private let failures = Locked<[(channel: String, error: any Error)]>([])
    private let writeError = Locked<TraceError?>(nil)
    private let interruptions = Locked<[RecordingInterruption]>([])
    private let reconnect: ReconnectPolicy
    private let onInterruption: @Sendable (RecordingInterruption) -> Void
    private let onRecord: @Sendable (TraceRecord) -> Void

    /// Creates the trace file and writes its header.
    ///
    /// `onInterruption` hears each device going away and coming back, as it happens; `onRecord` gets each record once
    /// it is written (`hal exec` serves a live device's readings to a program as it records them).
    public init(
        path: String, sources: [RecordingSource], metadata: [String: String] = [:], reconnect: ReconnectPolicy = .never,
        onInterruption: @escaping @Sendable (RecordingInterruption) -> Void = { _ in }, onRecord: @escaping @Sendable (TraceRecord) -> Void = { _ in }
    ) throws(TraceError) {
        let header = TraceHeader(channels: sources.map(\.channel), metadata: metadata)
        writer = Locked(try TraceFiles.makeWriter(path: path, header: header, durability: .everyRecord))
        self.sources = sources
        self.reconnect = reconnect
        self.onInterruption = onInterruption
        self.onRecord = onRecord
        liveCounts = Locked(Array(repeating: 0, count: sources.count))
    }

    /// Writes one device's readings until its stream ends.
    private func drain(_ readings: AsyncThrowingStream<Reading, any Error>, channel index: Int) async throws {
        for try await reading in readings {
            let record = TraceRecord(channel: index, reading: reading)
            try writer.withLock { writer throws(TraceError) in
                try writer.write(record)
            }
            liveCounts.withLock { $0[index] += 1 }
            onRecord(record)
        }
    }

    /// Opens the device again every `interval` seconds until it opens or the task is cancelled.
    private func reopen(_ source: RecordingSource, every interval: Double) async throws -> AsyncThrowingStream<Reading, any Error> {
        while true {
            try await Task.sleep(for: .seconds(interval))
            if let device = try? source.reopen?() { return device.anyReadings(buffering: source.buffering) }
        }
    }

    /// Records one channel: its device, and the same device again after each time it goes away.
    private func record(_ source: RecordingSource, channel index: Int) async {
        var readings = source.readings()
        while true {
            do {
                try await drain(readings, channel: index)
                return
            } catch let error as TraceError {
                writeError.withLock { $0 = $0 ?? error }
                return
            } catch is CancellationError {
                return
            } catch let error as DeviceError where error.code == .disconnected && source.reopen != nil {
                guard let interval = reconnect.retryInterval else {
                    failures.withLock { $0.append((source.channel.id, error)) }
                    return
                }
                var interruption = RecordingInterruption(channel: source.channel.id, error: error, lost: MonotonicClock.now, back: nil)
                onInterruption(interruption)
                let slot = interruptions.withLock { list in
                    list.append(interruption)
                    return list.count - 1
                }
                do {
                    readings = try await reopen(source, every: interval)
                } catch {
                    return  // stopped while waiting
                }
                interruption.back = MonotonicClock.now
                interruptions.withLock { $0[slot] = interruption }
                onInterruption(interruption)
            } catch {
                failures.withLock { $0.append((source.channel.id, error)) }
                return
            }
        }
    }

    /// Records written so far, per channel.
    public var counts: [Int] { liveCounts.withLock { $0 } }

    /// Records until every device ends or the task is cancelled, then closes the file.
    ///
    /// Throws a ``TraceError`` only when the file cannot be written (a full disk);
    /// everything written before that stays readable.
    public func run() async throws(TraceError) -> RecordingSummary {
        // Once a second, what the writer holds goes to the file (an MCAP writer's open chunk), so that a crash
        // loses at most the last second whatever the channels' rates.
        let flusher = Task { [writer] in
            while (try? await Task.sleep(for: .seconds(1))) != nil {
                writer.withLock { writer in try? writer.flush() }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for (index, source) in sources.enumerated() {
                group.addTask { await self.record(source, channel: index) }
            }
            for await _ in group {
                if self.writeError.withLock({ $0 != nil }) { group.cancelAll() }
            }
        }
        flusher.cancel()
        let stopped = Task.isCancelled
        try writer.withLock { writer throws(TraceError) in try writer.close() }
        if let error = writeError.withLock({ $0 }) { throw error }
        return RecordingSummary(
            counts: counts, failures: failures.withLock { $0 }, stopped: stopped, interruptions: interruptions.withLock { $0 })
    }
}
