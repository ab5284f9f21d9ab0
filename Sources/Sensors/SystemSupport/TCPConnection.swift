import LibC
package import HAL

/// A blocking TCP client connection, for device protocols on loopback or a board's network.
package enum TCPConnection {
    /// Connects to `host:port` (numeric IPv4 or `localhost`) within `timeout` seconds and
    /// returns the socket, blocking again once connected.
    package static func connect(host: String, port: UInt16, uri: String, timeout: Double = 3) throws(DeviceError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let address = result else {
            throw DeviceError(.invalidURI, uri: uri, "cannot resolve host '\(host)'")
        }
        defer { freeaddrinfo(result) }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw DeviceError(.ioFailure, uri: uri, describeErrno(errno)) }
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        var code: Int32 = 0
        if Glibc.connect(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) != 0 {
            code = errno
            if code == EINPROGRESS {
                var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                if poll(&poller, 1, Int32(timeout * 1000)) == 1 {
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length)
                } else {
                    code = ETIMEDOUT
                }
            }
        }
        guard code == 0 else {
            close(descriptor)
            throw DeviceError(code == ECONNREFUSED ? .notFound : .ioFailure, uri: uri, "cannot connect: \(describeErrno(code))")
        }
        _ = fcntl(descriptor, F_SETFL, flags)
        return descriptor
    }

    /// Writes all of `bytes`, or throws when the peer has gone.
    package static func send(_ bytes: [UInt8], to descriptor: Int32, uri: String) throws(DeviceError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                throw DeviceError(.disconnected, uri: uri, "send failed: \(describeErrno(errno))")
            }
            offset += written
        }
    }
}
