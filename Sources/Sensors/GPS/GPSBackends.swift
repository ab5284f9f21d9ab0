import LibC
import SystemSupport
public import HAL

/// Opens `nmea:` receivers: a serial tty, a log file, or `nmea:tcp://HOST:PORT`.
public struct NMEABackend: DeviceBackend {
    /// `nmea`.
    public var scheme: String { "nmea" }
    /// What `hal devices` says about the backend.
    public var summary: String { "NMEA 0183 receiver: nmea:/dev/ttyACM0?baud=9600, nmea:FILE, nmea:tcp://HOST:PORT" }

    /// Creates the backend.
    public init() {}

    /// Opens a receiver.
    public func open(_ uri: DeviceURI) throws -> any Device {
        try NMEAReceiver(uri: uri)
    }

    /// Lists serial devices that GPS receivers usually appear as (USB ACM and USB serial).
    public func discover() throws -> [DeviceInfo] {
        SerialPorts.candidates().map {
            DeviceInfo(uri: "nmea:\($0)?baud=9600", name: "serial port (a GPS receiver?)", kind: .location, backend: "nmea")
        }
    }
}

/// Opens `gpsd://HOST[:PORT]` clients.
public struct GPSDBackend: DeviceBackend {
    /// `gpsd`.
    public var scheme: String { "gpsd" }
    /// What `hal devices` says about the backend.
    public var summary: String { "gpsd's JSON protocol: gpsd://127.0.0.1:2947" }

    /// Creates the backend.
    public init() {}

    /// Opens a client; it connects when read, and keeps reconnecting.
    public func open(_ uri: DeviceURI) throws -> any Device {
        try GPSDClient(uri: uri)
    }

    /// gpsd on its default port, when it is listening there.
    public func discover() throws -> [DeviceInfo] {
        guard let descriptor = try? TCPConnection.connect(host: "127.0.0.1", port: 2947, uri: "gpsd://127.0.0.1:2947") else { return [] }
        close(descriptor)
        return [try GPSDClient(uri: DeviceURI("gpsd://127.0.0.1:2947")).info]
    }
}

/// Serial ports that GPS receivers usually appear as.
enum SerialPorts {
    static func candidates() -> [String] {
        guard let directory = opendir("/dev") else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("ttyACM") || name.hasPrefix("ttyUSB") { names.append("/dev/" + name) }
        }
        return names.sorted()
    }
}

