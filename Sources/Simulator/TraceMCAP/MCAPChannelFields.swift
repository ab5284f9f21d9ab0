import TraceFormat
import HAL

/// A trace channel's header fields as an MCAP channel's metadata: `index` (its place in the header, which the reader
/// uses), and for people and tools `kind`, `source`, and where the channel has them `units`, `rate`, `name`,
/// `backend`, `range`, `resolution` and `frame`, numbers in their shortest exact decimal form. The header itself is
/// read from the `hal-trace` Metadata record.
enum MCAPChannelFields {
    /// The most channels a trace in MCAP has: each may take two MCAP channels (a camera's raw and encoded frames),
    /// and MCAP's channel ids are 16-bit.
    static let maximumChannels = 4096

    static func metadata(_ channel: TraceChannel, index: Int) -> [String: String] {
        var fields = ["index": String(index), "kind": channel.kind.rawValue, "source": channel.source]
        fields["units"] = channel.units
        fields["rate"] = channel.rate?.description
        fields["name"] = channel.name
        fields["backend"] = channel.backend
        fields["range"] = channel.range?.description
        fields["resolution"] = channel.resolution?.description
        fields["frame"] = channel.frame?.rawValue
        return fields
    }
}
