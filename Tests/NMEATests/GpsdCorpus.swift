import Foundation
import HAL
import NMEA

/// One of gpsd's regression logs, with what gpsd reported for it.
struct GpsdLog {
    /// gpsd's final TPV of an epoch.
    struct Report {
        var time: Int64
        var mode: Int
        var latitude: Double?
        var longitude: Double?
        var altitudeMSL: Double?
    }

    /// One TPV of gpsd's with a position (mode 2 or 3): what ``GpsdPositionAgreement`` counts.
    struct Position {
        /// Its time, when gpsd gave one (nil before the receiver knew the date).
        var time: Int64?
        var latitude: Double
        var longitude: Double
    }

    var name: String
    var lines: [String]
    /// Every TPV of gpsd's with a latitude, a longitude and mode 2 or 3, in order: one per cycle gpsd reported, and
    /// again for each later sentence of that cycle.
    var positions: [Position] = []
    /// gpsd's last TPV for each time, in order.
    var reports: [Report]
    /// gpsd's TPVs with a position but no time (epochs before the receiver knew the date), the last of each run of
    /// one position, in order. Their `time` is 0.
    var datelessReports: [Report] = []

    /// gpsd's regression logs from real receivers.
    static let folder = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/gpsd-nmea")
    /// Logs written for this package (`make-logs.py`), one per way a receiver reports a fix, with gpsd's reports.
    static let receiverFolder = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/receivers")

    /// Every log of gpsd's in the project: fourteen NMEA logs of its regression suite.
    static var names: [String] { names(in: folder) }
    static var receiverNames: [String] { names(in: receiverFolder) }

    static func names(in folder: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.filter { $0.hasSuffix(".log") }.sorted() ?? []
    }

    init(_ name: String, in folder: URL = Self.folder) throws {
        self.name = name
        let raw = try Data(contentsOf: folder.appendingPathComponent(name))
        lines = String(decoding: raw, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.hasPrefix("#") }
        var byTime: [Int64: Report] = [:]
        var order: [Int64] = []
        let check = try String(contentsOf: folder.appendingPathComponent(name + ".chk"), encoding: .utf8)
        for line in check.split(whereSeparator: \.isNewline) where line.hasPrefix(#"{"class":"TPV""#) {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            if let latitude = object["lat"] as? Double, let longitude = object["lon"] as? Double, object["mode"] as? Int ?? 0 >= 2 {
                positions.append(Position(time: (object["time"] as? String).flatMap(Self.parseTime), latitude: latitude, longitude: longitude))
            }
            guard let text = object["time"] as? String, let time = Self.parseTime(text) else {
                if let latitude = object["lat"] as? Double, let longitude = object["lon"] as? Double {
                    let report = Report(
                        time: 0, mode: object["mode"] as? Int ?? 0, latitude: latitude, longitude: longitude,
                        altitudeMSL: object["altMSL"] as? Double)
                    if let last = datelessReports.last, last.latitude == latitude, last.longitude == longitude { datelessReports.removeLast() }
                    datelessReports.append(report)
                }
                continue
            }
            let mode = object["mode"] as? Int ?? 0
            // When the fix is lost gpsd reports mode 1 still stamped with the last valid time;
            // that report belongs to the next (no-fix) epoch, not to this time.
            if let earlier = byTime[time], earlier.mode > 1, mode == 1 { continue }
            if byTime[time] == nil { order.append(time) }
            byTime[time] = Report(
                time: time, mode: object["mode"] as? Int ?? 0, latitude: object["lat"] as? Double,
                longitude: object["lon"] as? Double, altitudeMSL: object["altMSL"] as? Double)
        }
        reports = order.map { byTime[$0]! }
    }

    /// Our fixes by UTC time, the last cycle of each time, and those without one (no date yet) in order. As with
    /// gpsd's reports, a no-fix cycle after one with a position at the same time (the receiver lost its fix before
    /// the next time) does not replace it.
    func decoded() -> (fixes: [Int64: NMEAFix], dateless: [NMEAFix], decoder: NMEADecoder) {
        var decoder = NMEADecoder()
        var fixes: [Int64: NMEAFix] = [:]
        var dateless: [NMEAFix] = []
        func take(_ fix: NMEAFix?) {
            guard let fix else { return }
            guard let time = fix.utcNanoseconds else { return dateless.append(fix) }
            if fix.mode == .none, let earlier = fixes[time], earlier.mode != .none { return }
            fixes[time] = fix
        }
        for line in lines { take(decoder.decode(line: line)) }
        take(decoder.finish())
        return (fixes, dateless, decoder)
    }

    static func parseTime(_ text: String) -> Int64? {
        UTCTime.parse(text)
    }
}
