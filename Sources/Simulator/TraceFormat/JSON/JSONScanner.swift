import LibC
/// What ``JSONScanner`` tells about a number as it walks it.
protocol NumberSink {
    var range: Range<Int> { get set }
    var negative: Bool { get set }
    var exponent: Int { get set }
    var isInteger: Bool { get set }
    /// Takes a run of digits, `bytes[run]`, of the integer part or (`fractional`) of the fraction.
    mutating func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ run: Range<Int>, fractional: Bool)
}

/// A strict RFC 8259 scanner over the bytes of one JSON text, such as one trace line.
///
/// It reads values in place, without building a tree, so a trace record costs no
/// allocation beyond the strings it keeps. Callers drive it: ``objectFields(into:)``
/// lists an object's members as byte ranges, and the `read` methods decode one value.
package struct JSONScanner {
    /// The bytes being scanned; the caller keeps them alive.
    package let bytes: UnsafeBufferPointer<UInt8>
    /// The index of the next byte to read.
    package var position: Int
    /// How deeply nested arrays and objects may be.
    package static let maximumDepth = 64

    package init(_ bytes: UnsafeBufferPointer<UInt8>, position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    /// A scanner over one value's bytes, found earlier by ``objectFields(into:)``.
    package init(_ bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>) {
        self.bytes = UnsafeBufferPointer(rebasing: bytes[..<range.upperBound])
        self.position = range.lowerBound
    }

    package func error(_ message: String, at index: Int? = nil) -> JSONSyntaxError {
        JSONSyntaxError(column: (index ?? position) + 1, message)
    }

    package var isAtEnd: Bool { position >= bytes.count }

    package mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): position += 1
            default: return
            }
        }
    }

    package mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < bytes.count ? bytes[position] : nil
    }

    package mutating func expect(_ byte: UInt8, _ what: @autoclosure () -> String) throws(JSONSyntaxError) {
        guard peek() == byte else {
            throw isAtEnd ? error("unexpected end of line, expected \(what())") : error("expected \(what())")
        }
        position += 1
    }

    /// Checks that nothing but whitespace follows the value.
    package mutating func expectEnd() throws(JSONSyntaxError) {
        if peek() != nil { throw error("unexpected text after the JSON value") }
    }

    // MARK: Objects

    /// One member of an object: where its key and value are.
    package struct Field {
        /// The key's bytes, without quotes; raw escapes are kept when `keyHasEscapes`.
        package var key: Range<Int>
        package var keyHasEscapes: Bool
        /// The value's bytes, for a nested scanner.
        package var value: Range<Int>
    }

    /// Reads an object, validating every value, and lists its members.
    package mutating func objectFields(into fields: inout [Field], depth: Int = 0) throws(JSONSyntaxError) {
        fields.removeAll(keepingCapacity: true)
        try scanObject(depth: depth) { fields.append($0) }
    }

    /// Reads an object, validating every value, and hands each member to `member`.
    private mutating func scanObject(depth: Int, _ member: (Field) -> Void) throws(JSONSyntaxError) {
        try expect(UInt8(ascii: "{"), "'{' to start an object")
        if peek() == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            guard peek() == UInt8(ascii: "\"") else {
                throw isAtEnd ? error("unexpected end of line inside an object") : error("expected a quoted field name")
            }
            let (key, hasEscapes) = try stringBytes()
            try expect(UInt8(ascii: ":"), "':' after a field name")
            skipWhitespace()
            let valueStart = position
            try skipValue(depth: depth + 1)
            member(Field(key: key, keyHasEscapes: hasEscapes, value: valueStart..<position))
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return
            case nil: throw error("unexpected end of line inside an object")
            default: throw error("expected ',' or '}' in an object")
            }
        }
    }

    /// Whether a field's key is exactly `name`.
    @inline(__always)
    package func key(_ field: Field, is name: StaticString) -> Bool {
        key(field, equals: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }

    /// Whether a field's key is exactly `name`.
    package func key(_ field: Field, is name: String) -> Bool {
        var name = name
        return name.withUTF8 { key(field, equals: $0) }
    }

    @inline(__always)
    private func key(_ field: Field, equals name: UnsafeBufferPointer<UInt8>) -> Bool {
        if field.keyHasEscapes {
            return (try? decodeString(field.key)).map { Array($0.utf8) == Array(name) } ?? false
        }
        return sameBytes(field.key, name)
    }

    /// Whether the bytes in `range` are exactly `other`.
    @inline(__always)
    package func sameBytes(_ range: Range<Int>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        range.count == other.count && memcmp(bytes.baseAddress! + range.lowerBound, other.baseAddress!, range.count) == 0
    }

    /// The key of a field as a string.
    package func keyString(_ field: Field) -> String {
        (try? decodeString(field.key)) ?? String(decoding: UnsafeBufferPointer(rebasing: bytes[field.key]), as: UTF8.self)
    }

    // MARK: Skipping

    /// Reads past one value of any type, validating it.
    package mutating func skipValue(depth: Int = 0) throws(JSONSyntaxError) {
        guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
        guard let next = peek() else { throw error("unexpected end of line, expected a value") }
        switch next {
        case UInt8(ascii: "\""): _ = try stringBytes()
        case UInt8(ascii: "{"): try scanObject(depth: depth) { _ in }
        case UInt8(ascii: "["):
            position += 1
            if peek() == UInt8(ascii: "]") { position += 1; return }
            while true {
                try skipValue(depth: depth + 1)
                switch peek() {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "]"): position += 1; return
                case nil: throw error("unexpected end of line inside an array")
                default: throw error("expected ',' or ']' in an array")
                }
            }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber()
        default: throw error("expected a value")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count,
              memcmp(bytes.baseAddress! + position, word.utf8Start, count) == 0
        else { throw error("expected \(word)") }
        position += count
    }

    // MARK: Literals

    /// Moves past `text` if the bytes at the position are exactly `text`.
    @inline(__always)
    package mutating func skipLiteral(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count, memcmp(bytes.baseAddress! + position, text.utf8Start, count) == 0 else { return false }
        position += count
        return true
    }

    /// Reads `null` if it is next.
    package mutating func readNull() -> Bool {
        guard peek() == UInt8(ascii: "n") else { return false }
        do { try literal("null") } catch { return false }
        return true
    }

    /// Reads `true` or `false`.
    package mutating func readBool() throws(JSONSyntaxError) -> Bool {
        switch peek() {
        case UInt8(ascii: "t"): try literal("true"); return true
        case UInt8(ascii: "f"): try literal("false"); return false
        default: throw error("expected true or false")
        }
    }

    // MARK: Strings

    /// Reads a string and returns the range of its contents, and whether it holds escapes.
    package mutating func stringBytes() throws(JSONSyntaxError) -> (Range<Int>, Bool) {
        try expect(UInt8(ascii: "\""), "a string")
        let start = position
        var hasEscapes = false
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return (start..<(position - 1), hasEscapes)
            }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                position += 2
                continue
            }
            if byte < 0x20 { throw error("control character in a string") }
            position += 1
        }
        throw error("unexpected end of line inside a string", at: start - 1)
    }

    /// Reads a string.
    package mutating func readString() throws(JSONSyntaxError) -> String {
        let (range, _) = try stringBytes()
        return try decodeString(range)
    }

    /// Decodes a string's contents, resolving escapes and checking UTF-8.
    package func decodeString(_ range: Range<Int>) throws(JSONSyntaxError) -> String {
        let raw = UnsafeBufferPointer(rebasing: bytes[range])
        if !raw.contains(UInt8(ascii: "\\")) {
            guard let text = String(validating: raw, as: UTF8.self) else {
                throw error("invalid UTF-8 in a string", at: range.lowerBound)
            }
            return text
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\") else {
                decoded.append(byte)
                index += 1
                continue
            }
            guard index + 1 < range.upperBound else { throw error("unfinished escape", at: index) }
            let escaped = bytes[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escaped)
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(at: index)
                index += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 6 <= range.upperBound, bytes[index] == UInt8(ascii: "\\"),
                          bytes[index + 1] == UInt8(ascii: "u")
                    else { throw error("unpaired surrogate in \\u escape", at: index) }
                    let low = try hex4(at: index + 2)
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape", at: index) }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("unpaired surrogate in \\u escape", at: index)
                }
                decoded.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
            default: throw error("invalid escape '\\\(Character(Unicode.Scalar(escaped)))'", at: index - 2)
            }
        }
        guard let text = String(validating: decoded, as: UTF8.self) else {
            throw error("invalid UTF-8 in a string", at: range.lowerBound)
        }
        return text
    }

    private func hex4(at index: Int) throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("\\u needs four hex digits", at: index) }
        var value: UInt32 = 0
        for offset in 0..<4 {
            let byte = bytes[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("\\u needs four hex digits", at: index)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    // MARK: Numbers

    /// A number's digits as the scanner saw them.
    package struct NumberToken: NumberSink {
        var range: Range<Int>
        var negative: Bool
        /// The first 19 significant digits.
        var mantissa: UInt64
        /// How many significant digits there were in all.
        var digitCount: Int
        /// The power of ten that scales `mantissa`, counting dropped digits.
        var exponent: Int
        /// Whether the text had a fraction or an exponent.
        var isInteger: Bool

        /// Keeps the first 19 significant digits, and counts the power of ten for the rest.
        ///
        /// The arithmetic cannot overflow (19 digits fit in 64 bits; the counts are bounded by a line's length), so
        /// it wraps rather than checks, and the digits that fit are taken in one tight loop.
        @inline(__always)
        mutating func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ run: Range<Int>, fractional: Bool) {
            var index = run.lowerBound
            if digitCount == 0 {  // leading zeros are not significant; in a fraction they scale
                while index < run.upperBound, bytes[index] == UInt8(ascii: "0") { index &+= 1 }
                if fractional { exponent &-= index &- run.lowerBound }
            }
            // None once 19 are kept: an integer part of more than 19 digits leaves no room for its fraction's.
            let taken = max(0, min(19 &- digitCount, run.upperBound &- index))
            var value = mantissa
            var position = index
            // Eight digits at a time while eight remain to take, then one at a time.
            while position &+ 8 <= index &+ taken {
                value = value &* 100_000_000 &+ JSONScanner.eightDigits(bytes, at: position)
                position &+= 8
            }
            while position < index &+ taken {
                value = value &* 10 &+ UInt64(bytes[position] &- UInt8(ascii: "0"))
                position &+= 1
            }
            mantissa = value
            let dropped = run.upperBound &- index &- taken
            digitCount &+= taken &+ dropped
            if fractional { exponent &-= taken } else { exponent &+= dropped }
        }
    }

    /// A number sink that keeps nothing, for validating a number in passing.
    package struct IgnoredDigits: NumberSink {
        var range = 0..<0
        var negative = false
        var exponent = 0
        var isInteger = true
        @inline(__always) mutating func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ run: Range<Int>, fractional: Bool) {}
    }

    /// Reads a number, checking the JSON grammar, and collects its digits: a printed number in one pass
    /// (``plainNumberToken()``, inlined where numbers are read), anything else the long way.
    @inline(__always)
    package mutating func numberToken() throws(JSONSyntaxError) -> NumberToken {
        if let token = plainNumberToken() { return token }
        return try scannedNumberToken()
    }

    /// ``numberToken()`` the long way: any JSON number, or the error that says what is wrong with it.
    @inline(never)
    private mutating func scannedNumberToken() throws(JSONSyntaxError) -> NumberToken {
        skipWhitespace()
        var token = NumberToken(range: position..<position, negative: false, mantissa: 0, digitCount: 0, exponent: 0, isInteger: true)
        try scanNumber(into: &token)
        return token
    }

    /// Reads a number of the form writers print (`-`, digits, a fraction, at most 19 digits after any leading
    /// zeros, no exponent) in one pass over its bytes eight at a time, or returns `nil` without moving for
    /// anything else: whitespace first, an exponent, more digits, a grammar error. ``numberToken()`` then reads the
    /// number, or says what is wrong with it, the long way. Both give the same token for the same text
    /// (`JSONNumberTests`).
    @inline(__always)
    private mutating func plainNumberToken() -> NumberToken? {
        let start = position
        let end = bytes.count
        var index = start
        guard index < end else { return nil }
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index &+= 1 }
        guard index < end, isDigit(bytes[index]) else { return nil }
        var mantissa: UInt64 = 0
        var digitCount = 0
        let integerEnd: Int
        let integerIsZero = bytes[index] == UInt8(ascii: "0")
        if integerIsZero {
            integerEnd = index &+ 1
            if integerEnd < end, isDigit(bytes[integerEnd]) { return nil }  // a leading zero: the long way says so
        } else {
            guard let runEnd = digitRun(from: index, into: &mantissa, counting: &digitCount) else { return nil }
            integerEnd = runEnd
        }
        var fractionEnd = integerEnd
        var fractionDigits = 0
        if integerEnd < end, bytes[integerEnd] == UInt8(ascii: ".") {
            let fractionStart = integerEnd &+ 1
            var first = fractionStart
            if integerIsZero {  // `0.…`: the fraction's leading zeros are not significant digits
                while first < end, bytes[first] == UInt8(ascii: "0") { first &+= 1 }
            }
            guard let runEnd = digitRun(from: first, into: &mantissa, counting: &digitCount), runEnd > fractionStart
            else { return nil }
            fractionEnd = runEnd
            fractionDigits = runEnd &- fractionStart
        }
        if fractionEnd < end, bytes[fractionEnd] | 0x20 == UInt8(ascii: "e") { return nil }
        position = fractionEnd
        return NumberToken(
            range: start..<fractionEnd, negative: negative, mantissa: mantissa, digitCount: digitCount,
            exponent: -fractionDigits, isInteger: fractionEnd == integerEnd)
    }

    /// Finds the run of digits at `start` and appends their value to `value`, a word at a time: a word of eight
    /// digits is taken whole, and the digits before a word's first non-digit are moved to its top bytes and
    /// taken with leading zeros. Returns the run's end, or `nil` once `count` would pass 19 digits.
    @inline(__always)
    private func digitRun(from start: Int, into value: inout UInt64, counting count: inout Int) -> Int? {
        var index = start
        while true {
            let word = paddedWord(at: index)
            let notDigits = Self.nonDigitBytes(word)
            if notDigits == 0 {
                count &+= 8
                guard count <= 19 else { return nil }
                value = value &* 100_000_000 &+ Self.eightDigits(word &- 0x3030_3030_3030_3030)
                index &+= 8
                continue
            }
            let digits = notDigits.trailingZeroBitCount >> 3
            guard digits > 0 else { return index }
            count &+= digits
            guard count <= 19 else { return nil }
            let shift = UInt64(8 &* (8 &- digits))
            value = value &* Self.smallPowersOfTen[digits]
                &+ Self.eightDigits((word &<< shift) &- (0x3030_3030_3030_3030 &<< shift))
            return index &+ digits
        }
    }

    /// The eight bytes at `index`, first byte lowest, with zero bytes for any past the end of the text.
    @inline(__always)
    private func paddedWord(at index: Int) -> UInt64 {
        index &+ 8 <= bytes.count ? Self.word(bytes, at: index) : lastWord(at: index)
    }

    /// ``paddedWord(at:)`` near the end of the text, kept out of line so that the common case stays small.
    @inline(never)
    private func lastWord(at index: Int) -> UInt64 {
        guard index < bytes.count else { return 0 }
        if bytes.count >= 8 { return Self.word(bytes, at: bytes.count &- 8) &>> UInt64(8 &* (index &+ 8 &- bytes.count)) }
        var word: UInt64 = 0
        for offset in 0..<(bytes.count &- index) { word |= UInt64(bytes[index &+ offset]) &<< UInt64(8 &* offset) }
        return word
    }

    /// 10⁰ … 10⁷, for the digits a word holds.
    private static let smallPowersOfTen: [UInt64] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000]

    /// Checks a number's grammar and moves past it, without converting it.
    private mutating func skipNumber() throws(JSONSyntaxError) {
        var ignored = IgnoredDigits()
        try scanNumber(into: &ignored)
    }

    /// The JSON number grammar, in one place. It walks one number and tells `sink` what it
    /// sees; specialised for ``IgnoredDigits`` it only validates.
    @inline(__always)
    private mutating func scanNumber<Sink: NumberSink>(into sink: inout Sink) throws(JSONSyntaxError) {
        let start = position
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") {
            sink.negative = true
            position += 1
        }
        guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected a number", at: start) }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) { throw error("leading zero in a number", at: start) }
        } else {
            scanDigits(into: &sink, fractional: false)
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            sink.isInteger = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected digits after '.'", at: position) }
            scanDigits(into: &sink, fractional: true)
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            sink.isInteger = false
            position += 1
            var exponentSign = 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                if bytes[position] == UInt8(ascii: "-") { exponentSign = -1 }
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected digits in an exponent", at: position) }
            var exponent = 0
            while position < bytes.count, isDigit(bytes[position]) {
                exponent = min(exponent * 10 + Int(bytes[position] - UInt8(ascii: "0")), 100_000)
                position += 1
            }
            sink.exponent += exponentSign * exponent
        }
        sink.range = start..<position
    }

    /// Finds a run of digits and hands it to `sink` whole. The position and the bytes are kept in locals for the
    /// loop, so that the compiler keeps them in registers rather than storing the position through `self` on
    /// every digit.
    @inline(__always)
    private mutating func scanDigits<Sink: NumberSink>(into sink: inout Sink, fractional: Bool) {
        let start = position
        var index = start
        // Eight bytes at a time (zeros past the end, which are not digits): the run ends at the first byte of a
        // word that is not a digit.
        while true {
            let notDigits = Self.nonDigitBytes(paddedWord(at: index))
            if notDigits != 0 {
                index &+= notDigits.trailingZeroBitCount >> 3
                break
            }
            index &+= 8
        }
        sink.digits(bytes, start..<index, fractional: fractional)
        position = index
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// The eight bytes at `index`, first byte lowest, as one word.
    @inline(__always)
    static func word(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
    }

    /// A word with the top bit set in each of its eight bytes that is not an ASCII digit, and perhaps in bytes
    /// after the first such (a carry may run on past it), never before: its lowest set bit marks the first.
    @inline(__always)
    static func nonDigitBytes(_ word: UInt64) -> UInt64 {
        // A digit is 0x30...0x39: xor with 0x30 leaves 0...9, and adding 0x76 sets the top bit of 10 or more.
        let offset = word ^ 0x3030_3030_3030_3030
        return ((offset &+ 0x7676_7676_7676_7676) | offset) & 0x8080_8080_8080_8080
    }

    /// The eight ASCII digits at `index` as a number, the first the most significant (three multiplications
    /// instead of eight: pairs, then fours, then the eight).
    @inline(__always)
    static func eightDigits(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt64 {
        eightDigits(word(bytes, at: index) &- 0x3030_3030_3030_3030)
    }

    /// Eight digit values (0…9), one a byte, the first byte the most significant, as one number.
    @inline(__always)
    static func eightDigits(_ digits: UInt64) -> UInt64 {
        var value = digits
        value = value &* 10 &+ (value >> 8)
        let low = (value & 0x0000_00FF_0000_00FF) &* (100 &+ (1_000_000 << 32))
        let high = ((value >> 16) & 0x0000_00FF_0000_00FF) &* (1 &+ (10_000 << 32))
        return (low &+ high) >> 32
    }

    /// 10⁰ … 10²², every power of ten a double holds exactly; a literal, so the table needs no set-up at run time.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ]

    /// Reads a number as the nearest `Double`, exactly as `strtod` rounds it.
    package mutating func readDouble() throws(JSONSyntaxError) -> Double {
        let token = try numberToken()
        if let value = Self.fastDouble(token) { return value }
        let value = slowDouble(token.range)
        guard value.isFinite else { throw error("number out of range", at: token.range.lowerBound) }
        return value
    }

    /// Converts the common cases without `strtod`, or returns `nil` to let `strtod` decide.
    ///
    /// - Clinger's fast path: when the digits and the power of ten are both exact
    ///   doubles, one IEEE multiply or divide rounds correctly.
    /// - Otherwise, for up to 18 digits and powers of ten up to 10²², the product or
    ///   quotient is formed in double-double arithmetic (error below 2⁻¹⁰⁰ relative)
    ///   and rounded once. That rounding is the correct one unless the exact value lies
    ///   within 2⁻³⁰ ulp of a midpoint between two doubles; then `strtod` decides.
    @inline(__always)
    package static func fastDouble(_ token: NumberToken) -> Double? {
        guard token.digitCount <= 19, abs(token.exponent) <= 22 else { return nil }
        let power = exactPowersOfTen[abs(token.exponent)]
        if token.mantissa <= 1 << 53 {
            let value = Double(token.mantissa)
            let result = token.exponent < 0 ? value / power : value * power
            return token.negative ? -result : result
        }
        guard token.mantissa < 1 << 62 else { return nil }
        let high = Double(token.mantissa)
        let low = Double(Int64(token.mantissa) - Int64(high))
        let first: Double
        let second: Double
        if token.exponent < 0 {
            first = high / power
            // `high - first × power`, fused, is the exact remainder of the first division.
            second = (high.addingProduct(-first, power) + low) / power
        } else {
            first = high * power
            // `high × power - first`, fused, is the exact error of the first product.
            second = (-first).addingProduct(high, power) + low * power
        }
        let sum = first + second
        let error = (first - sum) + second
        // The midpoints around `sum` are half an ulp away, or a quarter below a power of two.
        let margin = sum.ulp * 0x1p-30
        guard abs(abs(error) - sum.ulp / 2) > margin, abs(abs(error) - sum.ulp / 4) > margin else { return nil }
        return token.negative ? -sum : sum
    }

    private func slowDouble(_ range: Range<Int>) -> Double {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: range.count + 1) { buffer in
            for (offset, index) in range.enumerated() { buffer[offset] = CChar(bitPattern: bytes[index]) }
            buffer[range.count] = 0
            return strtod(buffer.baseAddress!, nil)
        }
    }

    /// Reads a whole number that fits in `Int64`.
    package mutating func readInt64() throws(JSONSyntaxError) -> Int64 {
        let token = try numberToken()
        let start = token.range.lowerBound
        guard token.isInteger else { throw error("expected a whole number", at: start) }
        guard token.digitCount <= 19 && token.exponent == 0 else { throw error("number out of range", at: start) }
        if token.negative {
            guard token.mantissa <= UInt64(Int64.max) + 1 else { throw error("number out of range", at: start) }
            return token.mantissa == UInt64(Int64.max) + 1 ? .min : -Int64(token.mantissa)
        }
        guard token.mantissa <= UInt64(Int64.max) else { throw error("number out of range", at: start) }
        return Int64(token.mantissa)
    }

    /// Reads an array of exactly `count` numbers into `body`, one at a time.
    package mutating func readNumberArray(count: Int, _ body: (Int, Double) -> Void) throws(JSONSyntaxError) {
        try expect(UInt8(ascii: "["), "'[' to start an array of \(count) numbers")
        for index in 0..<count {
            if index > 0 { try expect(UInt8(ascii: ","), "\(count) numbers") }
            body(index, try readDouble())
        }
        try expect(UInt8(ascii: "]"), "exactly \(count) numbers")
    }
}
