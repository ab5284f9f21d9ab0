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
        faultyPass(of: records).records
    }

    /// The records with every fault applied, in delivery order, each with when it reaches the app.
    ///
    /// A record arrives at its own timestamp (after a `jitter` or `rate` fault, the timestamp the fault gave it),
    /// later by the `latency` faults that caught it. The timestamp is when the device produced the record; the
    /// arrival is when it was delivered. A consumer never goes back in time, so a record that arrives before one
    /// delivered ahead of it (after a `reorder`) is taken when that one was: see ``Delivery``.
    public func deliveries(of records: [TraceRecord]) -> [Delivery] {
        let pass = faultyPass(of: records)
        return pass.records.indices.map { Delivery(record: pass.records[$0], lateness: pass.lateness(at: $0)) }
    }

    /// ``deliveries(of:)`` as two arrays, which a replay keeps: the records in delivery order, and when each arrives
    /// (empty when every record arrives at its timestamp). No array of deliveries is built and copied apart.
    package func arrivals(of records: [TraceRecord]) -> (records: [TraceRecord], arrivals: [Timestamp]) {
        let pass = faultyPass(of: records)
        guard pass.lateness.contains(where: { $0 != 0 }) else { return (pass.records, []) }
        return (pass.records, pass.records.indices.map { Timestamp(nanoseconds: pass.records[$0].timestamp.nanoseconds.shifted(by: pass.lateness[$0])) })
    }

    private func faultyPass(of records: [TraceRecord]) -> FaultyPass {
        var pass = FaultyPass(records: records)
        guard let origin = records.lazy.map(\.timestamp).min() else { return pass }
        for (index, fault) in plan.faults.enumerated() {
            var random = SeededRandom(seed: plan.seed &+ 0x9E37_79B9_7F4A_7C15 &* UInt64(index + 1))
            apply(Scope(fault, header: header, origin: origin), to: &pass, random: &random)
        }
        return pass
    }

    /// The records of a pass as the faults so far left them, and how late each arrives: two arrays, not an array of
    /// ``Delivery``, so that the records are not copied into deliveries and out again.
    private struct FaultyPass {
        var records: [TraceRecord]
        /// Each record's lateness in nanoseconds, or empty while no latency fault has applied.
        var lateness: [Int64] = []

        func lateness(at index: Int) -> Int64 { lateness.isEmpty ? 0 : lateness[index] }

        /// Keeps the records at `kept`, in that order (with their lateness).
        mutating func keep(_ kept: [Int]) {
            records = kept.map { records[$0] }
            if !lateness.isEmpty { lateness = kept.map { lateness[$0] } }
        }
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

    private func applies(_ scope: Scope, to record: borrowing TraceRecord) -> Bool {
        let fault = scope.fault
        guard scope.channels[record.channel] else { return false }
        if fault.from != nil || fault.to != nil {
            let offset = scope.origin.seconds(to: record.timestamp)
            if let from = fault.from, offset < from { return false }
            if let to = fault.to, offset >= to { return false }
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

    /// Applies one fault. Faults that keep the records and their order change them where they are; the others pick
    /// the records kept (or repeated) by index. Either way the generator is drawn from in the records' order, as it
    /// always was.
    private func apply(_ scope: Scope, to pass: inout FaultyPass, random: inout SeededRandom) {
        let fault = scope.fault
        switch fault.kind {
        case .drop, .disconnect:
            var kept: [Int] = []
            kept.reserveCapacity(pass.records.count)
            var remaining = 0
            for index in pass.records.indices {
                guard applies(scope, to: pass.records[index]) else { kept.append(index); continue }
                if fault.kind == .disconnect || fault.probability == nil { continue }
                if remaining > 0 {
                    remaining -= 1
                    continue
                }
                if random.unit() < fault.probability! {
                    remaining = (fault.burst ?? 1) - 1
                    continue
                }
                kept.append(index)
            }
            if kept.count < pass.records.count { pass.keep(kept) }
        case .stuck:
            var frozen: [Int: Reading] = [:]
            for index in pass.records.indices where applies(scope, to: pass.records[index]) {
                let channel = pass.records[index].channel
                if let first = frozen[channel], let freeze = kindFaults[channel].freeze {
                    pass.records[index].reading = freeze(pass.records[index].reading, first)
                } else {
                    frozen[channel] = pass.records[index].reading
                }
            }
        case .spike:
            for index in pass.records.indices {
                if applies(scope, to: pass.records[index]), random.unit() < (fault.probability ?? 0),
                    let spike = kindFaults[pass.records[index].channel].spike
                {
                    pass.records[index].reading = spike(pass.records[index].reading, fault.magnitude ?? 0) { random.unit() }
                }
            }
        case .bias:
            for index in pass.records.indices {
                if applies(scope, to: pass.records[index]), let bias = kindFaults[pass.records[index].channel].bias {
                    pass.records[index].reading = bias(pass.records[index].reading, fault.magnitude ?? 0)
                }
            }
        case .jitter:
            for index in pass.records.indices where applies(scope, to: pass.records[index]) {
                let offset = Seconds(rounding: random.gaussian() * (fault.magnitude ?? 0)).nanoseconds
                pass.records[index].move(to: Timestamp(nanoseconds: pass.records[index].timestamp.nanoseconds.shifted(by: offset)))
            }
        case .reorder:
            var index = 0
            while index + 1 < pass.records.count {
                if applies(scope, to: pass.records[index]), random.unit() < (fault.probability ?? 0) {
                    pass.records.swapAt(index, index + 1)
                    if !pass.lateness.isEmpty { pass.lateness.swapAt(index, index + 1) }
                    index += 2
                } else {
                    index += 1
                }
            }
        case .duplicate:
            var kept: [Int] = []
            kept.reserveCapacity(pass.records.count)
            for index in pass.records.indices {
                kept.append(index)
                if applies(scope, to: pass.records[index]), random.unit() < (fault.probability ?? 0) { kept.append(index) }
            }
            if kept.count > pass.records.count { pass.keep(kept) }
        case .latency:
            let delay = Seconds(rounding: fault.magnitude ?? 0).nanoseconds
            let isCaught = pass.records.indices.map { applies(scope, to: pass.records[$0]) }
            guard delay != 0, isCaught.contains(true) else { break }
            if pass.lateness.isEmpty { pass.lateness = Array(repeating: 0, count: pass.records.count) }
            for index in pass.records.indices where isCaught[index] { pass.lateness[index] = pass.lateness[index].shifted(by: delay) }
            // Only the caught records move, and only later: each waits, in its order, behind the records after it
            // that arrive before it does, and goes ahead of the first one that arrives at its time or later. The
            // others keep their order, whatever faults came before (a reorder's swap, a jitter's delivery order).
            func arrival(_ index: Int) -> Int64 { pass.records[index].timestamp.nanoseconds.shifted(by: pass.lateness[index]) }
            var order: [Int] = [], waiting: [Int] = []
            order.reserveCapacity(pass.records.count)
            var head = 0
            for index in pass.records.indices {
                if isCaught[index] { waiting.append(index); continue }
                while head < waiting.count, arrival(waiting[head]) <= arrival(index) {
                    order.append(waiting[head])
                    head += 1
                }
                order.append(index)
            }
            order += waiting[head...]
            if !order.elementsEqual(pass.records.indices) { pass.keep(order) }
        case .rate:
            var out: [TraceRecord] = []
            var outLateness: [Int64] = []
            out.reserveCapacity(pass.records.count)
            let factor = fault.factor ?? 1
            var counts: [Int: Int] = [:]
            // Each record's next timestamp on its channel, for upsampling.
            var following = [Timestamp?](repeating: nil, count: pass.records.count)
            var upcoming: [Int: Timestamp] = [:]
            for index in pass.records.indices.reversed() {
                following[index] = upcoming[pass.records[index].channel]
                upcoming[pass.records[index].channel] = pass.records[index].timestamp
            }
            func emit(_ record: TraceRecord, from index: Int) {
                out.append(record)
                if !pass.lateness.isEmpty { outLateness.append(pass.lateness[index]) }
            }
            for (index, record) in pass.records.enumerated() {
                guard applies(scope, to: record) else { emit(record, from: index); continue }
                let count = counts[record.channel, default: 0]
                counts[record.channel] = count + 1
                if factor < 1 {
                    if Int(Double(count + 1) * factor) > Int(Double(count) * factor) { emit(record, from: index) }
                    continue
                }
                emit(record, from: index)
                guard let next = following[index] else { continue }
                let extra = Int(factor.rounded()) - 1
                for step in 0..<max(0, extra) {
                    var copy = record
                    let span = record.timestamp.duration(to: next).wholeNanoseconds
                    let (scaled, overflow) = span.multipliedReportingOverflow(by: Int64(step + 1))
                    let offset = overflow ? span / Int64(extra + 1) * Int64(step + 1) : scaled / Int64(extra + 1)
                    copy.move(to: Timestamp(nanoseconds: copy.timestamp.nanoseconds.shifted(by: offset)))
                    emit(copy, from: index)
                }
            }
            pass.records = out
            pass.lateness = outLateness
        case .lostFix:
            for index in pass.records.indices {
                if applies(scope, to: pass.records[index]), case .location(let fix) = pass.records[index].reading {
                    pass.records[index].reading = .location(.noFix(at: fix.timestamp, utcNanoseconds: fix.utcNanoseconds))
                }
            }
        case .jump:
            let bearing = fault.bearing ?? random.unit() * 360
            for index in pass.records.indices {
                if applies(scope, to: pass.records[index]), case .location(var fix) = pass.records[index].reading, let position = fix.coordinate {
                    fix.coordinate = position.destination(distance: fault.magnitude ?? 0, bearing: bearing)
                    pass.records[index].reading = .location(fix)
                }
            }
        case .corruptFrame:
            for index in pass.records.indices {
                if applies(scope, to: pass.records[index]), random.unit() < (fault.probability ?? 0), case .frame(var frame) = pass.records[index].reading {
                    switch frame.storage {
                    case .bytes(let bytes): frame.storage = .bytes(Array(bytes.prefix(bytes.count / 3)))
                    case .file: frame.storage = .bytes([0xFF, 0xD8, 0xFF])  // the start of a JPEG, and nothing more
                    }
                    pass.records[index].reading = .frame(frame)
                }
            }
        }
    }
}

extension Trace {
    /// Applies `plan` to the records, as a faulty device would deliver them (`FaultInjector/apply(to:)`), after
    /// refusing a fault that would do nothing (`FaultPlan/check(against:)`): for a program's inputs, which are
    /// served in delivery order rather than replayed.
    public mutating func inject(_ plan: FaultPlan) throws {
        try plan.check(against: header)
        records = FaultInjector(plan: plan, header: header).apply(to: records)
    }
}
