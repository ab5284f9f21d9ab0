public import TraceFormat
public import HAL

/// Applies a ``FaultPlan`` to records in delivery order, and returns the records as a faulty device would
/// deliver them. Deterministic: each fault draws from its own generator seeded by the plan's seed and the
/// fault's place in the plan, so adding a fault does not change what the others do.
public struct FaultInjector: Sendable {
    /// The plan.
    public let plan: FaultPlan
    /// The channels of the trace the records come from.
    public let header: TraceHeader

    /// What each channel's kind says the value faults do to it.
    private let kindFaults: [KindFaults]

    /// Creates an injector for a trace's records.
    public init(plan: FaultPlan, header: TraceHeader) {
        self.plan = plan
        self.header = header
        self.kindFaults = header.channels.map { $0.kind.kindDescription.faults }
    }

    /// The records with every fault applied, in delivery order.
    public func apply(to records: [TraceRecord]) -> [TraceRecord] {
        deliveries(of: records).map(\.record)
    }

    /// The records with every fault applied, in delivery order, each with when it reaches the app.
    ///
    /// A record arrives at its own timestamp (after a `jitter` or `rate` fault, the timestamp the fault gave it),
    /// later by the `latency` faults that caught it. The timestamp is when the device produced the record; the
    /// arrival is when it was delivered. A consumer never goes back in time, so a record that arrives before one
    /// delivered ahead of it (after a `reorder`) is taken when that one was: see ``Delivery``.
    public func deliveries(of records: [TraceRecord]) -> [Delivery] {
        var result = records.map { Delivery(record: $0, lateness: 0) }
        guard let origin = records.map(\.timestamp).min() else { return result }
        for (index, fault) in plan.faults.enumerated() {
            var random = SeededRandom(seed: plan.seed &+ 0x9E37_79B9_7F4A_7C15 &* UInt64(index + 1))
            apply(Scope(fault, header: header, origin: origin), to: &result, random: &random)
        }
        return result
    }

    /// A record as a faulty device delivers it.
    public struct Delivery: Sendable, Hashable {
        /// The record, with the timestamp the device gave it.
        public var record: TraceRecord
        /// How much later than its timestamp the record arrives, in nanoseconds (a latency fault's delay).
        public var lateness: Int64

        /// Creates a delivery.
        public init(record: TraceRecord, lateness: Int64 = 0) {
            self.record = record
            self.lateness = lateness
        }

        /// When the record arrives: its timestamp, plus its lateness.
        public var arrival: Timestamp {
            Timestamp(nanoseconds: record.timestamp.nanoseconds.shifted(by: lateness))
        }
    }

    /// A fault with what is worked out once for it: the channels it names, and the trace's first time.
    private struct Scope {
        let fault: Fault
        /// By channel index: whether the fault's `channel` (or its absence) takes the channel in.
        let channels: [Bool]
        let origin: Timestamp

        init(_ fault: Fault, header: TraceHeader, origin: Timestamp) {
            self.fault = fault
            channels = header.channels.map { channel in fault.channel.map { $0 == channel.id } ?? true }
            self.origin = origin
        }
    }

    private func applies(_ scope: Scope, to record: borrowing Delivery) -> Bool {
        let fault = scope.fault
        guard scope.channels[record.channel] else { return false }
        if fault.from != nil || fault.to != nil {
            let seconds = scope.origin.duration(to: record.timestamp).seconds
            if let from = fault.from, seconds < from { return false }
            if let to = fault.to, seconds >= to { return false }
        }
        switch fault.kind {
        case .drop, .reorder, .duplicate, .latency, .rate, .disconnect, .jitter: return true
        case .stuck: return kindFaults[record.channel].freeze != nil
        case .spike: return kindFaults[record.channel].spike != nil
        case .bias: return kindFaults[record.channel].bias != nil
        case .lostFix, .jump:
            if case .location = record.reading { return true }
            return false
        case .corruptFrame:
            if case .frame = record.reading { return true }
            return false
        }
    }

