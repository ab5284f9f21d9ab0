import HAL
import TraceFormat
import Interchange
import LibC
import NMEA
import SystemSupport

/// A location channel as a GPS receiver: NMEA 0183 sentences (GGA, RMC, GSA and the rest ``NMEAEncoder`` writes),
/// one epoch per fix, written at the fix's time (divided by the run's rate) into a pseudo-terminal.
///
/// - `nmea`: the program opens the terminal as its serial receiver. Its path is `HAL_DEVICE_<CHANNEL>` in the
///   program's environment, and `/dev/ttyACMn` in the testbed links to it.
/// - `gpsd`: a real gpsd (Debian's `gpsd`) reads the terminal and serves its clients on a free loopback port, which is
///   `HAL_GPSD_PORT` (and `host:port` in `HAL_GPSD`) in the program's environment. The program's connections to
///   gpsd's default port on loopback (2947) reach it too (`HAL_LOOPBACK_PORTS`, which hal's preload follows), so
///   clients that assume `localhost:2947` work unchanged and nothing of the machine's on 2947 is touched.
public final class GPSServedDevice: ServedDevice {
    /// How the program reaches the receiver.
    public enum Mode: String, Sendable {
        /// A serial node.
        case nmea
        /// A gpsd on loopback.
        case gpsd
    }

    private let mode: Mode
    private let channel: ServedChannel
    private let state = Locked<State>(State())

    private struct State {
        var terminal: PseudoTerminal?
        var daemon: ChildProcess?
        var port: UInt16 = 0
        var node = ""
        /// Where each written fix's sentences end, in bytes from the first: one entry per fix written.
        var ends: [Int] = []
        /// The serial node's input queue, kept open from the start so that what is left unread can be counted.
        var pending: PendingInput?
        /// The fixes the program read whole, once the run is over.
        var read: Int?
    }

    /// A receiver of `mode` for `channel`.
    public init(mode: Mode, channel: ServedChannel) {
        self.mode = mode
        self.channel = channel
    }

    /// The device types' entry for `mode`: every location channel gets both by default.
    public static func type(_ mode: Mode) -> ServedDeviceTypes.DeviceType {
        ServedDeviceTypes.DeviceType(
            name: mode.rawValue,
            summary: mode == .nmea ? "a serial GPS receiver writing NMEA (a pseudo-terminal, /dev/ttyACMn)" : "a gpsd on a loopback port, reading a simulated receiver",
            carries: { $0 == .location }, isDefault: { $0 == .location },
            make: { channels in channels.map { GPSServedDevice(mode: mode, channel: $0) } })
    }

    public var summary: String {
        let (node, port) = state.withLock { ($0.node, $0.port) }
        return mode == .nmea
            ? "serial GPS \(node) (NMEA) <- \(channel.channel.id) (location)"
            : "gpsd 127.0.0.1:\(port) <- \(channel.channel.id) (location)"
    }

    public func prepare(_ testbed: inout TestbedPlan) throws {
        let terminal = try PseudoTerminal()
        state.withLock { $0.terminal = terminal }
        let variable = TestbedPlan.variableName(channel.channel.id)
        switch mode {
        case .nmea:
            let node = "/dev/ttyACM\(testbed.nextSerialNumber)"
            testbed.nextSerialNumber += 1
            testbed.links[node] = terminal.slavePath
            testbed.environment["HAL_DEVICE_" + variable] = node
            let pending = PendingInput(path: terminal.slavePath)
            _ = pending.pendingBytes()
            state.withLock {
                $0.node = node
                $0.pending = pending
            }
        case .gpsd:
            guard let gpsd = ChildProcess.resolve("gpsd", path: "/usr/sbin:/usr/bin:/sbin:/bin") else {
                throw ProgramError("gpsd is not installed; install Debian's gpsd (scripts/install-deps)")
            }
            // A free port is found by binding port 0 and closing it, so another process may take it before gpsd
            // binds it: gpsd then exits, and another port is tried.
            var port: UInt16 = 0
            for attempt in 1...5 {
                port = try Self.freePort()
                // -N: stay in the foreground; -n: read the receiver before a client asks; -b: never write to it.
                // On the trace's clock, gpsd shares the program's clock: its timeouts are the trace's.
                let daemon = try ChildProcess(
                    executable: gpsd, arguments: ["-N", "-n", "-b", "-S", String(port), terminal.slavePath],
                    environment: testbed.clockEnvironment.merging(["PATH": "/usr/sbin:/usr/bin:/bin"]) { $1 })
                // A gpsd that does not listen is ended and its pipes closed there; only one that listens is kept (and
                // its pipes closed once, by finish()).
                if try Self.waitForListener(port: port, daemon: daemon, lastAttempt: attempt == 5) {
                    state.withLock { [port] in
                        $0.daemon = daemon
                        $0.port = port
                    }
                    break
                }
            }
            if let daemon = state.withLock({ $0.daemon }), !testbed.clockEnvironment.isEmpty { testbed.clockedProcesses.append(daemon.pid) }
            testbed.environment["HAL_GPSD_PORT"] = String(port)
            testbed.environment["HAL_GPSD"] = "127.0.0.1:\(port)"
            // gpsd's default port on loopback leads to this gpsd (the first, when there are several), through
            // hal's preload: clients that assume localhost:2947 need not be told.
            if testbed.environment["HAL_LOOPBACK_PORTS"] == nil { testbed.environment["HAL_LOOPBACK_PORTS"] = "\(Self.defaultPort)=\(port)" }
        }
    }

