import HAL

/// A trace channel's header fields as an MCAP channel's metadata, and back: `index` (its place in the header),
/// `kind`, `source`, and where the channel has them `units`, `rate`, `name`, `backend`, `range`, `resolution` and
/// `frame`. Numbers are written in their shortest exact decimal form.
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

    /// The channel with id `topic` that `fields` describe, and its place in the header. The header's rules (ids,
    /// units, frames) are checked with the whole header, by ``TraceEncoder``.
    static func channel(topic: String, _ fields: [String: String]) throws(FieldProblem) -> (index: Int, channel: TraceChannel) {
        func required(_ key: String) throws(FieldProblem) -> String {
            guard let value = fields[key] else { throw FieldProblem(field: key, "the channel's metadata has no '\(key)'") }
            return value
        }
        func number(_ key: String) throws(FieldProblem) -> Double? {
            guard let text = fields[key] else { return nil }
            guard let value = Double(text), value.isFinite else { throw FieldProblem(field: key, "'\(text)' is not a finite number") }
            return value
        }
        let indexText = try required("index")
        guard let index = Int(indexText), (0..<maximumChannels).contains(index) else {
            throw FieldProblem(field: "index", "'\(indexText)' is not a channel's place in the header (0...\(maximumChannels - 1))")
        }
        var frame: EarthFrame?
        if let text = fields["frame"] {
            guard let value = EarthFrame(rawValue: text) else { throw FieldProblem(field: "frame", "'\(text)' is not an earth frame") }
            frame = value
        }
        let kindName = try required("kind")
        guard let kind = DeviceKind(rawValue: kindName) else { throw FieldProblem(field: "kind", "'\(kindName)' is not a device kind's name") }
        var channel = TraceChannel(
            id: topic, kind: kind, source: try required("source"),
            rate: try number("rate"), name: fields["name"], backend: fields["backend"], range: try number("range"),
            resolution: try number("resolution"), frame: frame)
        channel.units = fields["units"]
        return (index, channel)
    }

    /// A metadata field that is missing or wrong.
    struct FieldProblem: Error {
        var field: String
        var message: String
        init(field: String, _ message: String) {
            self.field = field
            self.message = message
        }
    }
}
