public import HAL

/// One record of a trace: a reading on a channel.
public struct TraceRecord: Sendable, Hashable {
    /// The index of the record's channel in ``TraceHeader/channels``.
    public var channel: Int
    /// The reading or output.
    public var reading: Reading {
        didSet { recordedAt = reading.timestamp }
    }
    /// The reading's timestamp, kept beside it (``timestamp``).
    @usableFromInline var recordedAt: Timestamp

    /// When the record was produced: the reading's timestamp, kept beside it. A replay orders, filters and delivers
    /// records by time, and reading the time out of a `Reading` copies the whole reading first (one of its cases
    /// holds an existential, so the compiler keeps readings in memory); a stored copy is read in place.
    @inlinable
    public var timestamp: Timestamp { recordedAt }

    /// Creates a record.
    @inlinable
    public init(channel: Int, reading: Reading) {
        self.channel = channel
        self.reading = reading
        self.recordedAt = reading.timestamp
    }

    /// A record of a motion sample, whose time is read off the sample: what trace readers make for most lines.
    @inlinable
    public init(channel: Int, motion sample: MotionSample) {
        self.channel = channel
        self.reading = .motion(sample)
        self.recordedAt = sample.timestamp
    }

    /// Moves the record to `time`, its reading with it.
    public mutating func move(to time: Timestamp) {
        reading.timestamp = time
    }
}
