/// The sentence types the decoder reads.
public enum SentenceType: String, Sendable, Hashable, CaseIterable {
    /// Recommended minimum: time, status, position, speed, course, date.
    case rmc = "RMC"
    /// Fix data: time, position, quality, satellites, HDOP, altitude.
    case gga = "GGA"
    /// DOP and active satellites: fix type 1/2/3.
    case gsa = "GSA"
    /// Satellites in view.
    case gsv = "GSV"
    /// Course and speed over ground.
    case vtg = "VTG"
    /// Geographic position: latitude, longitude, time, status.
    case gll = "GLL"
    /// GNSS fix data, multi-constellation.
    case gns = "GNS"
    /// Time and date.
    case zda = "ZDA"
    /// Pseudorange error statistics: position error σ.
    case gst = "GST"
    /// GNSS satellite fault detection (RAIM): time and expected position errors.
    case gbs = "GBS"
    /// GNSS range residuals: time.
    case grs = "GRS"
    /// Datum reference: the datum the positions are in.
    case dtm = "DTM"

    /// Whether the sentence type has a UTC time field (GSA, GSV, VTG and DTM do not).
    var carriesTime: Bool { self != .gsa && self != .gsv && self != .vtg && self != .dtm }

    /// Whether the sentence type gives a position (RMC, GGA, GLL, GNS).
    var givesPosition: Bool { self == .rmc || self == .gga || self == .gll || self == .gns }

    /// Whether the sentence type says nothing of the position or of whether there is a fix: ZDA, GST, GBS, GRS, GSV,
    /// VTG and DTM.
    var isAncillary: Bool { !givesPosition && self != .gsa }

    init?(_ a: UInt8, _ b: UInt8, _ c: UInt8) {
        switch (a, b, c) {
        case (82, 77, 67): self = .rmc          // RMC
        case (71, 71, 65): self = .gga          // GGA
        case (71, 83, 65): self = .gsa          // GSA
        case (71, 83, 86): self = .gsv          // GSV
        case (86, 84, 71): self = .vtg          // VTG
        case (71, 76, 76): self = .gll          // GLL
        case (71, 78, 83): self = .gns          // GNS
        case (90, 68, 65): self = .zda          // ZDA
        case (71, 83, 84): self = .gst          // GST
        case (71, 66, 83): self = .gbs          // GBS
        case (71, 82, 83): self = .grs          // GRS
        case (68, 84, 77): self = .dtm          // DTM
        default: return nil
        }
    }
}

/// One line's sentence, located in its bytes: where the address and each field are.
/// Framing checks the start, the characters and the checksum in one pass, without copying.
struct FramedSentence {
    let bytes: UnsafeBufferPointer<UInt8>
    /// The address (talker and type, or `P` and a maker's type).
    var address: Range<Int>
    /// Each field's bytes, in order; reused from line to line.
    var fields: [Range<Int>]

    /// Whether anything but spaces came before the sentence's `$`: noise, a doubled `$`, or the start of a sentence
    /// cut off by this one. The sentence is read from the last `$` before its checksum, as a receiver's stream is
    /// resynchronised.
    var resynchronised = false

    /// Frames a line, reusing `fields`' storage. The sentence starts at the last `$` before the checksum.
    static func frame(_ bytes: UnsafeBufferPointer<UInt8>, fields: inout [Range<Int>]) -> Result<FramedSentence, NMEASentence.Rejection> {
        var first = 0
        while first < bytes.count, bytes[first] != UInt8(ascii: "$") { first += 1 }
        guard first < bytes.count else { return .failure(.noStart) }
        var end = bytes.count
        while end > first, bytes[end - 1] == 13 || bytes[end - 1] == 10 || bytes[end - 1] == 32 { end -= 1 }
        let star = end - 3
        guard star > first, bytes[star] == UInt8(ascii: "*"), let high = hex(bytes[star + 1]), let low = hex(bytes[star + 2]) else {
            return .failure(.noChecksum)
        }
        let start = first
        fields.removeAll(keepingCapacity: true)
        var checksum: UInt8 = 0
        var fieldStart = start + 1
        var addressEnd: Int?
        var index = start + 1
        while index < star {
            let byte = bytes[index]
            // One test on the common path: a printable byte other than `$`.
            if byte &- 0x20 >= 0x5F || byte == UInt8(ascii: "$") {
                // A later `$`, or a byte NMEA does not allow: read again from the last `$` (rare, off the fast path).
                return resynchronise(bytes, first: first, star: star, fields: &fields)
            }
            checksum ^= byte
            if byte == UInt8(ascii: ",") {
                if addressEnd == nil { addressEnd = index } else { fields.append(fieldStart..<index) }
                fieldStart = index + 1
            }
            index += 1
        }
        if addressEnd == nil { addressEnd = star } else { fields.append(fieldStart..<star) }
        let address = (start + 1)..<addressEnd!
        guard checksum == high << 4 | low else { return .failure(.badChecksum) }
        for position in address {
            let byte = bytes[position]
            guard (65...90).contains(byte) || (48...57).contains(byte) else { return .failure(.badAddress) }
        }
        guard address.count == 5 || (address.count >= 2 && bytes[address.lowerBound] == UInt8(ascii: "P")) else {
            return .failure(.badAddress)
        }
        return .success(FramedSentence(bytes: bytes, address: address, fields: fields, resynchronised: (0..<first).contains { bytes[$0] > 32 }))
    }

