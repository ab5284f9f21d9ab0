import FoundationEssentials
import LibC

/// A `Decoder` over one JSON document, read in place with ``JSONScanner``, that notes every field the decoded type
/// reads, so that a field it never read (a misspelt one) is found without a second pass of encoding.
///
/// It decodes as Foundation's `JSONDecoder` does with its default strategies, and throws the same `DecodingError`s
/// with the same coding paths: a whole number read into `Int` may be written `1.0` or `1e2`; a duplicated key gives
/// its first value. The document must be valid JSON (``JSONDocument/syntaxError(in:)`` checks it first).
struct ScriptDecoder {
    /// The document's bytes, kept alive by the caller for the decoder's life.
    let bytes: UnsafeBufferPointer<UInt8>
    /// Where the values the type read start, for the fields found among them.
    private let reads = Reads()

    final class Reads {
        var starts = Set<Int>()
    }

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Decodes the document as `Value`.
    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        var scanner = JSONScanner(bytes)
        scanner.skipWhitespace()
        return try Value(from: ValueDecoder(document: self, start: scanner.position, codingPath: []))
    }

    /// The fields the type never read, each as a path (`steps[1].turn.pich`), in document order with an object's keys
    /// in sorted order. A field holding `null` is not counted: it says nothing.
    func unreadFields() throws(JSONSyntaxError) -> [String] {
        var scanner = JSONScanner(bytes)
        scanner.skipWhitespace()
        var unread: [String] = []
        var path = ""
        try collectUnread(at: scanner.position, path: &path, into: &unread)
        return unread
    }

    private func collectUnread(at start: Int, path: inout String, into unread: inout [String]) throws(JSONSyntaxError) {
        var scanner = JSONScanner(bytes, position: start)
        switch bytes[start] {
        case UInt8(ascii: "{"):
            var fields: [JSONScanner.Field] = []
            try scanner.objectFields(into: &fields)
            for (key, value) in fields.map({ (scanner.keyString($0), $0.value) }).sorted(by: { $0.0 < $1.0 }) {
                let outer = path.count
                path += path.isEmpty ? key : ".\(key)"
                defer { path.removeSubrange(path.index(path.startIndex, offsetBy: outer)...) }
                if reads.starts.contains(value.lowerBound) {
                    try collectUnread(at: value.lowerBound, path: &path, into: &unread)
                } else if !JSONScanner(bytes, range: value).isNull {
                    unread.append(path)
                }
            }
        case UInt8(ascii: "["):
            for (index, element) in try elements(at: start).enumerated() {
                let first = bytes[element.lowerBound]
                guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { continue }
                let outer = path.count
                path += "[\(index)]"
                defer { path.removeSubrange(path.index(path.startIndex, offsetBy: outer)...) }
                try collectUnread(at: element.lowerBound, path: &path, into: &unread)
            }
        default:
            return
        }
    }

    /// Where each element of the array starting at `start` is.
    func elements(at start: Int) throws(JSONSyntaxError) -> [Range<Int>] {
        var scanner = JSONScanner(bytes, position: start)
        try scanner.expect(UInt8(ascii: "["), "'['")
        var ranges: [Range<Int>] = []
        if scanner.peek() == UInt8(ascii: "]") { return ranges }
        while true {
            scanner.skipWhitespace()
            let first = scanner.position
            try scanner.skipValue(depth: 1)
            ranges.append(first..<scanner.position)
            guard scanner.peek() == UInt8(ascii: ",") else { return ranges }
            scanner.position += 1
        }
    }

    /// Notes that the type read the value starting at `start`.
    func noteRead(_ start: Int) {
        reads.starts.insert(start)
    }

    /// What the value at `start` is, as `JSONDecoder`'s errors name it.
    func kind(at start: Int) -> String {
        switch bytes[start] {
        case UInt8(ascii: "{"): "a dictionary"
        case UInt8(ascii: "["): "an array"
        case UInt8(ascii: "\""): "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): "bool"
        case UInt8(ascii: "n"): "null"
        default: "number"
        }
    }
}

extension JSONScanner {
    /// Whether the value at the position is `null`, without moving.
    fileprivate var isNull: Bool {
        var scanner = self
        return scanner.readNull()
    }
}

/// A coding key for an array's element, as `JSONDecoder` makes them: `Index 2`, with the index as its integer.
private struct IndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.init(index: intValue) }
}

