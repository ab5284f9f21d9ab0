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
            result = apply(fault, to: result, origin: origin, random: &random)
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

    private func applies(_ fault: Fault, to record: Delivery, origin: Timestamp) -> Bool {
        let channel = header.channels[record.channel]
        if let wanted = fault.channel, wanted != channel.id { return false }
        let seconds = origin.duration(to: record.timestamp).seconds
        if let from = fault.from, seconds < from { return false }
        if let to = fault.to, seconds >= to { return false }
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

    private func apply(_ fault: Fault, to records: [Delivery], origin: Timestamp, random: inout SeededRandom) -> [Delivery] {
        var out: [Delivery] = []
        out.reserveCapacity(records.count)
        switch fault.kind {
        case .drop, .disconnect:
            var remaining = 0
            for record in records {
                guard applies(fault, to: record, origin: origin) else { out.append(record); continue }
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
        case .stuck:
            var frozen: [Int: Reading] = [:]
            for var record in records {
                if applies(fault, to: record, origin: origin) {
                    if let first = frozen[record.channel], let freeze = kindFaults[record.channel].freeze {
                        record.reading = freeze(record.reading, first)
                    } else {
                        frozen[record.channel] = record.reading
                    }
                }
                out.append(record)
            }
        case .spike:
            for var record in records {
                if applies(fault, to: record, origin: origin), random.unit() < (fault.probability ?? 0),
                    let spike = kindFaults[record.channel].spike
                {
                    record.reading = spike(record.reading, fault.magnitude ?? 0) { random.unit() }
                }
                out.append(record)
            }
        case .bias:
            for var record in records {
                if applies(fault, to: record, origin: origin), let bias = kindFaults[record.channel].bias {
                    record.reading = bias(record.reading, fault.magnitude ?? 0)
                }
                out.append(record)
            }
        case .jitter:
            for var record in records {
                if applies(fault, to: record, origin: origin) {
                    let offset = nanoseconds(random.gaussian() * (fault.magnitude ?? 0))
                    record.reading.timestamp.nanoseconds = record.reading.timestamp.nanoseconds.shifted(by: offset)
                }
                out.append(record)
            }
        case .reorder:
            out = records
            var index = 0
            while index + 1 < out.count {
                if applies(fault, to: out[index], origin: origin), random.unit() < (fault.probability ?? 0) {
                    out.swapAt(index, index + 1)
                    index += 2
                } else {
                    index += 1
                }
            }
        case .duplicate:
            for record in records {
                out.append(record)
                if applies(fault, to: record, origin: origin), random.unit() < (fault.probability ?? 0) { out.append(record) }
            }
        case .latency:
            let delay = nanoseconds(fault.magnitude ?? 0)
            let keyed = records.enumerated().map { item -> (arrival: Int64, order: Int, delivery: Delivery) in
                var delivery = item.element
                if applies(fault, to: delivery, origin: origin) { delivery.lateness = delivery.lateness.shifted(by: delay) }
                return (delivery.arrival.nanoseconds, item.offset, delivery)
            }
            out = keyed.sorted { ($0.arrival, $0.order) < ($1.arrival, $1.order) }.map(\.delivery)
        case .rate:
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
                guard applies(fault, to: record, origin: origin) else { out.append(record); continue }
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
        case .lostFix:
            for var record in records {
                if applies(fault, to: record, origin: origin), case .location(let fix) = record.reading {
                    record.reading = .location(.noFix(at: fix.timestamp, utcNanoseconds: fix.utcNanoseconds))
                }
                out.append(record)
            }
        case .jump:
            let bearing = fault.bearing ?? random.unit() * 360
            for var record in records {
                if applies(fault, to: record, origin: origin), case .location(var fix) = record.reading, let position = fix.coordinate {
                    fix.coordinate = position.destination(distance: fault.magnitude ?? 0, bearing: bearing)
                    record.reading = .location(fix)
                }
                out.append(record)
            }
        case .corruptFrame:
            for var record in records {
                if applies(fault, to: record, origin: origin), random.unit() < (fault.probability ?? 0), case .frame(var frame) = record.reading {
                    switch frame.storage {
                    case .bytes(let bytes): frame.storage = .bytes(Array(bytes.prefix(bytes.count / 3)))
                    case .file: frame.storage = .bytes([0xFF, 0xD8, 0xFF])  // the start of a JPEG, and nothing more
                    }
                    record.reading = .frame(frame)
                }
                out.append(record)
            }
        }
        return out
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
