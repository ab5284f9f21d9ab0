public import TraceFormat
public import HAL

/// A device to record, and the channel it goes to.
public struct RecordingSource: Sendable {
    /// The channel the device's readings are written to.
    public var channel: TraceChannel
    let readings: @Sendable () -> AsyncThrowingStream<Reading, any Error>

    /// Records `device` on a channel with id `id`, described by the device's info.
    public init(id: String, device: any ReadingSource, buffering: ReadingBuffering = .unbounded) {
        channel = TraceChannel(id: id, device: device.info)
        readings = { device.anyReadings(buffering: buffering) }
    }
}

/// What a recording did.
public struct RecordingSummary: Sendable {
    /// Records written per channel, in header order.
    public var counts: [Int]
    /// Channels whose device failed, with the device's error. Their records up to the failure are kept.
    public var failures: [(channel: String, error: any Error)]
    /// Whether the recording was stopped (Ctrl-C, a time limit) rather than running out.
    public var stopped: Bool
}

/// Records HAL devices into a trace file, one channel per device.
///
/// Each record is written as soon as it arrives, in arrival order, with one `write`
/// per record, so a recording cut off by a crash or Ctrl-C is readable up to its last
/// whole record. A device that fails ends its channel; the others go on, and the
/// summary reports the failure.
public final class TraceRecorder: Sendable {
    private let writer: Locked<TraceWriter>
    private let sources: [RecordingSource]
    private let liveCounts: Locked<[Int]>
    private let failures = Locked<[(channel: String, error: any Error)]>([])
    private let writeError = Locked<TraceError?>(nil)

    /// Creates the trace file and writes its header.
    public init(path: String, sources: [RecordingSource], metadata: [String: String] = [:]) throws(TraceError) {
        let header = TraceHeader(channels: sources.map(\.channel), metadata: metadata)
        writer = Locked(try TraceWriter(path: path, header: header, durability: .everyRecord))
        self.sources = sources
        liveCounts = Locked(Array(repeating: 0, count: sources.count))
    }

    /// Records written so far, per channel.
    public var counts: [Int] { liveCounts.withLock { $0 } }

    /// Records until every device ends or the task is cancelled, then closes the file.
    ///
    /// Throws a ``TraceError`` only when the file cannot be written (a full disk);
    /// everything written before that stays readable.
    public func run() async throws(TraceError) -> RecordingSummary {
        await withTaskGroup(of: Void.self) { group in
            for (index, source) in sources.enumerated() {
                group.addTask {
                    do {
                        for try await reading in source.readings() {
                            try self.writer.withLock { writer throws(TraceError) in
                                try writer.write(TraceRecord(channel: index, reading: reading))
                            }
                            self.liveCounts.withLock { $0[index] += 1 }
                        }
                    } catch let error as TraceError {
                        self.writeError.withLock { $0 = $0 ?? error }
                    } catch is CancellationError {
                    } catch {
                        self.failures.withLock { $0.append((source.channel.id, error)) }
                    }
                }
            }
            for await _ in group {
                if self.writeError.withLock({ $0 != nil }) { group.cancelAll() }
            }
        }
        let stopped = Task.isCancelled
        try writer.withLock { writer throws(TraceError) in try writer.close() }
        if let error = writeError.withLock({ $0 }) { throw error }
        return RecordingSummary(counts: counts, failures: failures.withLock { $0 }, stopped: stopped)
    }
}
