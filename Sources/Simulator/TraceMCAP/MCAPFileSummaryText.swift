import HAL
public import MCAP

extension MCAPFileSummary {
    /// The summary as `hal info` prints it for an MCAP file that holds no trace, one figure a line: the library and
    /// profile, the messages, their time range (UTC and nanoseconds since 1970) and duration, the chunks by
    /// compression with their sizes, each channel by id with its message count, its rate over the file's time range,
    /// its schema and message encoding, then the attachments and the metadata records.
    public var text: String {
        var lines: [String] = []
        func line(_ label: String, _ value: String) { lines.append(Self.pad(label + ":", 13) + value) }
        line("library", library.isEmpty ? "-" : library)
        line("profile", profile.isEmpty ? "-" : profile)
        if source == .scan { line("summary", "none, or without statistics or an index: figures from a scan of the data section") }
        line("messages", String(messageCount))
        if let timeRange, let duration {
            line("start", Self.time(timeRange.lowerBound))
            line("end", Self.time(timeRange.upperBound))
            line("duration", "\(Self.seconds(duration)) (\(duration) ns)")
        }
        line("chunks", String(chunkCount))
        let nameWidth = compressions.map { Self.compressionName($0.name).count + 1 }.max() ?? 0
        for compression in compressions {
            var text = "  \(Self.pad(Self.compressionName(compression.name) + ":", nameWidth)) \(Self.counted(compression.chunkCount, "chunk")), "
            if compression.name.isEmpty {
                text += "\(compression.uncompressedSize) bytes"
            } else {
                text += "\(compression.compressedSize) bytes compressed from \(compression.uncompressedSize)"
                if compression.uncompressedSize > 0 {
                    text += " (\(format3(100 * Double(compression.compressedSize) / Double(compression.uncompressedSize))) %)"
                }
            }
            lines.append(text)
        }
        line("channels", String(channels.count))
        let idWidth = channels.map { "(\($0.id))".count }.max() ?? 0
        let topicWidth = channels.map(\.topic.count).max() ?? 0
        let countWidth = channels.map { String($0.messageCount).count }.max() ?? 0
        for channel in channels {
            let count = String(channel.messageCount)
            var text = "  \(Self.pad("(\(channel.id))", idWidth)) \(Self.pad(channel.topic, topicWidth))  "
                + String(repeating: " ", count: countWidth - count.count) + count + " msgs"
            if let frequency = frequency(of: channel) { text += " (\(format3(frequency)) Hz)" }
            text += "  schema " + (channel.schemaName.map { "\($0) [\(channel.schemaEncoding ?? "")]" } ?? "none")
            text += "  messages \(channel.messageEncoding)"
            lines.append(text)
        }
        line("attachments", String(attachments.count))
        let attachmentWidth = attachments.map(\.name.count).max() ?? 0
        for attachment in attachments {
            lines.append("  \(Self.pad(attachment.name, attachmentWidth))  \(attachment.mediaType)  \(attachment.size) bytes  log time \(attachment.logTime) ns")
        }
        line("metadata", String(metadataNames.count))
        for name in metadataNames { lines.append("  \(name)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `zstd`, `lz4`, or `none` for the empty name.
    private static func compressionName(_ name: String) -> String { name.isEmpty ? "none" : name }

    /// A log time as UTC and as nanoseconds: `1970-01-01T00:00:01.39Z (1390000000 ns)`.
    private static func time(_ nanoseconds: UInt64) -> String {
        guard let signed = Int64(exactly: nanoseconds) else { return "\(nanoseconds) ns" }
        return "\(UTCTime.format(signed)) (\(nanoseconds) ns)"
    }

    /// A duration in seconds, with as many decimals as it needs (up to 9), and in hours and minutes from a minute on:
    /// `0.39 s`, `3723.5 s = 1 h 2 min 3.5 s`.
    private static func seconds(_ nanoseconds: UInt64) -> String {
        func text(_ nanoseconds: UInt64) -> String {
            var fraction = String(nanoseconds % 1_000_000_000)
            fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            return "\(nanoseconds / 1_000_000_000)" + (fraction.isEmpty ? "" : "." + fraction) + " s"
        }
        let whole = nanoseconds / 1_000_000_000
        guard whole >= 60 else { return text(nanoseconds) }
        let hours = whole / 3600, minutes = whole / 60 % 60
        let rest = text(nanoseconds - (hours * 3600 + minutes * 60) * 1_000_000_000)
        return text(nanoseconds) + " = " + (hours > 0 ? "\(hours) h " : "") + "\(minutes) min " + rest
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private static func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}
