import LibC
import SystemSupport
public import HAL
import NMEA

/// A GPS receiver that speaks NMEA 0183: `nmea:/dev/ttyACM0?baud=9600` (a serial tty, in raw
/// mode at the chosen baud), `nmea:/path/to/log.nmea` (a file), or `nmea:tcp://host:port`.
///
/// - **Live sources** (tty, TCP) stamp each fix with `CLOCK_MONOTONIC` when its epoch closes.
///   An epoch closes on the next epoch's first sentence, or after `gap` seconds of quiet
///   (0.2 by default), so a 1 Hz receiver's fix is not held back a second.
/// - **A file** is decoded as fast as possible, each fix stamped with its time since the
///   log's first epoch: by UTC, or by time of day when the log has no date (``NMEA/EpochTimeline``).
/// - **A receiver that stops talking** (no sentence the decoder takes; garbage and TXT do not
///   count) for `silence` seconds (3 by default) after reporting a
///   position yields one fix with mode `none`: the consumer never keeps showing the last
///   position as current. Fixes resume when sentences do.
/// - **A device that goes away** (the tty is unplugged, the TCP peer closes) ends the stream
///   with ``HAL/DeviceError/Code/disconnected``.
public struct NMEAReceiver: LocationProvider {
    /// Where the sentences come from.
    public enum Source: Sendable, Hashable {
        /// A serial tty, set to raw mode at `baud`.
        case serial(path: String, baud: Int)
        /// A log file.
        case file(path: String)
        /// A TCP server sending NMEA, such as a phone app or `hal gps serve --tcp`.
        case tcp(host: String, port: UInt16)
    }

    /// The device.
    public let info: DeviceInfo
    /// Where it reads.
    public let source: Source
    /// Seconds of quiet that close an epoch.
    public var gap: Double
    /// Seconds of silence after which the receiver reports no fix.
    public var silence: Double

    static let bauds: [Int: speed_t] = [
        4800: speed_t(B4800), 9600: speed_t(B9600), 19200: speed_t(B19200), 38400: speed_t(B38400),
        57600: speed_t(B57600), 115200: speed_t(B115200), 230400: speed_t(B230400),
    ]

    /// Opens the receiver a `nmea:` URI names (query: `baud`, `gap`, `silence`).
    public init(uri: DeviceURI) throws(DeviceError) {
        func number(_ key: String, _ fallback: Double) throws(DeviceError) -> Double {
            guard let text = uri.queryValue(key) else { return fallback }
            guard let value = Double(text), value > 0 else {
                throw DeviceError(.invalidURI, uri: uri.description, "\(key)=\(text) is not a positive number")
            }
            return value
        }
        gap = try number("gap", 0.2)
        silence = try number("silence", 3)
        if uri.body.hasPrefix("tcp://") {
            let address = uri.body.dropFirst(6)
            guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
                throw DeviceError(.invalidURI, uri: uri.description, "a TCP source is nmea:tcp://HOST:PORT")
            }
            source = .tcp(host: String(address[..<colon]), port: port)
        } else {
            var status = stat()
            guard stat(uri.body, &status) == 0 else {
                throw DeviceError(errno == EACCES ? .permissionDenied : .notFound, uri: uri.description, describeErrno(errno))
            }
            if status.st_mode & S_IFMT == S_IFCHR {
                let baud = Int(uri.queryValue("baud") ?? "9600") ?? -1
                guard Self.bauds[baud] != nil else {
                    let known = Self.bauds.keys.sorted().map(String.init).joined(separator: ", ")
                    throw DeviceError(.unsupported, uri: uri.description, "baud must be one of \(known)")
                }
                source = .serial(path: uri.body, baud: baud)
            } else {
                source = .file(path: uri.body)
            }
        }
        info = DeviceInfo(uri: uri.description, name: "NMEA receiver", kind: .location, backend: "nmea")
    }

    /// Starts reading.
    public func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<LocationFix, any Error> {
        let receiver = self
        return DeviceThread.stream(name: "nmea " + info.uri, buffering: buffering) { stop, yield in
            try receiver.run(stop: stop, yield: yield)
        }
    }

    private func open() throws(DeviceError) -> Int32 {
        switch source {
        case .serial(let path, let baud):
            let descriptor = Glibc.open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC)
            guard descriptor >= 0 else {
                let code = errno
                if code == EACCES {
                    throw DeviceError(.permissionDenied, uri: info.uri, "\(describeErrno(code)): add the user to the 'dialout' group")
                }
                throw DeviceError(.notFound, uri: info.uri, describeErrno(code))
            }
            var settings = termios()
            guard tcgetattr(descriptor, &settings) == 0 else {
                let code = errno
                close(descriptor)
                throw DeviceError(.ioFailure, uri: info.uri, "not a terminal: \(describeErrno(code))")
            }
            cfmakeraw(&settings)
            cfsetispeed(&settings, Self.bauds[baud]!)
            cfsetospeed(&settings, Self.bauds[baud]!)
            settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
            guard tcsetattr(descriptor, TCSANOW, &settings) == 0 else {
                let code = errno
                close(descriptor)
                throw DeviceError(.ioFailure, uri: info.uri, "cannot set raw mode at \(baud) baud: \(describeErrno(code))")
            }
            return descriptor
        case .file(let path):
            let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw DeviceError(.notFound, uri: info.uri, describeErrno(errno)) }
            return descriptor
        case .tcp(let host, let port):
            return try TCPConnection.connect(host: host, port: port, uri: info.uri)
        }
    }

    private func run(stop: StopFlag, yield: (LocationFix) -> Void) throws {
        let descriptor = try open()
        defer { close(descriptor) }
        var reader = LineReader(descriptor: descriptor)
        var decoder = NMEADecoder()
        let live: Bool = if case .file = source { false } else { true }
        var timeline = EpochTimeline()
        var quietFor = 0.0
        var lastHadPosition = false
        func deliver(_ epoch: NMEAFix) {
            let fix: LocationFix
            if live {
                // A fragment with neither a time nor a position (a lone GSA) is not a report.
                guard epoch.timeOfDay != nil || epoch.coordinate != nil else { return }
                fix = epoch.locationFix(at: MonotonicClock.now)
            } else {
                guard let placed = timeline.fix(for: epoch) else { return }
                fix = placed
            }
            lastHadPosition = fix.coordinate != nil
            yield(fix)
        }
        while !stop.isSet {
            switch reader.next(timeout: live ? gap : 1) {
            case .line(let line):
                // Only a sentence the decoder takes counts as the receiver talking: garbage at the
                // wrong baud, or only TXT, must still end in a no-fix report.
                let decodedBefore = decoder.statistics.decodedCount
                if let epoch = line.withUnsafeBufferPointer({ decoder.decode(bytes: $0) }) { deliver(epoch) }
                if decoder.statistics.decodedCount > decodedBefore { quietFor = 0 }
            case .timeout:
                if let epoch = decoder.finish() { deliver(epoch) }
                quietFor += gap
                if live, quietFor >= silence, lastHadPosition {
                    lastHadPosition = false
                    yield(.noFix(at: MonotonicClock.now))
                }
            case .endOfInput:
                if let epoch = decoder.finish() { deliver(epoch) }
                if live { throw DeviceError(.disconnected, uri: info.uri, "the receiver closed the connection") }
                return
            case .failure(let code):
                if let epoch = decoder.finish() { deliver(epoch) }
                throw DeviceError(.disconnected, uri: info.uri, "read failed: \(describeErrno(code))")
            }
        }
    }
}
