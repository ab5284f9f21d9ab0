import HAL
import NMEA
import GPS
import Interchange
import Replay
import Synthesis
import SystemSupport
import TestSupport
import Testing

@Suite(.serialized) struct NMEAReceiverTests {
    let encoder = NMEAEncoder()

    func epoch(_ second: Int, latitude: Double) -> String {
        encoder.sentences(for: LocationFix(
            timestamp: .zero, utcNanoseconds: 1_795_262_400_000_000_000 + Int64(second) * 1_000_000_000, mode: .threeDimensional,
            coordinate: GeoCoordinate(latitude: latitude, longitude: -123.25), altitude: 80, horizontalAccuracy: 3)).joined()
    }

    /// Each step waits for the state the receiver reports, not for a time: the three positions, then the no-fix report
    /// of the silence (text and noise go on until it comes), then the last position before the tty is closed.
    @Test func aSerialReceiverOnAPtyTalksStopsAndGoesAway() async throws {
        let terminal = try PseudoTerminal()
        let receiver = try NMEAReceiver(uri: DeviceURI("nmea:\(terminal.slavePath)?baud=115200&gap=0.1&silence=2"))
        let stream = receiver.readings(buffering: .unbounded)
        let received = Locked<[LocationFix]>([])
        let collector = Task {
            var failure: (any Error)?
            do {
                for try await fix in stream { received.withLock { $0.append(fix) } }
            } catch {
                failure = error
            }
            return failure
        }
        func positions() -> Int { received.withLock { $0.filter { $0.coordinate != nil }.count } }
        // Bytes written before the receiver has opened the tty wait in it (raw from the start), so nothing waits for that.
        for second in 0..<3 {
            try terminal.write(Array(epoch(second, latitude: 49.26 + Double(second) * 1e-4).utf8))
        }
        let talked = try await waitUntil { positions() == 3 }
        try #require(talked, "\(received.withLock { $0 })")
        // The receiver stops giving fixes for longer than `silence`, but still sends text and noise: only sentences the
        // decoder takes count as talking. They go on, twice a second, until the receiver reports the silence.
        let text = NMEAEncoder(talker: "GP").sentence("TXT", ["01", "01", "02", "ANTSTATUS=OK"])
        let silenced = try await waitUntil(every: .milliseconds(500)) {
            if received.withLock({ $0.last?.mode == FixMode.none }) { return true }
            try terminal.write(Array((text + "\u{01}noise at the wrong baud\r\n").utf8))
            return false
        }
        try #require(silenced, "no report of the silence: \(received.withLock { $0 })")
        try terminal.write(Array(epoch(5, latitude: 49.27).utf8))
        // Unplugged once the last epoch has come: a pty closed with bytes unread loses them.
        let heard = try await waitUntil { positions() == 4 }
        try #require(heard, "\(received.withLock { $0 })")
        terminal.close()  // unplugged
        let failure = await collector.value
        let fixes = received.withLock { $0 }
        // The four epochs, in order. On a starved machine the test's own writes can be more than the receiver's 2 s of
        // silence apart, which then rightly reports a lost fix between epochs too: so the test counts the positions and
        // the silence before the last epoch, not every lost fix.
        #expect(fixes.compactMap { $0.coordinate?.latitude } == [49.26, 49.2601, 49.2602, 49.27], "\(fixes)")
        // The last position, and the silence reported before it. A starved machine may also report a silence after
        // it, if the unplugging reaches the receiver more than its 2 s of silence later: only silences may follow.
        guard let lastIndex = fixes.lastIndex(where: { $0.coordinate != nil }), lastIndex >= 4 else { Issue.record("\(fixes)"); return }
        let last = fixes[lastIndex]
        #expect(last.coordinate?.latitude == 49.27)
        #expect(fixes[(lastIndex + 1)...].allSatisfy { $0.mode == .none && $0.coordinate == nil }, "\(fixes)")
        let beforeLast = fixes[lastIndex - 1]
        #expect(beforeLast.mode == .none && beforeLast.coordinate == nil)  // silence: no stale position
        #expect(fixes.allSatisfy { $0.coordinate != nil || $0.mode == .none })
        #expect(fixes.allSatisfy { $0.timestamp.nanoseconds > 0 })
        #expect(zip(fixes, fixes.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        #expect((failure as? DeviceError)?.code == .disconnected)
    }

