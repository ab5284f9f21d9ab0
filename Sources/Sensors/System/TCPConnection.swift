import HAL
#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP client connection, for device protocols on loopback or a board's network.
enum TCPConnection {
    /// Connects to `host:port` (numeric IPv4 or `localhost`) and returns the socket.
    static func connect(host: String, port: UInt16, uri: String) throws(DeviceError) -> Int32 {
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
        guard Glibc.connect(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else {
            let code = errno
            close(descriptor)
            throw DeviceError(code == ECONNREFUSED ? .notFound : .ioFailure, uri: uri, "cannot connect: \(describeErrno(code))")
        }
        return descriptor
    }

    /// Writes all of `bytes`, or throws when the peer has gone.
    static func send(_ bytes: [UInt8], to descriptor: Int32, uri: String) throws(DeviceError) {
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
