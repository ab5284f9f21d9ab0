import CPseudoTerminal
public import HAL
import NMEA
#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal whose slave side any program can open as if it were a serial GPS
/// receiver (gpsd: `gpsd -N -n /dev/pts/N`), while the master side is written here.
public final class PseudoTerminal: Sendable {
    /// The master's file descriptor.
    public let master: Int32
    /// The slave's path, such as `/dev/pts/3`.
    public let slavePath: String

    /// Opens a pseudo-terminal in raw mode.
    public init() throws(DeviceError) {
        var name = [CChar](repeating: 0, count: 128)
        master = hal_open_pseudo_terminal(&name, name.count)
        guard master >= 0 else {
            throw DeviceError(.ioFailure, uri: "pty", "cannot open a pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes `bytes` to the master side. When nobody reads the slave and the terminal's buffer
    /// is full, the rest is dropped, as a receiver's sentences are lost with no listener: a
    /// reader that attaches later gets current epochs, not a backlog.
    public func write(_ bytes: [UInt8]) throws(DeviceError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { return }
                throw DeviceError(.disconnected, uri: slavePath, "write failed: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// Closes the master; readers of the slave see the device go away.
    public func close() {
        Glibc.close(master)
    }
}

/// A TCP server on loopback that sends every connected client the same NMEA stream, the
/// way NMEA-over-TCP apps and gpsd's `tcp://` sources expect.
public final class NMEATCPServer: Sendable {
    /// The port it listens on.
    public let port: UInt16
    private let listener: Int32
    private let clients = Locked<[Int32]>([])

    /// Listens on 127.0.0.1:`port` (0 picks a free port).
    public init(port: UInt16) throws(DeviceError) {
        let uri = "tcp://127.0.0.1:\(port)"
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw DeviceError(.ioFailure, uri: uri, String(cString: strerror(errno))) }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 8) == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(listener)
            throw DeviceError(.ioFailure, uri: uri, "cannot listen: \(message)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        self.listener = listener
        self.port = UInt16(bigEndian: actual.sin_port)
    }

    /// Accepts waiting clients without blocking.
    public func acceptWaiting() {
        while true {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 0) > 0 else { return }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            // Non-blocking, so that a client that stops reading is dropped instead of stalling the rest.
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            clients.withLock { $0.append(client) }
        }
    }

    /// How many clients are connected.
    public var clientCount: Int { clients.withLock { $0.count } }

    /// Sends `bytes` to every client, dropping those that have gone or stopped reading.
    public func broadcast(_ bytes: [UInt8]) {
        acceptWaiting()
        clients.withLock { clients in
            clients.removeAll { client in
                var offset = 0
                while offset < bytes.count {
                    let sent = bytes.withUnsafeBytes { send(client, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                    if sent <= 0 {
                        if sent < 0 && errno == EINTR { continue }
                        Glibc.close(client)
                        return true
                    }
                    offset += sent
                }
                return false
            }
        }
    }

    /// Stops listening and disconnects every client.
    public func close() {
        clients.withLock { clients in
            for client in clients { Glibc.close(client) }
            clients.removeAll()
        }
        Glibc.close(listener)
    }
}

extension LocationTrack {
    /// Writes the track as NMEA, one epoch per fix, paced by `pacing` on `clock`: at real
    /// time by default, so that a program reading it sees a live receiver. Each fix's
    /// UTC time is written as recorded; fixes without one get 2000-01-01T00:00:00Z plus
    /// their timestamp.
    public func serveNMEA<C: Clock>(
        pacing: ReplayPacing = .realtime, clock: C, write: ([UInt8]) throws -> Void
    ) async throws where C.Duration == Duration {
        let encoder = NMEAEncoder()
        let replay = try TraceReplay(trace: withUTC().trace(source: "serve"), options: ReplayOptions(pacing: pacing))
        try await replay.run(pacingClock: clock) { record in
            guard case .location(let fix) = record.reading else { return }
            try write(Array(encoder.sentences(for: fix).joined().utf8))
        }
    }
}
