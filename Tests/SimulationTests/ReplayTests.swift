import HALTestDoubles
import HAL
import Replay
import Synthesis
import TraceFormat
import Testing

@Suite struct ReplayTests {
    static let shipped: Trace = try! Trace.load(path: shippedTracePath)

    func delivered(_ options: ReplayOptions, pacing clock: VirtualClock) async throws -> [TraceRecord] {
        var records: [TraceRecord] = []
        try await TraceReplay(trace: Self.shipped, options: options).run(pacingClock: clock) { records.append($0) }
        return records
    }

    @Test func theShippedTraceReplaysTheSameAtEveryPace() async throws {
        var synchronous: [TraceRecord] = []
        try TraceReplay(trace: Self.shipped).forEach { synchronous.append($0) }
        #expect(synchronous.count == 4211)

        let duration = Self.shipped.duration.wholeNanoseconds
        for (pacing, expectedElapsed) in [(ReplayPacing.asFastAsPossible, Int64(0)), (.rate(10), duration / 10), (.rate(0.5), duration * 2), (.realtime, duration)] {
            let pacingClock = VirtualClock(advancesOnSleep: true)
            let records = try await delivered(ReplayOptions(pacing: pacing), pacing: pacingClock)
            #expect(records == synchronous, "\(pacing)")
            #expect(pacingClock.now.nanoseconds == expectedElapsed, "\(pacing)")
        }
    }

    /// Two app-event channels, `a` and `b`.
    static let twoChannels = TraceHeader(channels: [
        TraceChannel(id: "a", kind: .app, source: "t"), TraceChannel(id: "b", kind: .app, source: "t"),
    ])

    /// An app event named `name` on `channel` at `nanoseconds`.
    static func event(_ channel: Int, _ nanoseconds: Int64, _ name: String = "e") -> TraceRecord {
        TraceRecord(channel: channel, reading: .appEvent(AppEvent(timestamp: ts(nanoseconds), name: name)))
    }

    @Test func recordsComeInTimestampOrderWithTiesByChannelThenFile() throws {
        let (header, event) = (Self.twoChannels, Self.event)
        // Written out of global order, as a recorder of two devices may write them.
        let trace = Trace(header: header, records: [event(1, 5, "b5"), event(1, 10, "b10"), event(0, 10, "a10"), event(0, 10, "a10bis"), event(0, 2, "a2")])
        var names: [String] = []
        try TraceReplay(trace: trace).forEach { names.append(AppEvent($0.reading)!.name) }
        #expect(names == ["a2", "b5", "a10", "a10bis", "b10"])
    }

    /// A channel replayed alone is paced from the trace's start, not from its own first record: channels of one
    /// trace opened as separate devices keep their places against each other (a tap 2 s in comes 2 s in). With a
    /// start offset, pacing starts at the offset.
    @Test func aChannelAloneIsPacedFromTheTracesStart() async throws {
        let records = [(0, 0), (0, 1), (1, 2), (1, 3)].map { Self.event($0.0, Int64($0.1) * 1_000_000_000) }
        let trace = Trace(header: Self.twoChannels, records: records)
        for (offset, expected) in [(Duration.zero, [Int64(2), 3]), (.seconds(1), [1, 2])] {
            let clock = VirtualClock(advancesOnSleep: true)
            var deliveredAt: [Int64] = []
            let replay = try TraceReplay(trace: trace, options: ReplayOptions(pacing: .realtime, startOffset: offset, channels: ["b"]))
            try await replay.run(pacingClock: clock) { _ in deliveredAt.append(clock.now.nanoseconds / 1_000_000_000) }
            #expect(deliveredAt == expected, "offset \(offset)")
        }
    }

    @Test func channelFilterStartOffsetAndLoops() throws {
        let options = ReplayOptions(startOffset: .seconds(20), loops: 3, channels: ["gyro", "touch"])
        let replay = try TraceReplay(trace: Self.shipped, options: options)
        var records: [TraceRecord] = []
        replay.forEach { records.append($0) }
        let perLoop = Self.shipped.records.filter { [0, 2].contains($0.channel) && $0.timestamp.nanoseconds >= 20_000_000_000 }.count
        #expect(perLoop == 91)
        #expect(records.count == perLoop * 3)
        #expect(Set(records.map(\.channel)) == [0])
        #expect(records.first?.timestamp.nanoseconds == 20_000_000_000)
        // Each pass is shifted by the span plus one 100 Hz period, so time keeps increasing.
        #expect(replay.loopPeriod == .milliseconds(910))
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        #expect(records[perLoop].timestamp.nanoseconds == 20_910_000_000)
    }