/// The decoder of one value of the document.
private struct ValueDecoder: Decoder {
    let document: ScriptDecoder
    let start: Int
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try KeyedDecodingContainer(ObjectContainer<Key>(document: document, start: start, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try ArrayContainer(document: document, start: start, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValue(document: document, start: start, codingPath: codingPath)
    }
}

/// Reads the value at `start` as `Value`: the standard library's scalar types directly, anything else through its
/// `init(from:)`.
private func decodeValue<Value: Decodable>(
    _ type: Value.Type, document: ScriptDecoder, at start: Int, codingPath: [any CodingKey]
) throws -> Value {
    if let scalar = try decodeScalar(type, document: document, at: start, codingPath: codingPath) { return scalar }
    return try Value(from: ValueDecoder(document: document, start: start, codingPath: codingPath))
}

/// `Value` read from the value at `start` when it is a `Bool`, a string or a number type; `nil` for other types.
private func decodeScalar<Value>(
    _ type: Value.Type, document: ScriptDecoder, at start: Int, codingPath: [any CodingKey]
) throws -> Value? {
    func mismatch() -> DecodingError {
        if document.bytes[start] == UInt8(ascii: "n") {
            return .valueNotFound(Value.self, .init(codingPath: codingPath, debugDescription: "Cannot get value of type \(Value.self) -- found null value instead"))
        }
        return .typeMismatch(Value.self, .init(codingPath: codingPath, debugDescription: "Expected to decode \(Value.self) but found \(document.kind(at: start)) instead."))
    }
    var scanner = JSONScanner(document.bytes, position: start)
    if Value.self == String.self {
        guard document.bytes[start] == UInt8(ascii: "\"") else { throw mismatch() }
        return try scanner.readString() as? Value
    }
    if Value.self == Bool.self {
        guard let value = try? scanner.readBool() else { throw mismatch() }
        return value as? Value
    }
    guard let number = Value.self as? any ScriptNumber.Type else { return nil }
    let first = document.bytes[start]
    guard first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) else { throw mismatch() }
    let token = try scanner.numberToken()
    let text = String(decoding: UnsafeBufferPointer(rebasing: document.bytes[token.range]), as: UTF8.self)
    guard let value = number.init(json: token, text: text) else {
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Parsed JSON number <\(text)> does not fit in \(Value.self)."))
    }
    return value as? Value
}

/// A number type the decoder reads from a JSON number.
private protocol ScriptNumber {
    /// The number `token` (written `text`), or `nil` when the type cannot hold it.
    init?(json token: JSONScanner.NumberToken, text: String)
}

extension Double: ScriptNumber {
    init?(json token: JSONScanner.NumberToken, text: String) {
        guard let value = JSONScanner.fastDouble(token) ?? Double(text), value.isFinite else { return nil }
        self = value
    }
}

extension Float: ScriptNumber {
    init?(json token: JSONScanner.NumberToken, text: String) {
        guard let value = Float(text), value.isFinite else { return nil }
        self = value
    }
}

/// Whole numbers: written as integers, or as any number that is exactly one (`1.0`, `1e2`), as `JSONDecoder` takes them.
extension FixedWidthInteger {
    init?(json token: JSONScanner.NumberToken, text: String) {
        if token.isInteger, token.exponent == 0, token.digitCount <= 19 {
            if token.negative {
                guard token.mantissa <= UInt64(Int64.max) + 1 else { return nil }
                self.init(exactly: token.mantissa == UInt64(Int64.max) + 1 ? Int64.min : -Int64(token.mantissa))
            } else {
                self.init(exactly: token.mantissa)
            }
            return
        }
        guard let value = Double(text), value.isFinite, value == value.rounded() else { return nil }
        self.init(exactly: value)
    }
}

extension Int: ScriptNumber {}
extension Int8: ScriptNumber {}
extension Int16: ScriptNumber {}
extension Int32: ScriptNumber {}
extension Int64: ScriptNumber {}
extension UInt: ScriptNumber {}
extension UInt8: ScriptNumber {}
extension UInt16: ScriptNumber {}
extension UInt32: ScriptNumber {}
extension UInt64: ScriptNumber {}

/// An object's fields, found once, each read by key.
private struct ObjectContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let document: ScriptDecoder
    let codingPath: [any CodingKey]
    /// The fields, in document order.
    private let fields: [JSONScanner.Field]
    private let scanner: JSONScanner

    init(document: ScriptDecoder, start: Int, codingPath: [any CodingKey]) throws {
        guard document.bytes[start] == UInt8(ascii: "{") else {
            if document.bytes[start] == UInt8(ascii: "n") {
                throw DecodingError.valueNotFound([String: Any].self, .init(codingPath: codingPath, debugDescription: "Cannot get keyed decoding container -- found null value instead"))
            }
            throw DecodingError.typeMismatch([String: Any].self, .init(codingPath: codingPath, debugDescription: "Expected to decode Dictionary<String, Any> but found \(document.kind(at: start)) instead."))
        }
        self.document = document
        self.codingPath = codingPath
        var scanner = JSONScanner(document.bytes, position: start)
        var fields: [JSONScanner.Field] = []
        try scanner.objectFields(into: &fields)
        self.fields = fields
        self.scanner = scanner
    }

