public import HALTestDoubles
public import TraceFormat
public import HAL

/// Plays a trace's records back in timestamp order, as fast as possible or paced.
///
/// Channels are merged by timestamp. Records with the same timestamp keep the order
/// of their channels in the header, then their order in the file, so every replay of
/// a trace delivers exactly the same sequence whatever the pace.
///
/// A ``ReplayOptions/faults`` plan is applied to each pass after that ordering, so a faulty replay
/// delivers what a faulty device would: late, reordered or duplicated records in delivery order.
///
/// When looping, each pass is shifted later by the trace's span plus one sample
/// period of its fastest channel (1 ms when no channel states a rate), so delivered
/// timestamps keep increasing.
public struct TraceReplay: Sendable {
    /// The trace being replayed.
    public let trace: Trace
    /// How it is replayed.
    public let options: ReplayOptions
    /// One pass's records, filtered and in delivery order.
    public let pass: [TraceRecord]
    /// When each record of ``pass`` arrives: its timestamp, or later when a `latency` fault delays it. Empty when
    /// every record arrives at its timestamp.
    public let arrivals: [Timestamp]
    /// How far each loop is shifted after the previous one.
    public let loopPeriod: Duration
    /// The time a paced replay starts from: the trace's earliest record of any channel, plus the start offset.
    /// Channels of one trace replayed as separate devices therefore keep their places against each other: a touch
    /// channel whose first tap is 5.5 s into a script taps 5.5 s after the replay starts, not at once.
    public let pacingOrigin: Timestamp
    /// The first record of the included channels as recorded, before any fault: the zero from which a fault plan's
    /// windows, a scenario's commands and windows, and an event log count. `nil` when nothing is replayed.
    public let origin: Timestamp?

    /// Prepares a replay. Throws when the channel filter names a channel the trace lacks
    /// or the options are out of range.
    public init(trace: Trace, options: ReplayOptions = ReplayOptions()) throws(TraceError) {
        if let wanted = options.channels {
            for id in wanted.sorted() where trace.header.channelIndex(of: id) == nil {
                let known = trace.header.channels.map(\.id).joined(separator: ", ")
                throw TraceError(.unknownChannel, file: trace.path, line: 0, "no channel '\(id)' to replay (channels: \(known))")
            }
        }
        if let factor = options.pacing.factor, !(factor > 0 && factor.isFinite) {
            throw TraceError(.invalidValue, file: trace.path, line: 0, "a replay rate is a positive number, not \(factor)")
        }
        if let loops = options.loops, loops < 1 {
            throw TraceError(.invalidValue, file: trace.path, line: 0, "a replay plays at least once")
        }
        if let plan = options.faults {
            do throws(ScriptError) { try plan.check(against: trace.header) } catch {
                throw TraceError(.unknownChannel, file: error.file, line: 0, error.message)
            }
        }
        self.trace = trace
        self.options = options
        let included = trace.header.channels.map { options.channels?.contains($0.id) ?? true }
        let from = (trace.start ?? .zero).advanced(by: options.startOffset)
        pacingOrigin = from
        let ordered = Self.ordered(trace, included: included, from: from)
        origin = ordered.first?.timestamp
        if let plan = options.faults {
            (pass, arrivals) = FaultInjector(plan: plan, header: trace.header).arrivals(of: ordered)
        } else {
            pass = ordered
            arrivals = []
        }
        let fastest = trace.header.channels.indices.filter { included[$0] }.compactMap { trace.header.channels[$0].rate }.max()
        let gap: Duration = fastest.map { .nanoseconds(Int64((1e9 / $0).rounded())) } ?? .milliseconds(1)
        if let first = pass.first?.timestamp, let last = (arrivals.last ?? pass.last?.timestamp) {
            loopPeriod = first.duration(to: last) + gap
        } else {
            loopPeriod = gap
        }
    }

    /// The records of the included channels from `from` on, by timestamp, then channel, then place in the file.
    /// A whole trace already in that order (as the trace writer keeps it) is the trace's own array, not a copy.
    static func ordered(_ trace: Trace, included: [Bool], from: Timestamp) -> [TraceRecord] {
        let records = trace.records
        let whole = !included.contains(false) && (records.first.map { $0.timestamp >= from } ?? true)
        // By index: the records are compared where they are, not copied out.
        if whole && records.indices.dropFirst().allSatisfy({ (records[$0 - 1].timestamp, records[$0 - 1].channel) <= (records[$0].timestamp, records[$0].channel) }) {
            return records
        }
        var selected: [(record: TraceRecord, line: Int)] = []
        for (line, record) in records.enumerated() where included[record.channel] && record.timestamp >= from {
            selected.append((record, line))
        }
        selected.sort { ($0.record.timestamp, $0.record.channel, $0.line) < ($1.record.timestamp, $1.record.channel, $1.line) }
        return selected.map(\.record)
    }

    /// The time of the first record delivered: after a fault plan, not always ``origin``.
    public var firstTimestamp: Timestamp? { pass.first?.timestamp }

