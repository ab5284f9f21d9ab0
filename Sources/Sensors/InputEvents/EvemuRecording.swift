import HAL

/// An evemu recording (`# EVEMU 1.2` or `1.3`, what `evemu-record` writes): a device's
/// description followed by its events.
///
/// The header lines are `N:` (name), `I:` (bus, vendor, product, version in hex), `P:`
/// (property bitmask bytes), `B:` (an event type, then its code bitmask bytes), `A:` (axis code in
/// hex, then minimum, maximum, fuzz, flat and, from 1.3, resolution) and `L:`/`S:` (LED and switch
/// state, ignored). Each `E: SECONDS.MICROSECONDS TYPE CODE VALUE` line is an event, type and code in
/// hex and value in decimal. `#` starts a comment.
public struct EvemuRecording: Sendable {
    /// The device.
    public var device: InputDeviceDescription
    /// The events, in file order, with their recorded timestamps.
    public var events: [InputEvent]

    /// Parses a recording; `file` names it in errors.
    public init(text: String, file: String) throws(EvemuError) {
        var device = InputDeviceDescription(name: "")
        var events: [InputEvent] = []
        var sawVersion = false
        var propertyBytes: [UInt8] = []
        var typeBytes: [UInt16: [UInt8]] = [:]
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine[...]
            func fail(_ field: String, _ message: String) -> EvemuError {
                EvemuError(file: file, line: lineNumber, field: field, message: message)
            }
            if line.hasPrefix("# EVEMU ") {
                let version = line.dropFirst("# EVEMU ".count).trimmingSpaces()
                guard version == "1.2" || version == "1.3" else { throw fail("version", "evemu format '\(version)' is not read (1.2 and 1.3 are)") }
                sawVersion = true
                continue
            }
            let content = line.prefix { $0 != "#" }
            guard let colon = content.firstIndex(of: ":") else {
                if content.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
                throw fail("line", "expected 'X: …' (N, I, P, B, A, L, S or E), found '\(line.prefix(40))'")
            }
            let tag = content[..<colon].trimmingSpaces()
            let rest = content[content.index(after: colon)...]
            let fields = rest.split(whereSeparator: { $0 == " " || $0 == "\t" })
            switch tag {
            case "N":
                device.name = String(rest.trimmingSpaces())
            case "I":
                let values = fields.compactMap { UInt16($0, radix: 16) }
                guard fields.count == 4, values.count == 4 else {
                    throw fail("I", "expected bus, vendor, product and version as four hex numbers")
                }
                (device.bus, device.vendor, device.product, device.version) = (values[0], values[1], values[2], values[3])
            case "P":
                for field in fields {
                    guard let byte = UInt8(field, radix: 16) else { throw fail("P", "'\(field)' is not a hex byte") }
                    propertyBytes.append(byte)
                }
            case "B":
                guard let first = fields.first, let type = UInt16(first, radix: 16), type <= InputCode.Event.max else {
                    throw fail("B", "expected an event type (hex, at most 1f) then bitmask bytes")
                }
                for field in fields.dropFirst() {
                    guard let byte = UInt8(field, radix: 16) else { throw fail("B", "'\(field)' is not a hex byte") }
                    typeBytes[type, default: []].append(byte)
                }
            case "A":
                guard fields.count == 5 || fields.count == 6, let code = UInt16(fields[0], radix: 16), code <= InputCode.Absolute.max else {
                    throw fail("A", "expected an axis code (hex) then minimum, maximum, fuzz, flat and resolution")
                }
                var numbers: [Int32] = []
                for (name, field) in zip(["minimum", "maximum", "fuzz", "flat", "resolution"], fields.dropFirst()) {
                    guard let number = Int32(field) else { throw fail("A.\(name)", "'\(field)' is not a whole number") }
                    numbers.append(number)
                }
                device.axes[code] = AbsoluteAxis(
                    minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2], flat: numbers[3],
                    resolution: numbers.count > 4 ? numbers[4] : 0)
            case "L", "S":
                break
            case "E":
                guard fields.count == 4 else { throw fail("E", "expected SECONDS.MICROSECONDS TYPE CODE VALUE") }
                guard let time = Self.timestamp(fields[0]) else { throw fail("E.time", "'\(fields[0])' is not SECONDS.MICROSECONDS") }
                guard let type = UInt16(fields[1], radix: 16) else { throw fail("E.type", "'\(fields[1])' is not a hex event type") }
                guard let code = UInt16(fields[2], radix: 16) else { throw fail("E.code", "'\(fields[2])' is not a hex event code") }
                guard let value = Int32(fields[3]) else { throw fail("E.value", "'\(fields[3])' is not a whole number") }
                if let last = events.last, time < last.timestamp {
                    throw fail("E.time", "time goes backwards, from \(last.timestamp) s to \(time) s")
                }
                events.append(InputEvent(timestamp: time, type: type, code: code, value: value))
            default:
                throw fail(String(tag), "unknown line kind '\(tag):'")
            }
        }
        guard sawVersion else {
            throw EvemuError(file: file, line: 1, field: "version", message: "not an evemu recording: the '# EVEMU 1.3' line is missing")
        }
        guard !device.name.isEmpty else {
            throw EvemuError(file: file, line: lineNumber, field: "N", message: "the recording names no device (no 'N:' line)")
        }
        device.properties = Self.bits(propertyBytes)
        for (type, bytes) in typeBytes where type != InputCode.Event.synchronization {
            device.codes[type] = Self.bits(bytes)
        }
        for code in device.axes.keys { device.codes[InputCode.Event.absolute, default: []].insert(code) }
        self.device = device
        self.events = events
    }

    private static func bits(_ bytes: [UInt8]) -> Set<UInt16> {
        var set: Set<UInt16> = []
        for (index, byte) in bytes.enumerated() {
            for bit in 0..<8 where byte & (1 << bit) != 0 { set.insert(UInt16(index * 8 + bit)) }
        }
        return set
    }

    /// `SECONDS.MICROSECONDS` as a timestamp; the fraction is read as decimal digits, so `1.010000` is 1.01 s.
    private static func timestamp(_ text: Substring) -> Timestamp? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let seconds = Int64(parts[0]), seconds >= 0,
              parts[1].count == 6, let micros = Int64(parts[1]), micros >= 0
        else { return nil }
        // Seconds that do not fit 64-bit nanoseconds are refused, not a trap (found by scripts/fuzz).
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow, case (let total, false) = whole.addingReportingOverflow(micros * 1000) else { return nil }
        return Timestamp(nanoseconds: total)
    }
}

/// A line of an evemu recording that cannot be read: the file, the line, the field, and why.
public struct EvemuError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// The 1-based line.
    public var line: Int
    /// The field, such as `A.maximum` or `E.time`.
    public var field: String
    /// What is wrong.
    public var message: String

    /// `file:line: field: message`.
    public var description: String { "\(file):\(line): \(field): \(message)" }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