    var allKeys: [Key] { fields.compactMap { Key(stringValue: scanner.keyString($0)) } }

    /// Where the value of `key` starts (its first occurrence), or `nil` when the object lacks it.
    private func start(of key: Key) -> Int? {
        let name = key.stringValue
        return fields.first { scanner.key($0, is: name) }?.value.lowerBound
    }

    /// Where the value of `key` starts, noted as read; `keyNotFound` when the object lacks it.
    private func read(_ key: Key) throws -> Int {
        guard let start = start(of: key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        document.noteRead(start)
        return start
    }

    func contains(_ key: Key) -> Bool { start(of: key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        document.bytes[try read(key)] == UInt8(ascii: "n")
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try value(type, forKey: key) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try value(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try value(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try value(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try value(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try value(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try value(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try value(type, forKey: key) }

    private func value<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeValue(type, document: document, at: try read(key), codingPath: codingPath + [key])
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let start = start(of: key) else { return nil }
        document.noteRead(start)
        if document.bytes[start] == UInt8(ascii: "n") { return nil }
        return try decodeValue(type, document: document, at: start, codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try KeyedDecodingContainer(ObjectContainer<NestedKey>(document: document, start: try read(key), codingPath: codingPath + [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ArrayContainer(document: document, start: try read(key), codingPath: codingPath + [key])
    }

    func superDecoder() throws -> any Decoder {
        throw DecodingError.keyNotFound(IndexKey(index: 0), .init(codingPath: codingPath, debugDescription: "A script has no super field."))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(document: document, start: try read(key), codingPath: codingPath + [key])
    }
}

/// An array's elements, found once, read in order.
private struct ArrayContainer: UnkeyedDecodingContainer {
    let document: ScriptDecoder
    let codingPath: [any CodingKey]
    private let elements: [Range<Int>]
    private(set) var currentIndex = 0

    init(document: ScriptDecoder, start: Int, codingPath: [any CodingKey]) throws {
        guard document.bytes[start] == UInt8(ascii: "[") else {
            if document.bytes[start] == UInt8(ascii: "n") {
                throw DecodingError.valueNotFound([Any].self, .init(codingPath: codingPath, debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
            }
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "Expected to decode Array<Any> but found \(document.kind(at: start)) instead."))
        }
        self.document = document
        self.codingPath = codingPath
        self.elements = try document.elements(at: start)
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The next element's start, and its coding path; `valueNotFound` of `type` at the end.
    private func next<T>(_ type: T.Type) throws -> (Int, [any CodingKey]) {
        let path = codingPath + [IndexKey(index: currentIndex)]
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "Unkeyed container is at end."))
        }
        return (elements[currentIndex].lowerBound, path)
    }

    mutating func decodeNil() throws -> Bool {
        let (start, _) = try next(Never.self)
        guard document.bytes[start] == UInt8(ascii: "n") else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try value(type) }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try value(type) }
    mutating func decode(_ type: String.Type) throws -> String { try value(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try value(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try value(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try value(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try value(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try value(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try value(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try value(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try value(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try value(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try value(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try value(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try value(type) }

    private mutating func value<T: Decodable>(_ type: T.Type) throws -> T {
        let (start, path) = try next(type)
        let value = try decodeValue(type, document: document, at: start, codingPath: path)
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (start, path) = try next([String: Any].self)
        let container = try ObjectContainer<NestedKey>(document: document, start: start, codingPath: path)
        currentIndex += 1
        return KeyedDecodingContainer(container)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (start, path) = try next([Any].self)
        let container = try ArrayContainer(document: document, start: start, codingPath: path)
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let (start, path) = try next(Any.self)
        currentIndex += 1
        return ValueDecoder(document: document, start: start, codingPath: path)
    }
}

/// One value, read as a whole.
private struct SingleValue: SingleValueDecodingContainer {
    let document: ScriptDecoder
    let start: Int
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { document.bytes[start] == UInt8(ascii: "n") }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try value(type) }
    func decode(_ type: Bool.Type) throws -> Bool { try value(type) }
    func decode(_ type: String.Type) throws -> String { try value(type) }
    func decode(_ type: Double.Type) throws -> Double { try value(type) }
    func decode(_ type: Float.Type) throws -> Float { try value(type) }
    func decode(_ type: Int.Type) throws -> Int { try value(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try value(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try value(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try value(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try value(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try value(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try value(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try value(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try value(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try value(type) }

    private func value<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeValue(type, document: document, at: start, codingPath: codingPath)
    }
}
