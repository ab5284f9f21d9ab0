public import TraceFormat
public import HAL
public import NMEA
import FoundationEssentials

/// The location channel of a trace, for the GPS formats and tools.
public struct LocationTrack: Sendable {
    /// The channel's id.
    public var channel: String
    /// Its fixes, in time order.
    public var fixes: [LocationFix]

    /// The location channel named `channel`, or the only location channel of the trace.
    public init(trace: Trace, channel: String? = nil) throws {
        let candidates = trace.header.channels.filter { $0.kind == .location && (channel == nil || $0.id == channel) }
        guard candidates.count == 1, let found = candidates.first, let index = trace.header.channelIndex(of: found.id) else {
            let known = trace.header.channels.filter { $0.kind == .location }.map(\.id).joined(separator: ", ")
            throw TraceError(
                .unknownChannel, file: trace.path, line: 0, field: "ch",
                channel.map { "no location channel '\($0)' (location channels: \(known))" } ?? "name one of the location channels: \(known)")
        }
        self.channel = found.id
        fixes = trace.records.filter { $0.channel == index }.compactMap { LocationFix($0.reading) }
    }

    /// Fixes in a new single-channel trace.
    public init(channel: String, fixes: [LocationFix]) {
        self.channel = channel
        self.fixes = fixes
    }

    /// A trace holding just this track.
    public func trace(source: String, rate: Double? = nil, metadata: [String: String] = [:]) -> Trace {
        let header = TraceHeader(
            channels: [TraceChannel(id: channel, kind: .location, source: source, rate: rate, backend: "file")], metadata: metadata)
        return Trace(header: header, records: fixes.map { TraceRecord(channel: 0, reading: .location($0)) })
    }

    // MARK: GPX

    /// The track as GPX 1.1: one `trk` whose points are the fixes with a position, each with
    /// its elevation, time, satellites and HDOP (accuracy ÷ 5 m, the inverse of the NMEA
    /// decoder's estimate).
    public func gpx(name: String) -> String {
        var text = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        text += #"<gpx version="1.1" creator="swift-sensor-hal" xmlns="http://www.topografix.com/GPX/1/1">"# + "\n"
        text += "  <trk>\n    <name>\(XMLText.escape(name))</name>\n    <trkseg>\n"
        for fix in fixes {
            guard fix.mode != .none, let coordinate = fix.coordinate else { continue }
            // Fixed-point: GPX's xsd:decimal has no exponent, which Swift's shortest form uses near 0.
            text += "      <trkpt lat=\"\(Self.decimal(coordinate.latitude, 9))\" lon=\"\(Self.decimal(coordinate.longitude, 9))\">"
            if let altitude = fix.altitude { text += "<ele>\(Self.decimal(altitude, 3))</ele>" }
            if let utc = fix.utcNanoseconds { text += "<time>\(UTCTime.format(utc))</time>" }
            if let satellites = fix.satellites { text += "<sat>\(satellites)</sat>" }
            if let accuracy = fix.horizontalAccuracy { text += "<hdop>\(((accuracy / NMEAFix.assumedRangeError) * 100).rounded() / 100)</hdop>" }
            text += "</trkpt>\n"
        }
        text += "    </trkseg>\n  </trk>\n</gpx>\n"
        return text
    }

