import LibC
public import HAL

/// A TCP server on loopback that sends every connected client the same byte stream, the way NMEA-over-TCP
/// receivers serve gpsd's `tcp://` sources.
public final class TCPBroadcastServer: Sendable {
    /// The port it listens on.
    public let port: UInt16
    /// The listening socket and the clients, under one lock: once closed (listener -1), nothing uses either number
    /// again, since the system may have handed it out since.
    private let sockets: Locked<(listener: Int32, clients: [Int32])>

    /// Listens on 127.0.0.1:`port` (0 picks a free port).
    public init(port: UInt16) throws(DeviceError) {
        let uri = "tcp://127.0.0.1:\(port)"
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw DeviceError(.ioFailure, uri: uri, describeErrno(errno)) }
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
            let message = describeErrno(errno)
            Glibc.close(listener)
            throw DeviceError(.ioFailure, uri: uri, "cannot listen: \(message)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        sockets = Locked((listener, []))
        self.port = UInt16(bigEndian: actual.sin_port)
    }

    /// Accepts waiting clients without blocking; nothing once closed.
    public func acceptWaiting() {
        sockets.withLock { sockets in
            while sockets.listener >= 0 {
                var poller = pollfd(fd: sockets.listener, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 0) > 0 else { return }
                let client = accept(sockets.listener, nil, nil)
                guard client >= 0 else { return }
                // Non-blocking, so that a client that stops reading is dropped instead of stalling the rest.
                _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                sockets.clients.append(client)
            }
        }
    }

    /// How many clients are connected.
    public var clientCount: Int { sockets.withLock { $0.clients.count } }

    /// Sends `bytes` to every client, dropping those that have gone or stopped reading.
    public func broadcast(_ bytes: [UInt8]) {
        acceptWaiting()
        sockets.withLock { sockets in
            sockets.clients.removeAll { client in
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

    /// Stops listening and disconnects every client. Closing again does nothing.
    public func close() {
        sockets.withLock { sockets in
            for client in sockets.clients { Glibc.close(client) }
            sockets.clients.removeAll()
            if sockets.listener >= 0 { Glibc.close(sockets.listener) }
            sockets.listener = -1
        }
    }
}
