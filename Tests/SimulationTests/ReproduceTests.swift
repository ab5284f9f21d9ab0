import Foundation
import HAL
import Replay
import Testing
import TestSupport
import TraceFormat

/// What a printed failure needs to fail again: seeds read exactly, times read exactly, faults that compose, and no
/// fault that silently does nothing.
@Suite struct ReproduceTests {
    // MARK: Seeds

    /// A 20-digit seed (46% of variant seeds are ≥ 10^19) was read through `Double`: 18117064117126399256 came back
    /// as 18117064117126400000, so a shrunk case's plan replayed another seed's faults.
    @Test func aTwentyDigitSeedIsReadExactly() throws {
        let folder = try makeScratchFolder()
        for seed: UInt64 in [18_117_064_117_126_399_256, 18_117_064_117_126_399_257, .max, 10_000_000_000_000_000_000, 1] {
            let path = folder + "/plan-\(seed).json"
            try #"{"seed": \#(seed), "faults": [{"kind": "drop", "channel": "gyro", "probability": 0.5}]}"#
                .write(toFile: path, atomically: true, encoding: .utf8)
            #expect(try FaultPlan.load(path: path).seed == seed)
        }
        // Two plans whose seeds differ by one drop different records.
        let trace = Self.trace(channels: 1, records: 200, seed: 3)
        func dropped(_ seed: UInt64) -> [TraceRecord] {
            FaultInjector(plan: FaultPlan(seed: seed, faults: [Fault(.drop, channel: "c0", probability: 0.5)]), header: trace.header)
                .apply(to: trace.records)
        }
        #expect(dropped(18_117_064_117_126_399_256) != dropped(18_117_064_117_126_399_257))
    }

