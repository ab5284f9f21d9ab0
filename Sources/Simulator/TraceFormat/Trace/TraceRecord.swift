public import HAL

/// One record of a trace: a reading on a channel.
public struct TraceRecord: Sendable, Hashable {
    /// The index of the record's channel in ``TraceHeader/channels``.
    public var channel: Int
    /// The reading or output.
    public var reading: Reading

    /// Creates a record.
    @inlinable
    public init(channel: Int, reading: Reading) {
        self.channel = channel
        self.reading = reading
    }

    /// When the record was produced.
    @inlinable
    public var timestamp: Timestamp { reading.timestamp }
}