    /// Applies one fault. Faults that keep the records and their order change them where they are; the others make a
    /// new array. Either way the generator is drawn from in the records' order, as it always was.
    private func apply(_ scope: Scope, to records: inout [Delivery], random: inout SeededRandom) {
        let fault = scope.fault
        switch fault.kind {
        case .drop, .disconnect:
            var out: [Delivery] = []
            out.reserveCapacity(records.count)
            var remaining = 0
            for record in records {
                guard applies(scope, to: record) else { out.append(record); continue }
                if fault.kind == .disconnect || fault.probability == nil { continue }
                if remaining > 0 {
                    remaining -= 1
                    continue
                }
                if random.unit() < fault.probability! {
                    remaining = (fault.burst ?? 1) - 1
                    continue
                }
                out.append(record)
            }
            records = out
        case .stuck:
            var frozen: [Int: Reading] = [:]
            for index in records.indices where applies(scope, to: records[index]) {
                let channel = records[index].channel
                if let first = frozen[channel], let freeze = kindFaults[channel].freeze {
                    records[index].reading = freeze(records[index].reading, first)
                } else {
                    frozen[channel] = records[index].reading
                }
            }
        case .spike:
            for index in records.indices {
                if applies(scope, to: records[index]), random.unit() < (fault.probability ?? 0),
                    let spike = kindFaults[records[index].channel].spike
                {
                    records[index].reading = spike(records[index].reading, fault.magnitude ?? 0) { random.unit() }
                }
            }
        case .bias:
            for index in records.indices {
                if applies(scope, to: records[index]), let bias = kindFaults[records[index].channel].bias {
                    records[index].reading = bias(records[index].reading, fault.magnitude ?? 0)
                }
            }
        case .jitter:
            for index in records.indices where applies(scope, to: records[index]) {
                let offset = nanoseconds(random.gaussian() * (fault.magnitude ?? 0))
                records[index].reading.timestamp.nanoseconds = records[index].reading.timestamp.nanoseconds.shifted(by: offset)
            }
        case .reorder:
            var index = 0
            while index + 1 < records.count {
                if applies(scope, to: records[index]), random.unit() < (fault.probability ?? 0) {
                    records.swapAt(index, index + 1)
                    index += 2
                } else {
                    index += 1
                }
            }
        case .duplicate:
            var out: [Delivery] = []
            out.reserveCapacity(records.count)
            for record in records {
                out.append(record)
                if applies(scope, to: record), random.unit() < (fault.probability ?? 0) { out.append(record) }
            }
            records = out
        case .latency:
            let delay = nanoseconds(fault.magnitude ?? 0)
            for index in records.indices where applies(scope, to: records[index]) {
                records[index].lateness = records[index].lateness.shifted(by: delay)
            }
            // Arrival order, stable.
            let arrivals = records.map(\.arrival.nanoseconds)
            let order = records.indices.sorted { (arrivals[$0], $0) < (arrivals[$1], $1) }
            records = order.map { records[$0] }
        case .rate:
            var out: [Delivery] = []
            out.reserveCapacity(records.count)
            let factor = fault.factor ?? 1
            var counts: [Int: Int] = [:]
            // Each record's next timestamp on its channel, for upsampling.
            var following = [Timestamp?](repeating: nil, count: records.count)
            var upcoming: [Int: Timestamp] = [:]
            for index in records.indices.reversed() {
                following[index] = upcoming[records[index].channel]
                upcoming[records[index].channel] = records[index].timestamp
            }
            for (index, record) in records.enumerated() {
                guard applies(scope, to: record) else { out.append(record); continue }
                let count = counts[record.channel, default: 0]
                counts[record.channel] = count + 1
                if factor < 1 {
                    if Int(Double(count + 1) * factor) > Int(Double(count) * factor) { out.append(record) }
                    continue
                }
                out.append(record)
                guard let next = following[index] else { continue }
                let extra = Int(factor.rounded()) - 1
                for step in 0..<max(0, extra) {
                    var copy = record
                    let span = record.timestamp.duration(to: next).wholeNanoseconds
                    let (scaled, overflow) = span.multipliedReportingOverflow(by: Int64(step + 1))
                    let offset = overflow ? span / Int64(extra + 1) * Int64(step + 1) : scaled / Int64(extra + 1)
                    copy.reading.timestamp.nanoseconds = copy.reading.timestamp.nanoseconds.shifted(by: offset)
                    out.append(copy)
                }
            }
            records = out
        case .lostFix:
            for index in records.indices {
                if applies(scope, to: records[index]), case .location(let fix) = records[index].reading {
                    records[index].reading = .location(.noFix(at: fix.timestamp, utcNanoseconds: fix.utcNanoseconds))
                }
            }
        case .jump:
            let bearing = fault.bearing ?? random.unit() * 360
            for index in records.indices {
                if applies(scope, to: records[index]), case .location(var fix) = records[index].reading, let position = fix.coordinate {
                    fix.coordinate = position.destination(distance: fault.magnitude ?? 0, bearing: bearing)
                    records[index].reading = .location(fix)
                }
            }
        case .corruptFrame:
            for index in records.indices {
                if applies(scope, to: records[index]), random.unit() < (fault.probability ?? 0), case .frame(var frame) = records[index].reading {
                    switch frame.storage {
                    case .bytes(let bytes): frame.storage = .bytes(Array(bytes.prefix(bytes.count / 3)))
                    case .file: frame.storage = .bytes([0xFF, 0xD8, 0xFF])  // the start of a JPEG, and nothing more
                    }
                    records[index].reading = .frame(frame)
                }
            }
        }
    }
}

extension FaultInjector.Delivery {
    /// The record's channel.
    var channel: Int { record.channel }
    /// The record's reading; a fault that moves its timestamp moves its arrival with it.
    var reading: Reading {
        get { record.reading }
        set { record.reading = newValue }
    }
    /// The record's timestamp.
    var timestamp: Timestamp { record.timestamp }
}
