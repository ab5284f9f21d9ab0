import HAL
import TraceFormat
import Testing

/// Numbers read back exactly as written, through the fast path and the `strtod` fallback alike.
@Suite struct JSONNumberTests {
    static let header = TraceHeader(channels: [TraceChannel(id: "g", kind: .gyroscope, source: "test:g")])

    func roundTrip(_ values: [Double]) throws -> [Double] {
        var records: [TraceRecord] = []
        var index: Int64 = 0
        for chunk in stride(from: 0, to: values.count, by: 3) {
            let v = values[chunk..<min(chunk + 3, values.count)] + [0, 0]
            records.append(TraceRecord(channel: 0, reading: .motion(MotionSample(timestamp: ts(index), quantity: .angularVelocity, value: Vector3(x: v[v.startIndex], y: v[v.startIndex + 1], z: v[v.startIndex + 2])))))
            index += 1
        }
        let decoded = try Trace.decode(try Trace(header: Self.header, records: records).encoded())
        return decoded.records.flatMap { record -> [Double] in
            guard case .motion(let sample) = record.reading else { return [] }
            return [sample.value.x, sample.value.y, sample.value.z]
        }
    }

    @Test func seededRandomDoublesRoundTripBitForBit() throws {
        var generator = SplitMix64(seed: 42)
        var values: [Double] = []
        for _ in 0..<30_000 {
            let bits = generator.next()
            let value = Double(bitPattern: bits)
            if value.isFinite { values.append(value) }
            values.append(Double(Int64(bitPattern: generator.next()) % 2_000_000) / 1_000_003.0)
        }
        while values.count % 3 != 0 { values.append(0) }
        let read = try roundTrip(values)
        #expect(read.count == values.count)
        let mismatches = zip(values, read).filter { $0.bitPattern != $1.bitPattern }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(3))")
    }

    /// Doubles between 2⁻⁶⁰ and 2⁶⁰, where most shortest forms have 16 or 17 digits and a small
    /// power of ten: the double-double path, with `strtod` only near a midpoint.
    @Test func theDoubleDoublePathRoundsLikeStrtod() throws {
        var generator = SplitMix64(seed: 7)
        var values: [Double] = []
        for _ in 0..<150_000 {
            let bits = generator.next()
            let exponent = UInt64(1023 - 60 + Int(bits >> 57) % 121)
            values.append(Double(bitPattern: (bits & 0x800F_FFFF_FFFF_FFFF) | exponent << 52))
        }
        let read = try roundTrip(values)
        let mismatches = zip(values, read).filter { $0.bitPattern != $1.bitPattern }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(3))")
    }

    @Test func edgeValuesRoundTrip() throws {
        let values: [Double] = [
            0, -0.0, 1, -1, 0.1, 0.3, 1e22, 1e23, 9007199254740994, 2.2250738585072014e-308, .leastNonzeroMagnitude,
            1.7976931348623157e308, 1.2345678901234568e29, 0.000001, 9.80665, -123.25293,
        ]
        let read = try roundTrip(values + [0, 0])
        for (value, back) in zip(values, read) { #expect(value.bitPattern == back.bitPattern, "\(value)") }
    }

    /// More than 19 significant digits before the point, then a fraction: the fraction's run found the kept digits
    /// full, and a negative count of digits to take trapped (found by the `trace` fuzz target in CI).
    @Test func longIntegerPartsWithAFractionAreRead() throws {
        let header = String(decoding: try TraceEncoder(header: Self.header).encodeHeader().dropLast(), as: UTF8.self)
        let numbers = ["12345678901234567890.5", "123456789012345678901234.125e-3", "0.00012345678901234567890123", "99999999999999999999.99999"]
        let trace = try decode([header, #"{"t":1,"ch":"g","v":[\#(numbers[0]),\#(numbers[1]),\#(numbers[2])]}"#, #"{"t":2,"ch":"g","v":[\#(numbers[3]),0,0]}"#])
        guard case .motion(let first) = trace.records[0].reading, case .motion(let second) = trace.records[1].reading else {
            Issue.record("no samples")
            return
        }
        #expect([first.value.x, first.value.y, first.value.z, second.value.x] == numbers.map { Double($0)! })
    }

    @Test func handWrittenNumberFormsAreAccepted() throws {
        let header = String(decoding: try TraceEncoder(header: Self.header).encodeHeader().dropLast(), as: UTF8.self)
        let trace = try decode([header, #"{"t":1,"ch":"g","v":[1E2, -0.5e-3 ,  12]}"#, #"{ "ch" : "g" , "v" : [0,0,0] , "t" : 2 }"#])
        guard case .motion(let sample) = trace.records[0].reading else { Issue.record("no sample"); return }
        #expect(sample.value == Vector3(x: 100, y: -0.0005, z: 12))
        #expect(trace.records[1].timestamp.nanoseconds == 2)
    }

    /// Seeded number texts of every shape, right and wrong, read by the scanner alone (the text is the whole
    /// buffer, so the words near its end are taken short) and inside a record: a text the JSON grammar accepts
    /// reads as the double Swift's own parser gives, bit for bit, and any other is refused. This is what keeps the
    /// one-pass path for printed numbers and the long path in agreement.
    @Test func everyNumberShapeReadsLikeTheGrammarAndStrtod() throws {
        var generator = SplitMix64(seed: 2026)
        func digits(_ count: Int, leadingZeroAllowed: Bool) -> String {
            String((0..<count).map { index -> Character in
                let digit = Int(generator.next() % 10)
                return Character(String(index == 0 && !leadingZeroAllowed ? max(1, digit) : digit))
            })
        }
        let grammar = #/-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/#
        let header = String(decoding: try TraceEncoder(header: Self.header).encodeHeader().dropLast(), as: UTF8.self)
        var accepted = 0
        var refused = 0
        for _ in 0..<20_000 {
            var text = generator.next() % 3 == 0 ? "-" : ""
            switch generator.next() % 8 {
            case 0: text += "0"
            case 1: text += "0" + digits(Int(generator.next() % 3), leadingZeroAllowed: true)  // a leading zero, perhaps
            case 2: text += ""  // no integer part
            default: text += digits(1 + Int(generator.next() % 22), leadingZeroAllowed: false)
            }
            if generator.next() % 4 != 0 {
                text += "." + String(repeating: "0", count: Int(generator.next() % 6))
                    + digits(Int(generator.next() % 24), leadingZeroAllowed: true)
            }
            if generator.next() % 5 == 0 {
                text += (generator.next() % 2 == 0 ? "e" : "E") + ["", "+", "-"][Int(generator.next() % 3)]
                    + digits(Int(generator.next() % 4), leadingZeroAllowed: true)
            }
            let valid = text.wholeMatch(of: grammar) != nil && Double(text)!.isFinite
            let alone: Double? = Array(text.utf8).withUnsafeBufferPointer { bytes in
                var reader = JSONScanner(bytes)
                guard let value = try? reader.readDouble(), reader.isAtEnd else { return nil }
                return value
            }
            let line = #"{"t":1,"ch":"g","v":[\#(text),\#(text),\#(text)]}"#
            let inRecord = (try? decode([header, line])).flatMap { trace -> Double? in
                guard case .motion(let sample) = trace.records[0].reading, sample.value.x.bitPattern == sample.value.z.bitPattern
                else { return nil }
                return sample.value.x
            }
            if valid {
                accepted += 1
                #expect(alone?.bitPattern == Double(text)!.bitPattern, "\(text) read alone as \(String(describing: alone))")
                #expect(inRecord?.bitPattern == Double(text)!.bitPattern, "\(text) read in a record as \(String(describing: inRecord))")
            } else {
                refused += 1
                #expect(alone == nil, "\(text) was accepted alone")
                #expect(inRecord == nil, "\(text) was accepted in a record")
            }
        }
        #expect(accepted > 5_000 && refused > 2_000)
    }

    @Test(arguments: [#"[1,2,]"#, #"[01,2,3]"#, #"[1.,2,3]"#, #"[.5,2,3]"#, #"[1,2,NaN]"#, #"[1,2,1e400]"#, #"[+1,2,3]"#, #"[1,2,"3"]"#])
    func malformedNumbersAreRefused(_ vector: String) throws {
        let header = String(decoding: try TraceEncoder(header: Self.header).encodeHeader().dropLast(), as: UTF8.self)
        #expect(throws: TraceError.self) { try decode([header, #"{"t":1,"ch":"g","v":\#(vector)}"#]) }
    }

    @Test func stringsWithEscapesRoundTrip() throws {
        let header = TraceHeader(channels: [TraceChannel(id: "app", kind: .app, source: "test:app")])
        let names = ["tab\there", "quote \" and \\ slash", "snow ☃ and 𝄞", "control \u{01}\u{1F}", "line\nbreak"]
        let records = names.enumerated().map { TraceRecord(channel: 0, reading: .appEvent(AppEvent(timestamp: ts(Int64($0)), name: $1))) }
        #expect(try Trace.decode(try Trace(header: header, records: records).encoded()).records == records)
        let line = String(decoding: try TraceEncoder(header: header).encodeHeader().dropLast(), as: UTF8.self)
        let escaped = try decode([line, #"{"t":1,"ch":"app","event":"\u00e9\ud834\udd1e\/"}"#])
        #expect(AppEvent(escaped.records[0].reading)?.name == "é𝄞/")
        #expect(throws: TraceError.self) { try decode([line, #"{"t":1,"ch":"app","event":"\ud834"}"#]) }
        #expect(throws: TraceError.self) { try decode([line, #"{"t":1,"ch":"app","event":"\q"}"#]) }
    }

    @Test func deepNestingIsBounded() throws {
        let header = String(decoding: try TraceEncoder(header: Self.header).encodeHeader().dropLast(), as: UTF8.self)
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        do {
            _ = try decode([header, #"{"t":1,"ch":"g","v":\#(deep)}"#])
            Issue.record("accepted 10000 levels of nesting")
        } catch {
            #expect(error.kind == .malformedJSON)
            #expect(error.message.contains("nested deeper than 64 levels"))
        }
    }
}

/// A small seeded generator (SplitMix64) so the test's numbers are the same every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