    public func feed(_ run: FeedContext) async throws {
        let encoder = NMEAEncoder()
        guard let (terminal, pending) = state.withLock({ state in state.terminal.map { ($0, state.pending) } }) else { return }
        // On the trace's clock, a fix has reached the reader's side once the terminal's input queue holds it.
        let settled = run.clock == nil ? nil : (pending ?? PendingInput(path: terminal.slavePath)).isWaiting
        for await record in run.records(of: [channel], settled: settled) {
            guard case .location(let fix) = record.reading, let dated = LocationTrack(channel: "", fixes: [fix]).withUTC().fixes.first else { continue }
            let bytes = Array(encoder.sentences(for: dated).joined().utf8)
            try terminal.write(bytes)
            state.withLock { $0.ends.append(($0.ends.last ?? 0) + bytes.count) }
        }
    }

    public func finish() {
        let (terminal, daemon, pending) = state.withLock { ($0.terminal, $0.daemon, $0.pending) }
        // A fix counts as read once none of its bytes is left in the serial node's input queue.
        if let unread = pending?.pendingBytes() {
            state.withLock { state in
                let taken = (state.ends.last ?? 0) - unread
                state.read = state.ends.prefix { $0 <= taken }.count
            }
        }
        if let daemon {
            // Bounded: on the trace's clock nothing moves time once the run is over, and a gpsd that was in a timed
            // wait when it was told to stop would wait for ever.
            DetachedThread.start(name: "gpsd reader") { ChildProcess.readLines(daemon.standardOutput) { _ in } }
            DetachedThread.start(name: "gpsd errors") { ChildProcess.readLines(daemon.standardError) { _ in } }
            daemon.terminate(grace: 1)
        }
        terminal?.close()
    }

    public var delivered: String {
        let (written, read) = state.withLock { ($0.ends.count, $0.read) }
        return (mode == .nmea ? "serial GPS" : "gpsd") + ": \(written) fixes written as NMEA" + (read.map { ", \($0) read by the program" } ?? "")
    }

    /// gpsd's port, where its clients look by default.
    static let defaultPort = 2947

    /// A TCP port on 127.0.0.1 nobody listens on now.
    static func freePort() throws -> UInt16 {
        let server = try TCPBroadcastServer(port: 0)
        defer { server.close() }
        return server.port
    }

    /// Waits until something accepts connections on `port` (true), or `daemon` ends on its own, as when another
    /// process took the port (false, unless this was the `lastAttempt`). Otherwise, and on the last attempt, it throws
    /// with the daemon's error output. Whenever it does not return true, the daemon is ended and its pipes closed.
    static func waitForListener(port: UInt16, daemon: ChildProcess, lastAttempt: Bool) throws -> Bool {
        for _ in 0..<1000 {
            if let socket = try? TCPConnection.connect(host: "127.0.0.1", port: port, uri: "gpsd://127.0.0.1:\(port)") {
                close(socket)
                return true
            }
            if daemon.poll() != nil { break }
            usleep(10_000)
        }
        let endedOnItsOwn = daemon.poll() != nil
        var message: [String] = []
        daemon.signalGroup(SIGKILL)
        _ = daemon.wait()
        close(daemon.standardOutput)
        ChildProcess.readLines(daemon.standardError) { message.append($0) }
        if endedOnItsOwn && !lastAttempt { return false }
        throw ProgramError("gpsd did not start listening on 127.0.0.1:\(port): \(message.suffix(3).joined(separator: "; "))")
    }
}
