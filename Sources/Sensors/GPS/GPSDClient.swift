import LibC
import SystemSupport
import FoundationEssentials
public import HAL

/// Location from gpsd over its JSON protocol: `gpsd://127.0.0.1:2947`.
///
/// - It sends `?WATCH={"enable":true,"json":true};` and turns each TPV report into a
///   ``HAL/LocationFix``.
/// - **No fix is no fix:** TPV modes 0 and 1 become fixes with mode `none` and no coordinates,
///   whatever stale fields the report carries.
/// - **Reconnecting:** when gpsd goes away (restarted, stopped) the stream reports no fix
///   once, then reconnects every `retry` seconds (0.5 by default) until gpsd is back. It
///   does not end: a running gpsd is this device's normal state.
/// - **Silence:** no TPV for `silence` seconds (3 by default) reports no fix once.
///
/// Fixes are stamped with `CLOCK_MONOTONIC` on arrival; `utcNanoseconds` is TPV's `time`.
/// Accuracy is gpsd's `eph` and `epv`, which gpsd documents as estimates of unstated certainty.
public struct GPSDClient: LocationProvider {
    /// The device.
    public let info: DeviceInfo
    /// gpsd's host.
    public let host: String
    /// gpsd's port.
    public let port: UInt16
    /// Seconds between reconnection attempts.
    public var retry: Double
    /// Seconds without a TPV after which the client reports no fix.
    public var silence: Double

    /// Opens the client a `gpsd://HOST:PORT` URI names (query: `retry`, `silence`).
    public init(uri: DeviceURI) throws(DeviceError) {
        let authority = uri.authority ?? ""
        let parts = authority.split(separator: ":")
        guard parts.count <= 2, let port = parts.count == 2 ? UInt16(parts[1]) : 2947 else {
            throw DeviceError(.invalidURI, uri: uri.description, "a gpsd URI is gpsd://HOST[:PORT]")
        }
        host = parts.first.map(String.init) ?? "127.0.0.1"
        self.port = port
        retry = uri.queryValue("retry").flatMap(Double.init) ?? 0.5
        silence = uri.queryValue("silence").flatMap(Double.init) ?? 3
        guard retry >= 0.05, retry <= 3600, silence > 0, silence <= 3600 else {
            throw DeviceError(.invalidURI, uri: uri.description, "retry is 0.05 to 3600 s and silence 0 to 3600 s")
        }
        info = DeviceInfo(uri: uri.description, name: "gpsd at \(host):\(port)", kind: .location, backend: "gpsd")
    }

    /// Starts watching.
    public func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<LocationFix, any Error> {
        let client = self
        return DeviceThread.stream(name: "gpsd " + info.uri, buffering: buffering) { stop, yield in
            client.run(stop: stop, yield: yield)
        }
    }

    private func run(stop: StopFlag, yield: (LocationFix) -> Void) {
        var lastHadFix = false
        func lose() {
            if lastHadFix { yield(.noFix(at: MonotonicClock.now)) }
            lastHadFix = false
        }
        while !stop.isSet {
            guard let descriptor = try? TCPConnection.connect(host: host, port: port, uri: info.uri) else {
                lose()
                usleep(UInt32(retry * 1_000_000))
                continue
            }
            defer { close(descriptor) }
            guard (try? TCPConnection.send(Array(#"?WATCH={"enable":true,"json":true};"#.utf8) + [10], to: descriptor, uri: info.uri)) != nil else {
                continue
            }
            var reader = LineReader(descriptor: descriptor)
            var quiet = 0.0
            reading: while !stop.isSet {
                switch reader.next(timeout: 0.2) {
                case .line(let line):
                    guard let fix = Self.fix(fromJSON: line, at: MonotonicClock.now) else { continue }
                    quiet = 0
                    lastHadFix = fix.mode != .none
                    yield(fix)
                case .timeout:
                    quiet += 0.2
                    if quiet >= silence {
                        lose()
                        quiet = 0
                    }
                case .endOfInput, .failure:
                    lose()
                    break reading
                }
            }
            if !stop.isSet { usleep(UInt32(retry * 1_000_000)) }
        }
    }

    /// A fix from one line of gpsd JSON, or `nil` when the line is not a TPV report.
    public static func fix(fromJSON line: [UInt8], at timestamp: Timestamp) -> LocationFix? {
        guard let report = try? JSONDecoder().decode(TPVReport.self, from: Data(line)), report.class == "TPV" else { return nil }
        let utc = report.time.flatMap(UTCTime.parse)
        let mode = report.mode ?? 0
        guard mode >= 2, let latitude = report.lat, let longitude = report.lon else {
            return .noFix(at: timestamp, utcNanoseconds: utc)
        }
        let threeDimensional = mode == 3
        return LocationFix(
            timestamp: timestamp, utcNanoseconds: utc, mode: threeDimensional ? .threeDimensional : .twoDimensional,
            coordinate: GeoCoordinate(latitude: latitude, longitude: longitude),
            altitude: threeDimensional ? (report.altMSL ?? report.alt) : nil,
            horizontalAccuracy: report.eph, verticalAccuracy: threeDimensional ? report.epv : nil,
            speed: report.speed, course: report.track.map { $0.truncatingRemainder(dividingBy: 360) },
            satellites: nil)
    }

    /// The fields of gpsd's TPV report that a fix takes; a field of another type than gpsd's is left out.
    private struct TPVReport: Decodable {
        var `class`: String?
        var time: String?
        var mode: Int?
        var lat, lon, alt, altMSL, eph, epv, speed, track: Double?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func field<T: Decodable>(_ key: CodingKeys) -> T? { (try? container.decodeIfPresent(T.self, forKey: key)) ?? nil }
            `class` = field(.class)
            time = field(.time)
            mode = field(.mode)
            (lat, lon, alt, altMSL) = (field(.lat), field(.lon), field(.alt), field(.altMSL))
            (eph, epv, speed, track) = (field(.eph), field(.epv), field(.speed), field(.track))
        }

        enum CodingKeys: String, CodingKey { case `class`, time, mode, lat, lon, alt, altMSL, eph, epv, speed, track }
    }
}
