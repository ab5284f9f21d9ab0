import LibC
import Foundation
import HAL
import NMEA
import GPS
import Interchange
import Replay
import Synthesis
import SystemSupport
import TestSupport
import Testing

/// A real gpsd (Debian's `gpsd`, installed by scripts/install-deps), started by the test on a
/// pty it feeds, read back through the `gpsd://` backend over loopback.
@Suite(.serialized) struct GPSDRoundTripTests {
    static let gpsd = "/usr/sbin/gpsd"

    /// A loopback port nobody listens on.
    static func freePort() throws -> UInt16 {
        let server = try TCPBroadcastServer(port: 0)
        defer { server.close() }
        return server.port
    }

    /// Starts gpsd on `device` at `port`, and returns once it has greeted a client: NMEA
    /// written during its first second of driver probing would be dropped. Throws when gpsd ends first (another
    /// program took the port) or never greets; the limit is only for a gpsd that never comes up.
    static func startGPSD(device: String, port: UInt16) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gpsd)
        process.arguments = ["-N", "-n", "-b", "-S", String(port), device]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let greeted = blockUntil(every: 0.05) {
            guard process.isRunning else { return true }
            guard let descriptor = connectToLoopback(port: port) else { return false }
            defer { close(descriptor) }
            var reader = [UInt8](repeating: 0, count: 4096)
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            return poll(&poller, 1, 3000) > 0 && read(descriptor, &reader, reader.count) > 0
                && String(decoding: reader, as: UTF8.self).contains(#""class":"VERSION""#)
        }
        if greeted && process.isRunning { return process }
        if process.isRunning { stop(process) }
        throw POSIXError(.ETIMEDOUT)
    }

    /// ``startGPSD(device:port:)`` on a port the kernel found free. Another program may take it before gpsd binds it:
    /// gpsd then ends at once, and it starts again on another port.
    static func startGPSD(device: String) throws -> (process: Process, port: UInt16) {
        for _ in 0..<4 {
            let port = try freePort()
            if let process = try? startGPSD(device: device, port: port) { return (process, port) }
        }
        let port = try freePort()
        return (try startGPSD(device: device, port: port), port)
    }

    /// Stops gpsd with SIGKILL. (A child started by Foundation's Process can inherit a signal
    /// mask that blocks SIGTERM, and gpsd then never sees it.)
    static func stop(_ process: Process) {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Removes the System V shared memory gpsd leaves when run as root (it drops privileges
    /// and then cannot delete what it made).
    static func removeSharedMemory() {
        for key in Array(0x4E54_5030...0x4E54_5037) + [0x4750_5344] {
            let id = shmget(key_t(key), 0, 0)
            if id >= 0 { shmctl(id, IPC_RMID, nil) }
        }
    }

    final class Received: Sendable {
        private let fixes = Locked<[LocationFix]>([])
        func append(_ fix: LocationFix) { fixes.withLock { $0.append(fix) } }
        var all: [LocationFix] { fixes.withLock { $0 } }
        /// Whether `condition` came to hold (within ``stateTimeout``).
        func wait(until condition: ([LocationFix]) -> Bool) async throws -> Bool {
            try await waitUntil(every: .milliseconds(20)) { condition(all) }
        }
    }

    /// Writes an epoch at `fix`'s position on the pty every 50 ms, each a second after the one before from `start` on,
    /// until the client reports one of them. From then on gpsd reads the pty and the client watches, so every epoch
    /// written after comes back: the test waits for that state instead of for a time in which the client usually
    /// connects. Returns whether it came (within ``stateTimeout``).
    static func prime(_ terminal: PseudoTerminal, _ received: Received, at fix: LocationFix, from start: Int64) async throws -> Bool {
        let encoder = NMEAEncoder()
        let span = start..<(start + 10_000 * 1_000_000_000)
        var epoch = fix
        epoch.utcNanoseconds = start
        return try await waitUntil(every: .milliseconds(50)) {
            if received.all.contains(where: { fix in fix.utcNanoseconds.map { span.contains($0) } ?? false }) { return true }
            try terminal.write(Array(encoder.sentences(for: epoch).joined().utf8))
            epoch.utcNanoseconds! += 1_000_000_000
            return false
        }
    }

    @Test func aWalkServedIntoGPSDComesBackThroughTheClient() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.gpsd), "gpsd is missing: run scripts/install-deps")
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        // Hold the slave open, so the same /dev/pts/N survives gpsd restarts.
        let slave = open(terminal.slavePath, O_RDWR | O_NOCTTY)
        defer { close(slave) }
        let started = try Self.startGPSD(device: terminal.slavePath)
        var gpsd = started.process
        let port = started.port
        defer {
            Self.stop(gpsd)
            Self.removeSharedMemory()
        }

        let (scenario, places) = try WalkScenario.load(path: packageRoot + "/traces/ubc/main-mall-tour.walk.json")
        let walk = try LocationTrack(trace: scenario.generate(places: places))
        let client = try GPSDClient(uri: DeviceURI("gpsd://127.0.0.1:\(port)?retry=0.2"))
        let received = Received()
        let reading = Task {
            for try await fix in client.readings(buffering: .unbounded) { received.append(fix) }
        }
        defer { reading.cancel() }
        // Priming epochs are at the walk's first position, a day and more before its first time: left out below.
        let walkStart = try #require(walk.fixes.first?.utcNanoseconds)
        let primer = try #require(walk.fixes.first(where: { $0.coordinate != nil }))
        func primed(_ fix: LocationFix) -> Bool { (fix.utcNanoseconds ?? .max) < walkStart }
        let watching = try await Self.prime(terminal, received, at: primer, from: walkStart - 100_000 * 1_000_000_000)
        try #require(watching, "the client never reported a fix")

        // 60 s of walk with a fix, then 20 s inside Koerner Library (no fix), then out again: at ×20.
        let lost = walk.fixes.firstIndex { $0.mode == .none }!
        let first = Array(walk.fixes[0..<60]) + Array(walk.fixes[(lost - 10)..<(lost + 10)])
        try await LocationTrack(channel: "gps", fixes: first).serveNMEA(pacing: .rate(20), clock: ContinuousClock()) { try terminal.write($0) }
        let walked = try await received.wait { $0.contains { $0.utcNanoseconds == first.last!.utcNanoseconds } }
        try #require(walked, "the walk's last epoch never came back")

        // Every epoch gpsd reported matches the walk at its time, within NMEA's precision. gpsd may
        // report an epoch twice (a partial TPV after RMC, then the whole one); its last word counts.
        let byTime = Dictionary(walk.fixes.map { ($0.utcNanoseconds!, $0) }, uniquingKeysWith: { a, _ in a })
        var lastReport: [Int64: LocationFix] = [:]
        for fix in received.all where !primed(fix) { if let utc = fix.utcNanoseconds { lastReport[utc] = fix } }
        let reported = lastReport.values.sorted { $0.utcNanoseconds! < $1.utcNanoseconds! }
        #expect(reported.count >= first.count - 2, "gpsd reported \(reported.count) of \(first.count) epochs")
        for fix in reported {
            let original = try #require(byTime[fix.utcNanoseconds!])
            #expect(fix.mode == original.mode, "at \(fix.utcNanoseconds!)")
            if let a = fix.coordinate, let b = original.coordinate {
                #expect(a.distance(to: b) < 0.01, "at \(fix.utcNanoseconds!)")
                if let altitude = fix.altitude, let expected = original.altitude { #expect(abs(altitude - expected) < 0.06) }
            } else {
                #expect(fix.coordinate == nil && original.coordinate == nil, "no stale position at \(fix.utcNanoseconds!)")
            }
        }
        #expect(reported.contains { $0.mode == .none && $0.coordinate == nil })

        // gpsd restarts: the client reports no fix (once, if its last report had one), reconnects, and reads the walk on.
        let before = received.all.count
        let hadFix = received.all.last.map { $0.mode != FixMode.none } ?? false
        Self.stop(gpsd)
        if hadFix {
            let reportedLoss = try await received.wait { $0.count > before }
            try #require(reportedLoss, "no report of the lost fix")
        }
        #expect(received.all.last?.mode == FixMode.none)
        gpsd = try Self.startGPSD(device: terminal.slavePath, port: port)
        let reconnected = try await Self.prime(terminal, received, at: primer, from: walkStart - 50_000 * 1_000_000_000)
        try #require(reconnected, "the client did not reconnect")
        let after = Array(walk.fixes[200..<230])
        try await LocationTrack(channel: "gps", fixes: after).serveNMEA(pacing: .rate(20), clock: ContinuousClock()) { try terminal.write($0) }
        let walkedOn = try await received.wait { $0.contains { $0.utcNanoseconds == after.last!.utcNanoseconds } }
        try #require(walkedOn, "the walk's last epoch after the restart never came back")
        let resumed = received.all.suffix(from: before).filter { $0.utcNanoseconds != nil && $0.coordinate != nil && !primed($0) }
        #expect(Set(resumed.map(\.utcNanoseconds)).count >= after.count - 3)
        for fix in resumed {
            let original = try #require(byTime[fix.utcNanoseconds!]?.coordinate)
            #expect(original.distance(to: fix.coordinate!) < 0.01)
        }
    }
}