    @Test func aLogFileIsDecodedWithItsOwnTimes() async throws {
        let path = packageRoot + "/Tests/NMEATests/Fixtures/gpsd-nmea/bu353s4.log"
        let receiver = try NMEAReceiver(uri: DeviceURI("nmea:\(path)"))
        var fixes: [LocationFix] = []
        for try await fix in receiver.readings(buffering: .unbounded) { fixes.append(fix) }
        #expect(fixes.count == 25)
        #expect(fixes.first?.timestamp == .zero)
        #expect(fixes.last?.timestamp == Timestamp(nanoseconds: 24_000_000_000))
    }

    @Test func badURIsAndMissingDevicesSayWhy() throws {
        #expect(throws: DeviceError.self) { try NMEAReceiver(uri: DeviceURI("nmea:/dev/ttyDOESNOTEXIST")) }
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        let refusal = Result { () throws(DeviceError) in try NMEAReceiver(uri: DeviceURI("nmea:\(terminal.slavePath)?baud=1234")) }
        guard case .failure(let error) = refusal else {
            Issue.record("accepted baud 1234")
            return
        }
        #expect(error.code == .unsupported)
        #expect(error.message.contains("9600"))
        #expect(throws: DeviceError.self) { try NMEAReceiver(uri: DeviceURI("nmea:tcp://127.0.0.1")) }
        #expect(throws: DeviceError.self) { try GPSDClient(uri: DeviceURI("gpsd://127.0.0.1:2947?retry=0")) }
    }
}

@Suite(.serialized) struct NMEAServingTests {
    /// A campus walk served as NMEA over TCP at ×50, read back by the `nmea:tcp://` receiver:
    /// every fix comes back, within NMEA's precision, and the dropout as no fix.
    @Test func aServedWalkReadsBackThroughTheTCPReceiver() async throws {
        let (scenario, places) = try WalkScenario.load(path: packageRoot + "/traces/ubc/main-mall-tour.walk.json")
        let track = try LocationTrack(trace: scenario.generate(places: places))
        let sent = Array(track.fixes.prefix(400))
        let server = try TCPBroadcastServer(port: 0)
        defer { server.close() }
        let receiver = try NMEAReceiver(uri: DeviceURI("nmea:tcp://127.0.0.1:\(server.port)?gap=0.5"))
        let stream = receiver.readings(buffering: .unbounded)
        let collector = Task {
            var fixes: [LocationFix] = []
            do { for try await fix in stream { fixes.append(fix) } } catch {}
            return fixes
        }
        let connected = try await waitUntil(every: .milliseconds(10)) {
            server.acceptWaiting()
            return server.clientCount > 0
        }
        try #require(connected, "the receiver did not connect")
        try await LocationTrack(channel: "gps", fixes: sent).serveNMEA(pacing: .rate(50), clock: ContinuousClock()) { server.broadcast($0) }
        // Closed at once: TCP delivers every byte sent before the close, and the receiver ends the last epoch at the
        // end of its input, so no time is needed for it to read them.
        server.close()
        let received = await collector.value.filter { $0.utcNanoseconds != nil }
        #expect(received.count == sent.count)
        for (original, back) in zip(sent, received) {
            #expect(back.utcNanoseconds == original.utcNanoseconds)
            #expect(back.mode == original.mode)
            if let a = original.coordinate, let b = back.coordinate { #expect(a.distance(to: b) < 0.002) }
        }
        #expect(received.filter { $0.mode == .none }.count == sent.filter { $0.mode == .none }.count)
    }
}