    /// Delivers every record synchronously, as fast as possible, whatever the pacing option.
    ///
    /// This is the throughput path: no task hop and no clock per record. When a
    /// `clock` is given it is advanced to each record's time before the record is delivered.
    public func forEach(clock: VirtualClock? = nil, _ body: (TraceRecord) throws -> Void) rethrows {
        try each { record, _ in
            clock?.advance(to: record.timestamp)
            try body(record)
        }
    }

    /// Delivers every record with its arrival (``arrivals``) synchronously, as fast as possible, whatever the pacing
    /// option: no task hop and no clock per record. A task cancelled meanwhile stops the replay with
    /// `CancellationError` (checked every 1,024 records).
    public func forEach(arriving body: (_ record: TraceRecord, _ arrival: Timestamp) throws -> Void) throws {
        var delivered = 0
        try each { record, arrival in
            delivered &+= 1
            if delivered % 1024 == 0 { try Task.checkCancellation() }
            try body(record, arrival)
        }
    }

    /// Every record of every loop with its arrival, shifted by the loop's period.
    private func each(_ body: (_ record: TraceRecord, _ arrival: Timestamp) throws -> Void) rethrows {
        guard !pass.isEmpty else { return }
        var loop: Int64 = 0
        while options.loops.map({ loop < $0 }) ?? true {
            let shift = loopPeriod.wholeNanoseconds * loop
            for index in pass.indices {
                var record = pass[index]
                var arrival = arrivals.isEmpty ? record.timestamp : arrivals[index]
                if shift != 0 {
                    record.reading.timestamp.nanoseconds += shift
                    arrival.nanoseconds += shift
                }
                try body(record, arrival)
            }
            loop += 1
        }
    }

    /// Delivers every record, waiting on `pacingClock` between records as the pacing asks.
    ///
    /// Record *n* is delivered when `(tₙ − t₀) / factor` has passed on the pacing clock, where *t₀* is
    /// ``pacingOrigin``. The virtual clock, when
    /// given, is advanced to each record's time before the record is delivered.
    /// Cancelling the task stops the replay with `CancellationError`.
    public func run<PacingClock: Clock>(
        pacingClock: PacingClock, clock: VirtualClock? = nil,
        _ deliver: (TraceRecord) async throws -> Void
    ) async throws where PacingClock.Duration == Duration {
        try await run(pacingClock: pacingClock, clock: clock, arriving: { record, _ in try await deliver(record) })
    }

    /// Delivers every record with its arrival (``arrivals``), waiting on `pacingClock` between records as the
    /// pacing asks.
    ///
    /// Record *n* is delivered when `(aₙ − t₀) / factor` has passed on the pacing clock, where *aₙ* is its arrival
    /// and *t₀* the ``pacingOrigin``. The virtual clock, when given, is
    /// advanced to each arrival before the record is delivered. Cancelling the task stops the replay with
    /// `CancellationError`.
    public func run<PacingClock: Clock>(
        pacingClock: PacingClock, clock: VirtualClock? = nil,
        arriving deliver: (_ record: TraceRecord, _ arrival: Timestamp) async throws -> Void
    ) async throws where PacingClock.Duration == Duration {
        guard !pass.isEmpty else { return }
        let first = pacingOrigin
        let startedAt = pacingClock.now
        var delivered = 0
        var loop: Int64 = 0
        while options.loops.map({ loop < $0 }) ?? true {
            let shift = loopPeriod.wholeNanoseconds * loop
            for index in pass.indices {
                try Task.checkCancellation()
                var record = pass[index]
                var arrival = arrivals.isEmpty ? record.timestamp : arrivals[index]
                if shift != 0 {
                    record.reading.timestamp.nanoseconds += shift
                    arrival.nanoseconds += shift
                }
                if let factor = options.pacing.factor {
                    let elapsed = Double(arrival.nanoseconds - first.nanoseconds) / factor
                    try await pacingClock.sleep(until: startedAt.advanced(by: .nanoseconds(Int64(elapsed.rounded()))), tolerance: nil)
                } else {
                    // Unpaced, nothing here suspends: let the consumers run now and then, or an endless
                    // loop would keep a thread of the cooperative pool to itself.
                    delivered &+= 1
                    if delivered % 1024 == 0 { await Task.yield() }
                }
                clock?.advance(to: arrival)
                try await deliver(record, arrival)
            }
            loop += 1
        }
    }

    /// The records as an asynchronous stream, paced by `pacingClock`.
    ///
    /// The stream buffers without bound, so a slow consumer never loses a record;
    /// ending iteration stops the replay.
    public func records<PacingClock: Clock>(
        pacingClock: PacingClock, clock: VirtualClock? = nil
    ) -> AsyncThrowingStream<TraceRecord, any Error> where PacingClock.Duration == Duration {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: TraceRecord.self)
        let task = Task {
            do {
                try await run(pacingClock: pacingClock, clock: clock) { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
