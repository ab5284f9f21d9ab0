/// One NMEA 0183 sentence: `$TTSSS,field,field,...*CS`.
public struct NMEASentence: Sendable, Hashable {
    /// The talker, such as `GP` (GPS), `GN` (multi-constellation), `GL`, `GA`, `GB`/`BD`, `GQ`.
    public var talker: String
    /// The sentence type, such as `RMC` or `GGA`.
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
    /// trailing `\r` and spaces are ignored.
    public static func parse(_ line: some StringProtocol) -> Result<NMEASentence, Rejection> {
        let bytes = Array(line.utf8)
        guard let start = bytes.firstIndex(of: UInt8(ascii: "$")) else { return .failure(.noStart) }
        var end = bytes.count
        while end > start, [UInt8(ascii: "\r"), UInt8(ascii: "\n"), UInt8(ascii: " ")].contains(bytes[end - 1]) { end -= 1 }
        guard let star = bytes[start..<end].lastIndex(of: UInt8(ascii: "*")), end - star == 3 else {
            return .failure(.noChecksum)
        }
        var checksum: UInt8 = 0
        for byte in bytes[(start + 1)..<star] {
            guard byte >= 0x20, byte < 0x7F else { return .failure(.badCharacters) }
            checksum ^= byte
        }
        guard let expected = UInt8(String(decoding: bytes[(star + 1)..<end], as: UTF8.self), radix: 16) else {
            return .failure(.noChecksum)
        }
        guard expected == checksum else { return .failure(.badChecksum) }
        let body = String(decoding: bytes[(start + 1)..<star], as: UTF8.self)
        let parts = body.split(separator: ",", omittingEmptySubsequences: false)
        let address = parts[0]
        guard address.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else { return .failure(.badAddress) }
        // Proprietary sentences ($PSRF…, $PSTI…) have the talker "P" and a maker's type;
        // everything else has a two-letter talker and a three-letter type.
        if address.first == "P", address.count >= 2 {
            return .success(NMEASentence(talker: "P", type: String(address.dropFirst()), fields: Array(parts.dropFirst())))
        }
        guard address.count == 5 else { return .failure(.badAddress) }
        let talker = String(address.prefix(2))
        return .success(NMEASentence(talker: talker, type: String(address.dropFirst(2)), fields: Array(parts.dropFirst())))
    }

    /// The field at `index`, or `nil` when it is absent or empty.
    public subscript(index: Int) -> Substring? {
        index < fields.count && !fields[index].isEmpty ? fields[index] : nil
    }
}