    /// Frames a line whose bytes after its first `$` hold another `$` or a byte NMEA does not allow: from the last `$`
    /// before the checksum, when there is one after `first`, and counted as resynchronised; else refused.
    private static func resynchronise(
        _ bytes: UnsafeBufferPointer<UInt8>, first: Int, star: Int, fields: inout [Range<Int>]
    ) -> Result<FramedSentence, NMEASentence.Rejection> {
        var last = star - 1
        while last > first, bytes[last] != UInt8(ascii: "$") { last -= 1 }
        guard last > first else { return .failure(.badCharacters) }
        // The bytes from the last `$` on hold no other `$`, so this reads them in one pass.
        let tail = UnsafeBufferPointer(rebasing: bytes[last...])
        return frame(tail, fields: &fields).map { sentence in
            var sentence = sentence
            sentence.shift(by: last, in: bytes)
            sentence.resynchronised = true
            return sentence
        }
    }

    /// The sentence as framed in `bytes`, whose slice from `offset` it was framed in.
    private mutating func shift(by offset: Int, in bytes: UnsafeBufferPointer<UInt8>) {
        self = FramedSentence(
            bytes: bytes, address: (address.lowerBound + offset)..<(address.upperBound + offset),
            fields: fields.map { ($0.lowerBound + offset)..<($0.upperBound + offset) }, resynchronised: true)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }

    /// Whether the sentence is proprietary (`$P…`).
    var isProprietary: Bool { address.count != 5 }

    /// The two-letter talker, as bytes.
    var talker: (UInt8, UInt8) { (bytes[address.lowerBound], bytes[address.lowerBound + 1]) }

    /// The sentence type, if it is one the decoder reads.
    var type: SentenceType? {
        isProprietary ? nil : SentenceType(bytes[address.lowerBound + 2], bytes[address.lowerBound + 3], bytes[address.lowerBound + 4])
    }

    /// The field at `index`, or `nil` when absent or empty.
    @inline(__always)
    func field(_ index: Int) -> Range<Int>? {
        index < fields.count && !fields[index].isEmpty ? fields[index] : nil
    }

    /// Whether the field at `index` is exactly the one character `character`.
    @inline(__always)
    func field(_ index: Int, is character: UInt8) -> Bool {
        guard let range = field(index) else { return false }
        return range.count == 1 && bytes[range.lowerBound] == character
    }

    // MARK: Numbers

    /// A decimal number (`-12.345`), parsed exactly for up to 15 significant digits.
    func double(_ range: Range<Int>) -> Double? {
        decimal(range, signed: true)
    }

    /// A decimal number without a sign (the seconds of a time, the minutes of an angle).
    func unsignedDouble(_ range: Range<Int>) -> Double? {
        decimal(range, signed: false)
    }

    @inline(__always)
    private func decimal(_ range: Range<Int>, signed: Bool) -> Double? {
        var index = range.lowerBound
        var negative = false
        if signed, index < range.upperBound, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0
        var seenPoint = false
        var seenDigit = false
        while index < range.upperBound {
            let byte = bytes[index]
            if byte &- 48 < 10 {
                seenDigit = true
                if digits < 18 {
                    mantissa = mantissa * 10 + UInt64(byte - 48)
                    if mantissa > 0 { digits += 1 }
                    if seenPoint { scale += 1 }
                } else if !seenPoint {
                    return nil
                }
            } else if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else {
                return nil
            }
            index += 1
        }
        guard seenDigit else { return nil }
        let value = scale < Self.powersOfTen.count ? Double(mantissa) / Self.powersOfTen[scale] : Double(mantissa) * pow10(-scale)
        return negative ? -value : value
    }

    private static let powersOfTen: [Double] = (0...22).map { power in (0..<power).reduce(1.0) { value, _ in value * 10 } }

    private func pow10(_ exponent: Int) -> Double {
        var value = 1.0
        for _ in 0..<abs(exponent) { value *= 10 }
        return exponent < 0 ? 1 / value : value
    }

    /// A whole number of at most 9 digits.
    func int(_ range: Range<Int>) -> Int? {
        guard !range.isEmpty, range.count <= 9 else { return nil }
        var value = 0
        for index in range {
            let digit = bytes[index] &- 48
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }

    /// `count` digits at `start` as a number.
    func digits(_ start: Int, _ count: Int) -> Int? {
        int(start..<(start + count))
    }
}