    /// `value` with `places` decimals and trailing zeros removed, never in scientific notation.
    static func decimal(_ value: Double, _ places: Int) -> String {
        var text = NMEAEncoder.fixed(value, places: places, integerDigits: 1)
        while text.contains("."), text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    // MARK: NMEA

    /// The track as an NMEA log: RMC, GGA, GSA (and GST with accuracy) per fix. Fixes without a
    /// UTC time are written at 2000-01-01T00:00:00Z plus their timestamp.
    public func nmea() -> String {
        let encoder = NMEAEncoder()
        return withUTC().fixes.map { encoder.sentences(for: $0).joined() }.joined()
    }

    /// What ``importNMEA(_:channel:)`` read from an NMEA log.
    public struct NMEAImport: Sendable {
        /// A place where the receiver's clock went back: the line of the log where that epoch starts (1-based,
        /// counting every line), and the jump.
        public struct ClockJump: Sendable, Hashable, CustomStringConvertible {
            /// The line where the epoch that went back starts.
            public var line: Int
            /// How far back, and what the timeline did.
            public var jump: EpochTimeline.ClockJump

            /// `line N: the receiver's clock went back …`.
            public var description: String { "line \(line): \(jump)" }
        }

        /// The fixes, one per cycle.
        public var track: LocationTrack
        /// The decoder's counts: sentences used, lines rejected, epochs.
        public var statistics: NMEADecoder.Statistics
        /// Epochs left out: those with no time at all.
        public var skipped: Int
        /// Where the receiver's clock went back; those epochs are kept (``NMEA/EpochTimeline``).
        public var clockJumps: [ClockJump]
    }

    /// Decodes an NMEA log into fixes, one per cycle, placed on an ``NMEA/EpochTimeline``: by UTC time, or by time of
    /// day when the log has no date. Epochs with no time at all are left out and counted; epochs where the
    /// receiver's clock goes back are kept, and each jump is reported with its line.
    ///
    /// Fixes from before the receiver knew the date (time of day only) are kept, and once a later epoch gives the
    /// date, they are given UTC times too: the time of day on the days the timeline places them (`docs/gps.md`).
    public static func importNMEA(_ text: String, channel: String = "gps") -> NMEAImport {
        var decoder = NMEADecoder()
        var timeline = EpochTimeline()
        var fixes: [LocationFix] = []
        // The line where each fix's epoch starts, and where the epoch in progress started.
        var fixLines: [Int] = []
        var epochStart: Int?
        func place(_ epoch: NMEAFix?, startingAt line: Int) {
            guard let epoch, let fix = timeline.fix(for: epoch) else { return }
            fixes.append(fix)
            fixLines.append(line)
        }
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() where !line.hasPrefix("#") {
            let number = index + 1
            if let epoch = decoder.decode(line: line) {
                place(epoch, startingAt: epochStart ?? number)
                epochStart = number
            } else if epochStart == nil, decoder.statistics.decodedCount > 0 {
                epochStart = number
            }
        }
        place(decoder.finish(), startingAt: epochStart ?? 1)
        // The timeline is UTC minus a fixed offset once the date is known, and was continuous before it.
        if let dated = fixes.first(where: { $0.utcNanoseconds != nil }), let utc = dated.utcNanoseconds {
            let offset = utc - dated.timestamp.nanoseconds
            for index in fixes.indices where fixes[index].utcNanoseconds == nil && fixes[index].timestamp < dated.timestamp {
                fixes[index].utcNanoseconds = offset + fixes[index].timestamp.nanoseconds
            }
        }
        return NMEAImport(
            track: LocationTrack(channel: channel, fixes: fixes), statistics: decoder.statistics, skipped: timeline.skipped,
            clockJumps: timeline.clockJumps.map { NMEAImport.ClockJump(line: fixLines[$0.fix], jump: $0) })
    }

    /// The track with a UTC time on every fix: those without one get `base` plus their timestamp
    /// (untimed GPX routes and KML lines), so that NMEA written from them has increasing times.
    public func withUTC(from base: Int64 = 946_684_800_000_000_000) -> LocationTrack {
        var copy = self
        for index in copy.fixes.indices where copy.fixes[index].utcNanoseconds == nil {
            copy.fixes[index].utcNanoseconds = base + copy.fixes[index].timestamp.nanoseconds
        }
        return copy
    }

    // MARK: Privacy

    /// The track with the start and end hidden: fixes are dropped from the beginning until
    /// the route first leaves `radius` metres around its first position, and from the end
    /// back to where it last enters `radius` around its final position. With `decimals`,
    /// coordinates are rounded to that many decimal places (4 is about 11 m).
    public func scrubbed(radius: Double, decimals: Int? = nil) -> LocationTrack {
        let positioned = fixes.indices.filter { fixes[$0].coordinate != nil }
        guard let firstIndex = positioned.first, let lastIndex = positioned.last,
              let start = fixes[firstIndex].coordinate, let end = fixes[lastIndex].coordinate
        else { return self }
        let leave = positioned.first { fixes[$0].coordinate!.distance(to: start) > radius } ?? fixes.count
        let enter = positioned.last { fixes[$0].coordinate!.distance(to: end) > radius }.map { $0 + 1 } ?? 0
        var kept = leave < enter ? Array(fixes[leave..<enter]) : []
        if let decimals {
            var scale = 1.0
            for _ in 0..<decimals { scale *= 10 }
            for index in kept.indices {
                guard let coordinate = kept[index].coordinate else { continue }
                kept[index].coordinate = GeoCoordinate(
                    latitude: (coordinate.latitude * scale).rounded() / scale, longitude: (coordinate.longitude * scale).rounded() / scale)
            }
        }
        return LocationTrack(channel: channel, fixes: kept)
    }
}
