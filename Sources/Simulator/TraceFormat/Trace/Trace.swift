public import HAL

/// A whole trace in memory: the header and every record in file order.
public struct Trace: Sendable, Hashable {
    /// The header.
    public var header: TraceHeader
    /// The records, in file order.
    public var records: [TraceRecord]
    /// The file the trace was read from, for resolving frame paths and for errors.
    public var path: String?
    /// Set when the file's last line was cut off; the records before it are all here.
    public var truncation: TraceError?

    /// Creates a trace from a header and records.
    public init(header: TraceHeader, records: [TraceRecord], path: String? = nil) {
        self.header = header
        self.records = records
        self.path = path
    }

    /// Reads a whole trace file: JSON Lines, or a registered ``TraceContainer``'s (MCAP, once registered), told apart
    /// by the file's first bytes.
    public static func load(path: String) throws(TraceError) -> Trace {
        try load(path: path, progress: { _ in })
    }

    /// ``load(path:)``, calling `progress` with the share of the file read so far (0...1) as it goes, for a
    /// progress line on a large trace.
    public static func load(path: String, progress: (Double) -> Void) throws(TraceError) -> Trace {
        if let container = TraceContainers.container(holding: path) { return try container.load(path: path, from: nil, progress: progress).trace }
        try TraceContainers.refuseUnregistered(reading: path)
        let reader = try TraceReader(path: path)
        let size = Double(max(1, TracePath.fileSize(path) ?? 1))
        var records: [TraceRecord] = []
        while let record = try reader.next() {
            records.append(record)
            if records.count & 0xFFFF == 0 { progress(min(1, Double(reader.bytesRead) / size)) }
        }
        progress(1)
        var trace = Trace(header: reader.header, records: records, path: path)
        trace.truncation = reader.truncation
        return trace
    }

    /// Reads a trace's records from `offset` after its first record on, for a replay that starts there. A container
    /// with an index (MCAP) reads only the chunks from there on; a JSON Lines trace is read whole and the earlier
    /// records left out.
    public static func load(path: String, from offset: Duration) throws(TraceError) -> Trace {
        if let container = TraceContainers.container(holding: path) { return try container.load(path: path, from: offset, progress: { _ in }).trace }
        var trace = try load(path: path)
        trace.dropRecords(before: offset)
        return trace
    }

    /// Leaves out the records earlier than `offset` after the first (all of them when that is past the largest
    /// time), and returns the indices the kept records had.
    @discardableResult
    public mutating func dropRecords(before offset: Duration) -> [Int] {
        guard let start else { return [] }
        let (from, overflow) = start.nanoseconds.addingReportingOverflow(max(0, offset.wholeNanoseconds))
        let kept = overflow ? [] : records.indices.filter { records[$0].timestamp.nanoseconds >= from }
        records = kept.map { records[$0] }
        return kept
    }

    /// Reads a whole trace from bytes.
    public static func decode(_ bytes: [UInt8], file: String? = nil) throws(TraceError) -> Trace {
        let reader = try TraceReader(bytes: bytes, file: file)
        var trace = Trace(header: reader.header, records: try reader.readAll(), path: file)
        trace.truncation = reader.truncation
        return trace
    }

    /// The trace in its canonical JSON Lines form.
    public func encoded() throws(TraceError) -> [UInt8] {
        let encoder = TraceEncoder(header: header)
        var bytes = try encoder.encodeHeader()
        var order = ChannelOrder(header)
        for (offset, record) in records.enumerated() {
            do {
                try order.check(record)
                try encoder.encode(record, into: &bytes)
            } catch {
                throw TraceError(error.kind, file: path, line: offset + 2, field: error.field, error.message)
            }
            order.take(record)
        }
        return bytes
    }

    /// Per-channel figures, for `hal info`.
    public struct ChannelSummary: Sendable, Hashable {
        /// The channel.
        public var channel: TraceChannel
        /// How many records it has.
        public var count: Int
        /// Its first record's time.
        public var first: Timestamp?
        /// Its last record's time.
        public var last: Timestamp?

        /// The measured rate: records per second between the first and the last.
        public var measuredRate: Double? {
            guard let first, let last, count > 1, last > first else { return nil }
            return Double(count - 1) / first.duration(to: last).seconds
        }
    }

    /// Figures for each channel, in header order.
    public var channelSummaries: [ChannelSummary] {
        var summaries = header.channels.map { ChannelSummary(channel: $0, count: 0) }
        for record in records {
            summaries[record.channel].count += 1
            if summaries[record.channel].first == nil { summaries[record.channel].first = record.timestamp }
            summaries[record.channel].last = record.timestamp
        }
        return summaries
    }

    /// The earliest record's time.
    public var start: Timestamp? {
        guard var earliest = records.first?.timestamp else { return nil }
        for index in records.indices where records[index].timestamp < earliest { earliest = records[index].timestamp }
        return earliest
    }

    /// The latest record's time.
    public var end: Timestamp? {
        guard var latest = records.first?.timestamp else { return nil }
        for index in records.indices where records[index].timestamp > latest { latest = records[index].timestamp }
        return latest
    }

    /// The time from the earliest record to the latest.
    public var duration: Duration {
        guard let start, let end else { return .zero }
        return start.duration(to: end)
    }
}
