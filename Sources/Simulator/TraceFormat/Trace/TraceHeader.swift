/// The first line of a trace: the format, its version, the channels, and free-form metadata.
public struct TraceHeader: Sendable, Hashable {
    /// The value of the header's `format` field.
    public static let formatName = "hal-trace"
    /// The newest version this package reads and the one it writes.
    public static let currentVersion = 1

    /// The format version of the file.
    public var version: Int
    /// The channels, in the order records refer to them by index.
    public var channels: [TraceChannel]
    /// Free-form text metadata, such as a title or the script that made the trace. Written sorted by key.
    public var metadata: [String: String]

    /// Creates a header at the current version.
    public init(channels: [TraceChannel], metadata: [String: String] = [:]) {
        self.version = Self.currentVersion
        self.channels = channels
        self.metadata = metadata
    }

    /// The index of the channel with id `id`.
    public func channelIndex(of id: String) -> Int? {
        channels.firstIndex { $0.id == id }
    }
}
