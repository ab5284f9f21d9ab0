public import HAL

/// One record of a trace: a reading on a channel.
public struct TraceRecord: Sendable, Hashable {
    /// The index of the record's channel in ``TraceHeader/channels``.
    public var channel: Int
    /// The reading or output.
    public var reading: Reading {
        _read { yield stored }
        _modify {
            yield &stored
            timestamp = stored.timestamp
        }
    }
    private var stored: Reading
    /// When the record was produced: the reading's timestamp, kept beside it. A replay orders, filters and delivers
    /// records by time, and reading the time out of a `Reading` copies the whole reading first (one of its cases
    /// holds an existential, so the compiler keeps readings in memory); a stored copy is read in place.
    public private(set) var timestamp: Timestamp

    /// Creates a record.
    public init(channel: Int, reading: Reading) {
        self.channel = channel
        self.stored = reading
        self.timestamp = reading.timestamp
    }

    /// Moves the record to `time`, its reading with it.
    public mutating func move(to time: Timestamp) {
        stored.timestamp = time
        timestamp = time
    }
}
