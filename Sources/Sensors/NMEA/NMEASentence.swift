/// One NMEA 0183 sentence: `$TTSSS,field,field,...*CS`.
public struct NMEASentence: Sendable, Hashable {
    /// The talker, such as `GP` (GPS), `GN` (multi-constellation), `GL`, `GA`, `GB`/`BD`, `GQ`;
    /// `P` for a proprietary sentence.
    public var talker: String
    /// The sentence type, such as `RMC` or `GGA`, or a proprietary sentence's maker and type.
    public var type: String
    /// The fields after the address, without the checksum.
    public var fields: [Substring]

    /// Why a line is not a usable sentence.
    public enum Rejection: String, Error, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// No `$` start: garbage, or binary data between sentences.
        case noStart = "no '$' start"
        /// The checksum does not match the sentence: a corrupted line.
        case badChecksum = "bad checksum"
        /// The line ends before its `*` checksum: a truncated sentence.
        case noChecksum = "no checksum (truncated)"
        /// Bytes that NMEA does not allow (outside printable ASCII).
        case badCharacters = "characters outside printable ASCII"
        /// The address is not a two-letter talker and a sentence type.
        case badAddress = "bad address"
        /// A sentence type this decoder does not use (still well formed).
        case unsupportedType = "unsupported sentence type"
        /// A field that a sentence needs is malformed.
        case badField = "malformed field"

        /// The reason in words.
        public var description: String { rawValue }
    }

    /// Parses one line, checking its checksum. Leading garbage before `$` is skipped;
    /// trailing `\\r`, `\\n` and spaces are ignored.
    public static func parse(_ line: some StringProtocol) -> Result<NMEASentence, Rejection> {
        var text = String(line)
        var fields: [Range<Int>] = []
        return text.withUTF8 { bytes in
            FramedSentence.frame(bytes, fields: &fields).map { framed in
                let string = { (range: Range<Int>) in String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
                let address = string(framed.address)
                let talker = framed.isProprietary ? "P" : String(address.prefix(2))
                return NMEASentence(
                    talker: talker, type: String(address.dropFirst(talker.count)),
                    fields: framed.fields.map { Substring(string($0)) })
            }
        }
    }

    /// The field at `index`, or `nil` when it is absent or empty.
    public subscript(index: Int) -> Substring? {
        index < fields.count && !fields[index].isEmpty ? fields[index] : nil
    }
}