    @Test func theVirtualClockFollowsTheRecords() throws {
        let clock = VirtualClock()
        var seen: [Int64] = []
        try TraceReplay(trace: Self.shipped, options: ReplayOptions(channels: ["touch"])).forEach(clock: clock) { record in
            #expect(clock.now == record.timestamp)
            seen.append(clock.now.nanoseconds)
        }
        #expect(seen.count == 29)
        #expect(clock.now.nanoseconds == 18_980_000_000)
    }

    @Test func badOptionsAreRefused() {
        #expect(throws: TraceError.self) { try TraceReplay(trace: Self.shipped, options: ReplayOptions(channels: ["gps"])) }
        #expect(throws: TraceError.self) { try TraceReplay(trace: Self.shipped, options: ReplayOptions(pacing: .rate(0))) }
        #expect(throws: TraceError.self) { try TraceReplay(trace: Self.shipped, options: ReplayOptions(loops: 0)) }
    }

    @Test func replayDevicesServeEachKindThroughTheFactory() async throws {
        let factory = DeviceFactory(backends: [TraceBackend(), SimulationBackend()])
        let gyro = try factory.open("trace:\(shippedTracePath)#gyro", as: (any MotionSensor).self)
        #expect(gyro.info.kind == .gyroscope)
        #expect(gyro.info.rate == 100)
        var samples: [MotionSample] = []
        for try await sample in gyro.readings(buffering: .unbounded) { samples.append(sample) }
        #expect(samples.count == 2091)
        #expect(samples.allSatisfy { $0.quantity == .angularVelocity })

        let touch = try factory.open("trace:\(shippedTracePath)?loop=2#touch", as: (any PointerInput).self)
        var taps = 0
        for try await event in touch.readings(buffering: .unbounded) where event.phase == .press { taps += 1 }
        #expect(taps == 6)

        #expect(throws: DeviceError.self) { try factory.open("trace:\(shippedTracePath)#touch", as: (any MotionSensor).self) }
        #expect(throws: DeviceError.self) { try factory.open("trace:\(shippedTracePath)", as: (any MotionSensor).self) }
        #expect(throws: DeviceError.self) { try factory.open("trace:\(shippedTracePath)?speed=2#gyro") }
    }

    @Test func aTraceBackendPacesOnTheClockItIsGiven() async throws {
        // A real-time replay of the 20.9 s look-around on a clock that moves when slept on: done at once, and the
        // clock read the trace's span.
        let clock = VirtualClock(advancesOnSleep: true)
        let factory = DeviceFactory(backends: [TraceBackend(pacingClock: clock)])
        let gyro = try factory.open("trace:\(shippedTracePath)?realtime#gyro", as: (any MotionSensor).self)
        var count = 0
        for try await _ in gyro.readings(buffering: .unbounded) { count += 1 }
        #expect(count == 2091)
        #expect(abs(clock.now.seconds - 20.9) < 0.05, "\(clock.now)")
    }

    @Test func everyKindHasAReplayDeviceOfItsProtocol() throws {
        let trace = Trace(header: everyKindHeader, records: TraceRoundTripTests.records)
        for (kind, channel) in zip(packageKinds, everyKindHeader.channels) {
            let device = try openReplayedChannel(trace: trace, channel: channel.id)
            let matches: Bool = switch kind {
            case .gyroscope, .accelerometer, .magnetometer: device is any MotionSensor
            case .attitude: device is any AttitudeSensor
            case .pointer: device is any PointerInput
            case .keys: device is any KeyInput
            case .location: device is any LocationProvider
            case .camera: device is any Camera
            case .expression: device is any ExpressionSensor
            case .speaker: device is any PlaybackEventSource
            case .app: device is any AppEventSource
            case .pressure, .temperature, .humidity, .illuminance, .proximity: device is any ScalarSensor
            default: false
            }
            #expect(matches, "\(kind)")
        }
        let locations = try ReplayedChannel<LocationFix>(trace: trace, channel: "location").allReadings()
        #expect(locations.map(\.mode) == [.threeDimensional, .twoDimensional, .none])
        #expect(locations.last?.coordinate == nil)
    }

    @Test func cancellingAReplayStopsIt() async throws {
        let device = try ReplayedChannel<MotionSample>(
            trace: Self.shipped, channel: "gyro", options: ReplayOptions(pacing: .realtime, loops: nil))
        var count = 0
        for try await _ in device.readings(buffering: .unbounded) {
            count += 1
            if count == 3 { break }
        }
        #expect(count == 3)
    }
}