    /// A seed that is not an exact integer of `UInt64`'s range is refused, naming the file, line and field.
    @Test func aSeedThatIsNotAnExactIntegerIsRefused() throws {
        let folder = try makeScratchFolder()
        for text in ["1.5", "-1", "18446744073709551616", "1e20", "18117064117126399256.5"] {
            let path = folder + "/plan.json"
            try #"{"seed": \#(text), "faults": []}"#.write(toFile: path, atomically: true, encoding: .utf8)
            #expect {
                try FaultPlan.load(path: path)
            } throws: { error in
                "\(error)".contains("plan.json: line 1, column 10: seed:")
            }
        }
        // Exactly whole numbers written otherwise are whole numbers, as `JSONDecoder` takes them, without `Double`.
        for (text, seed) in [("1e19", UInt64(10_000_000_000_000_000_000)), ("18117064117126399256.000", 18_117_064_117_126_399_256), ("2.5e1", 25)] {
            let path = folder + "/plan.json"
            try #"{"seed": \#(text), "faults": []}"#.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(try FaultPlan.load(path: path).seed == seed, "\(text)")
        }
    }

    // MARK: Time

    /// Decimal seconds become whole nanoseconds from their text: 1.118, 1.128 and 3.28 were one ulp off through
    /// `Double`, so an event exactly on the bound fell outside it.
    @Test func secondsAreReadFromTheirDecimalText() throws {
        struct Holder: Codable { var value: Seconds }
        for (text, nanoseconds) in [("1.118", Int64(1_118_000_000)), ("1.128", 1_128_000_000), ("3.28", 3_280_000_000), ("3.280", 3_280_000_000),
                                    ("0.000000001", 1), ("-2.5", -2_500_000_000), ("1e-3", 1_000_000), ("86400", 86_400_000_000_000),
                                    ("244.995", 244_995_000_000), ("9223372036.854775807", .max)] {
            let holder: Holder = try ScriptFile.decode(Array(#"{"value": \#(text)}"#.utf8), file: "x.json")
            #expect(holder.value.nanoseconds == nanoseconds, "\(text)")
        }
        for text in ["1.0000000001", "9223372036.854775808", "1e300"] {
            #expect(throws: ScriptError.self, "\(text)") { let _: Holder = try ScriptFile.decode(Array(#"{"value": \#(text)}"#.utf8), file: "x.json") }
        }
        // Every millisecond value from 0 to 20 s, as a scenario writes it, is exact; through Double about 6% of those
        // of 1 s or more were not.
        for milliseconds in 0...20_000 {
            let text = "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - String(milliseconds % 1000).count))\(milliseconds % 1000)"
            #expect(Seconds(decimalText: text)?.nanoseconds == Int64(milliseconds) * 1_000_000)
        }
        // Messages print them exactly.
        #expect(Seconds(nanoseconds: 244_995_000_000).message == "244.995 s")
        #expect(Seconds(nanoseconds: 80_100_000).message == "0.0801 s")
        #expect(Seconds(nanoseconds: 1_118_000_001).message == "1.118000001 s")
        #expect(Seconds(nanoseconds: 1_128_000_000).millisecondsMessage == "1128 ms")
    }

    // MARK: Faults that compose

    /// A trace of `channels` channels, each record's value its own id (x), on a coarse grid so that many share a
    /// timestamp.
    static func trace(channels: Int, records: Int, seed: UInt64) -> Trace {
        var random = SeededRandom(seed: seed)
        let header = TraceHeader(channels: (0..<channels).map { TraceChannel(id: "c\($0)", kind: .gyroscope, source: "test:c\($0)", rate: 100) })
        var list: [TraceRecord] = []
        for id in 0..<records {
            let channel = Int(random.next() % UInt64(channels))
            // Half on a 10 ms grid (equal timestamps across channels), half anywhere.
            let time = random.unit() < 0.5 ? Int64(random.next() % 100) * 10_000_000 : Int64(random.next() % 1_000_000_000)
            list.append(TraceRecord(channel: channel, reading: .motion(MotionSample(
                timestamp: Timestamp(nanoseconds: time), quantity: .angularVelocity, value: Vector3(x: Double(id), y: 0, z: 0)))))
        }
        list.sort { ($0.timestamp, $0.channel) < ($1.timestamp, $1.channel) }
        return Trace(header: header, records: list)
    }

    /// A fault of a kind that moves, repeats or loses records, on one of the channels (or all, or the speaker).
    static func fault(_ random: inout SeededRandom, channels: Int) -> Fault {
        let kinds: [Fault.Kind] = [.latency, .latency, .jitter, .reorder, .duplicate, .drop]
        var fault = Fault(kinds[Int(random.next() % UInt64(kinds.count))])
        let place = random.next() % UInt64(channels + 2)
        fault.channel = place < UInt64(channels) ? "c\(place)" : place == UInt64(channels) ? nil : (fault.kind == .latency || fault.kind == .jitter ? "speaker" : nil)
        if random.unit() < 0.4 {
            let from = Int(random.next() % 800)
            fault.from = .milliseconds(from)
            fault.to = .milliseconds(from + Int(random.next() % 400))
        }
        switch fault.kind {
        case .latency: fault.magnitude = Double(random.next() % 300) / 1000
        case .jitter: fault.magnitude = Double(random.next() % 30) / 1000
        default: fault.probability = Double(1 + random.next() % 400) / 1000
        }
        if fault.kind == .drop, random.unit() < 0.3 { fault.burst = 1 + Int(random.next() % 4) }
        return fault
    }

    /// A record's id: the value the generator gave it.
    static func id(_ record: TraceRecord) -> Int { Int(MotionSample(record.reading)!.value.x) }

    /// Each fault's documented effect holds on what the faults before it left, whatever they were, so no later fault
    /// undoes an earlier one: generated plans of 1–4 faults on 1–3 channels with equal and distinct timestamps.
    /// Before, any latency (even on the speaker, or over a window with no records) sorted everything by arrival
    /// again, undoing a reorder and a jitter's delivery order.
    @Test func eachFaultDoesOnlyWhatItSaysAfterAnyOthers() throws {
        var checked: [Fault.Kind: Int] = [:]
        for seed in UInt64(1)...1500 {
            var random = SeededRandom(seed: seed)
            let channels = 1 + Int(random.next() % 3)
            let trace = Self.trace(channels: channels, records: 40 + Int(random.next() % 80), seed: seed)
            let faults = (0..<(1 + Int(random.next() % 4))).map { _ in Self.fault(&random, channels: channels) }
            let origin = trace.records.map(\.timestamp).min()!
            for count in 1...faults.count {
                let before = FaultInjector(plan: FaultPlan(seed: seed, faults: Array(faults.prefix(count - 1))), header: trace.header).deliveries(of: trace.records)
                let after = FaultInjector(plan: FaultPlan(seed: seed, faults: Array(faults.prefix(count))), header: trace.header).deliveries(of: trace.records)
                let fault = faults[count - 1]
                checked[fault.kind, default: 0] += 1
                let context = "seed \(seed), faults \(faults.prefix(count).map { "\($0.kind.rawValue)@\($0.channel ?? "*")" })"
                func caught(_ delivery: FaultInjector.Delivery) -> Bool {
                    guard fault.channel == nil || fault.channel == trace.header.channels[delivery.record.channel].id else { return false }
                    let offset = origin.seconds(to: delivery.record.timestamp)
                    return fault.from.map { offset >= $0 } ?? true && fault.to.map { offset < $0 } ?? true
                }
                switch fault.kind {
                case .latency:
                    // Only the caught records move, later, each by the magnitude; the others keep their order.
                    let delay = Seconds(rounding: fault.magnitude!).nanoseconds
                    #expect(after.map { Self.id($0.record) }.sorted() == before.map { Self.id($0.record) }.sorted(), "\(context)")
                    let caughtBefore = before.filter(caught), caughtAfter = after.filter(caught)
                    #expect(before.filter { !caught($0) } == after.filter { !caught($0) }, "\(context)")
                    #expect(caughtAfter.map(\.record) == caughtBefore.map(\.record), "\(context)")
                    #expect(zip(caughtAfter, caughtBefore).allSatisfy { $0.lateness == $1.lateness + delay }, "\(context)")
                    // None moves ahead of a record it followed: the k-th caught record has at least as many others
                    // before it as it had.
                    func othersAhead(_ deliveries: [FaultInjector.Delivery]) -> [Int] {
                        var others = 0, ahead: [Int] = []
                        for delivery in deliveries { if caught(delivery) { ahead.append(others) } else { others += 1 } }
                        return ahead
                    }
                    #expect(zip(othersAhead(after), othersAhead(before)).allSatisfy { $0 >= $1 }, "\(context)")
                    if caughtBefore.isEmpty || delay == 0 { #expect(after == before, "\(context)") }
                case .jitter:
                    // The delivery order stays; only the caught records' timestamps move.
                    #expect(after.map { Self.id($0.record) } == before.map { Self.id($0.record) }, "\(context)")
                    #expect(after.map(\.lateness) == before.map(\.lateness), "\(context)")
                    #expect(zip(after, before).allSatisfy { caught($1) || $0.record == $1.record }, "\(context)")
                case .reorder:
                    // Neighbours swapped, nothing else: each record is where it was or one place off, swaps disjoint.
                    #expect(after.count == before.count, "\(context)")
                    var index = 0
                    while index < before.count {
                        if after[index] == before[index] { index += 1; continue }
                        #expect(index + 1 < before.count && after[index] == before[index + 1] && after[index + 1] == before[index], "\(context)")
                        index += 2
                    }
                case .duplicate:
                    // Each record once or twice, the copy right after it, and only caught ones twice.
                    func collapsed(_ deliveries: [FaultInjector.Delivery]) -> [FaultInjector.Delivery] {
                        deliveries.enumerated().filter { $0.offset == 0 || deliveries[$0.offset - 1] != $0.element }.map(\.element)
                    }
                    #expect(collapsed(after) == collapsed(before), "\(context)")
                    var counts: [FaultInjector.Delivery: Int] = [:]
                    for delivery in before { counts[delivery, default: 0] += 1 }
                    var afterCounts: [FaultInjector.Delivery: Int] = [:]
                    for delivery in after { afterCounts[delivery, default: 0] += 1 }
                    for (delivery, count) in afterCounts {
                        let original = counts[delivery] ?? 0
                        #expect(count >= original && count <= 2 * original && (count == original || caught(delivery)), "\(context)")
                    }
                case .drop:
                    // A subsequence, losing only caught records.
                    var index = 0
                    for delivery in before {
                        if index < after.count, after[index] == delivery { index += 1 } else { #expect(caught(delivery), "\(context)") }
                    }
                    #expect(index == after.count, "\(context)")
                default:
                    break
                }
            }
        }
        // Every kind was checked often, after other faults.
        #expect([Fault.Kind.latency, .jitter, .reorder, .duplicate, .drop].allSatisfy { (checked[$0] ?? 0) > 300 }, "\(checked)")
    }

    /// The cases the issue found: a reorder, or a jitter's delivery order, survives a speaker latency after it.
    @Test func aSpeakerLatencyLeavesTheInputsAlone() throws {
        let trace = Self.trace(channels: 2, records: 300, seed: 11)
        for first in [Fault(.reorder, channel: "c0", probability: 0.4), Fault(.jitter, channel: "c1", magnitude: 0.02)] {
            let alone = FaultInjector(plan: FaultPlan(seed: 5, faults: [first]), header: trace.header).deliveries(of: trace.records)
            for latency in [Fault(.latency, channel: "speaker", magnitude: 0.001), Fault(.latency, channel: "c0", from: 50, to: 60, magnitude: 1)] {
                let both = FaultInjector(plan: FaultPlan(seed: 5, faults: [first, latency]), header: trace.header).deliveries(of: trace.records)
                #expect(both == alone, "\(first.kind) then \(latency.channel!) latency")
            }
            #expect(alone.map(\.record) != trace.records, "\(first.kind) did something")
        }
    }

    // MARK: No silent no-ops

    /// A fault on a channel the run lacks did nothing, so a latency test passed without latency; now the replay is
    /// refused, naming the plan's file, line, column and field, and the channel it could have meant.
    @Test func aFaultOnAChannelTheRunLacksIsRefused() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/plan.json"
        try #"{"seed": 1, "faults": [{"kind": "latency", "channel": "c0", "magnitude": 0.1},\#n  {"kind": "latency", "channel": "c9x", "magnitude": 0.5}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let plan = try FaultPlan.load(path: path)
        #expect {
            try TraceReplay(trace: Self.trace(channels: 2, records: 10, seed: 1), options: ReplayOptions(faults: plan))
        } throws: { error in
            "\(error)" == "\(path): line 2, column 34: faults[1].channel: the run has no channel 'c9x'; did you mean 'c0' or 'c1'?"
        }
        // A kind that does nothing to its channel, and a misspelled kind.
        for (text, message) in [
            (#"{"seed": 1, "faults": [{"kind": "lostFix", "channel": "c1"}]}"#, "line 1, column 33: faults[0].kind: lostFix does nothing to 'c1', a gyroscope channel; no channel of this run takes it"),
            (#"{"seed": 1, "faults": [{"kind": "corruptFrame", "probability": 0.5}]}"#, "line 1, column 33: faults[0].kind: corruptFrame does nothing to any channel of this run"),
            (#"{"seed": 1, "faults": [{"kind": "latncy", "channel": "c1"}]}"#, "line 1, column 33: faults[0].kind: no fault kind 'latncy'; did you mean 'latency'?"),
        ] {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            #expect {
                try TraceReplay(trace: Self.trace(channels: 2, records: 10, seed: 1), options: ReplayOptions(faults: FaultPlan.load(path: path)))
            } throws: { error in
                "\(error)" == "\(path): \(message)"
            }
        }
        // A program's inputs, which `hal exec` and program scenarios serve with the faults applied, are checked alike.
        var served = Self.trace(channels: 2, records: 10, seed: 1)
        #expect(throws: ScriptError.self) { try served.inject(FaultPlan(seed: 1, faults: [Fault(.latency, channel: "c9x", magnitude: 0.5)])) }
        try served.inject(FaultPlan(seed: 1, faults: [Fault(.drop, channel: "c1", probability: 1)]))
        #expect(served.records.allSatisfy { $0.channel == 0 })
        // The speaker and the screen are the run's outputs, always there.
        let outputs = FaultPlan(seed: 1, faults: [Fault(.latency, channel: "speaker", magnitude: 0.1), Fault(.latency, channel: "screen", magnitude: 0.1)])
        _ = try TraceReplay(trace: Self.trace(channels: 1, records: 10, seed: 1), options: ReplayOptions(faults: outputs))
    }
}
