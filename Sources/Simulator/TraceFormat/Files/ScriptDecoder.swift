import FoundationEssentials
import HAL
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
    /// Where the values the type read start, a bit for each byte of the document.
    private let reads: Reads

    final class Reads {
        var starts: [UInt64]

        init(count: Int) {
            starts = Array(repeating: 0, count: count / 64 + 1)
        }

        func insert(_ start: Int) {
            starts[start >> 6] |= 1 << UInt64(start & 63)
        }

        func contains(_ start: Int) -> Bool {
            starts[start >> 6] & (1 << UInt64(start & 63)) != 0
        }
    }

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        reads = Reads(count: bytes.count)
    }

    /// Decodes the document as `Value`.
    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        var scanner = JSONScanner(bytes)
        scanner.skipWhitespace()
        return try Value(from: ValueDecoder(document: self, start: scanner.position, path: nil))
    }

    /// The fields the type never read, each as a path (`steps[1].turn.pich`), in document order with an object's keys
    /// in sorted order. A field holding `null` is not counted: it says nothing.
    func unreadFields() throws(JSONSyntaxError) -> [String] {
        var scanner = JSONScanner(bytes)
        scanner.skipWhitespace()
        // Most documents have none: looking for one needs no key as a string.
        guard try hasUnread(at: scanner.position) else { return [] }
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
                if reads.contains(value.lowerBound) {
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

    /// Whether the value at `start` holds a field the type never read (that does not hold `null`).
    private func hasUnread(at start: Int) throws(JSONSyntaxError) -> Bool {
        switch bytes[start] {
        case UInt8(ascii: "{"):
            var scanner = JSONScanner(bytes, position: start)
            var fields: [JSONScanner.Field] = []
            try scanner.objectFields(into: &fields)
            for field in fields {
                if reads.contains(field.value.lowerBound) {
                    if try hasUnread(at: field.value.lowerBound) { return true }
                } else if !JSONScanner(bytes, range: field.value).isNull {
                    return true
                }
            }
            return false
        case UInt8(ascii: "["):
            for element in try elements(at: start) where try hasUnread(at: element.lowerBound) { return true }
            return false
        default:
            return false
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
        reads.insert(start)
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

/// A coding path as a chain of keys, made into an array only when asked for (by an error, or a type that looks): a
/// value read needs no array of its own.
private final class PathNode {
    let parent: PathNode?
    let key: any CodingKey

    init(parent: PathNode?, key: any CodingKey) {
        self.parent = parent
        self.key = key
    }

    /// The keys from the top.
    static func keys(_ node: PathNode?) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = node
        while let current = node {
            keys.append(current.key)
            node = current.parent
        }
        return keys.reversed()
    }
}

/// The decoder of one value of the document.
private struct ValueDecoder: Decoder {
    let document: ScriptDecoder
    let start: Int
    let path: PathNode?
    var codingPath: [any CodingKey] { PathNode.keys(path) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try KeyedDecodingContainer(ObjectContainer<Key>(document: document, start: start, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try ArrayContainer(document: document, start: start, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValue(document: document, start: start, path: path)
    }
}

/// Reads the value at `start`, found under `key` (when not `nil`) of the value at `path`, as `Value`: the standard
/// library's scalar types directly, anything else through its `init(from:)`.
private func decodeValue<Value: Decodable>(
    _ type: Value.Type, document: ScriptDecoder, at start: Int, path: PathNode?, key: (any CodingKey)?
) throws -> Value {
    if let scalar = try decodeScalar(type, document: document, at: start, path: path, key: key) { return scalar }
    let node = key.map { PathNode(parent: path, key: $0) } ?? path
    return try Value(from: ValueDecoder(document: document, start: start, path: node))
}

/// `Value` read from the value at `start` when it is a `Bool`, a `String` or a standard number type; `nil` for other
/// types.
private func decodeScalar<Value>(
    _ type: Value.Type, document: ScriptDecoder, at start: Int, path: PathNode?, key: (any CodingKey)?
) throws -> Value? {
    let first = document.bytes[start]
    func codingPath() -> [any CodingKey] { PathNode.keys(path) + (key.map { [$0] } ?? []) }
    func mismatch() -> DecodingError {
        if first == UInt8(ascii: "n") {
            return .valueNotFound(Value.self, .init(codingPath: codingPath(), debugDescription: "Cannot get value of type \(Value.self) -- found null value instead"))
        }
        return .typeMismatch(Value.self, .init(codingPath: codingPath(), debugDescription: "Expected to decode \(Value.self) but found \(document.kind(at: start)) instead."))
    }
    var scanner = JSONScanner(document.bytes, position: start)
    if Value.self == String.self {
        guard first == UInt8(ascii: "\"") else { throw mismatch() }
        return try scanner.readString() as? Value
    }
    if Value.self == Bool.self {
        guard let value = try? scanner.readBool() else { throw mismatch() }
        return value as? Value
    }
    /// The number at `start`, as its token and its text.
    func number() throws -> (token: JSONScanner.NumberToken, text: String) {
        guard first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) else { throw mismatch() }
        let token = try scanner.numberToken()
        return (token, String(decoding: UnsafeBufferPointer(rebasing: document.bytes[token.range]), as: UTF8.self))
    }
    // The number types read from their decimal text, exactly: never through `Double`.
    if Value.self == ExactDecimal.self { return ExactDecimal(try number().text) as? Value }
    if Value.self == Seconds.self {
        let text = try number().text
        guard let seconds = Seconds(decimalText: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath(), debugDescription: "\(text) s is not a whole number of nanoseconds within ±292 years"))
        }
        return seconds as? Value
    }
    // Compared by identity first: asking every type whether it is a number costs a lookup of its conformances.
    guard let type = ScriptNumbers.type(Value.self) else { return nil }
    let (token, text) = try number()
    guard let value = type.init(json: token, text: text) else {
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath(), debugDescription: "Parsed JSON number <\(text)> does not fit in \(Value.self)."))
    }
    return value as? Value
}

/// The number types the decoder reads itself.
private enum ScriptNumbers {
    /// `type` as a number type, if it is one; the common ones first.
    static func type(_ type: Any.Type) -> (any ScriptNumber.Type)? {
        if type == Double.self { return Double.self }
        if type == Int.self { return Int.self }
        if type == Float.self { return Float.self }
        if type == Int64.self { return Int64.self }
        if type == UInt8.self { return UInt8.self }
        if type == UInt16.self { return UInt16.self }
        if type == UInt32.self { return UInt32.self }
        if type == UInt64.self { return UInt64.self }
        if type == UInt.self { return UInt.self }
        if type == Int8.self { return Int8.self }
        if type == Int16.self { return Int16.self }
        if type == Int32.self { return Int32.self }
        return nil
    }
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
            self.init(negative: token.negative, magnitude: token.mantissa)
            return
        }
        // Exactly, from the text: never through `Double`, which holds 15 to 17 digits (a 20-digit seed lost its last).
        guard let decimal = ExactDecimal(text), let magnitude = decimal.magnitude() else { return nil }
        self.init(negative: decimal.negative, magnitude: magnitude)
    }

    /// The whole number `magnitude`, below zero when `negative`; `nil` when the type cannot hold it.
    private init?(negative: Bool, magnitude: UInt64) {
        guard negative else {
            self.init(exactly: magnitude)
            return
        }
        guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
        self.init(exactly: magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
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
    let path: PathNode?
    var codingPath: [any CodingKey] { PathNode.keys(path) }
    /// The fields, in document order.
    private let fields: [JSONScanner.Field]
    private let scanner: JSONScanner

    init(document: ScriptDecoder, start: Int, path: PathNode?) throws {
        guard document.bytes[start] == UInt8(ascii: "{") else {
            if document.bytes[start] == UInt8(ascii: "n") {
                throw DecodingError.valueNotFound([String: Any].self, .init(codingPath: PathNode.keys(path), debugDescription: "Cannot get keyed decoding container -- found null value instead"))
            }
            throw DecodingError.typeMismatch([String: Any].self, .init(codingPath: PathNode.keys(path), debugDescription: "Expected to decode Dictionary<String, Any> but found \(document.kind(at: start)) instead."))
        }
        self.document = document
        self.path = path
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
        try decodeValue(type, document: document, at: try read(key), path: path, key: key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let start = start(of: key) else { return nil }
        document.noteRead(start)
        if document.bytes[start] == UInt8(ascii: "n") { return nil }
        return try decodeValue(type, document: document, at: start, path: path, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try KeyedDecodingContainer(ObjectContainer<NestedKey>(document: document, start: try read(key), path: PathNode(parent: path, key: key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ArrayContainer(document: document, start: try read(key), path: PathNode(parent: path, key: key))
    }

    func superDecoder() throws -> any Decoder {
        throw DecodingError.keyNotFound(IndexKey(index: 0), .init(codingPath: codingPath, debugDescription: "A script has no super field."))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(document: document, start: try read(key), path: PathNode(parent: path, key: key))
    }
}

/// An array's elements, found once, read in order.
private struct ArrayContainer: UnkeyedDecodingContainer {
    let document: ScriptDecoder
    let path: PathNode?
    var codingPath: [any CodingKey] { PathNode.keys(path) }
    private let elements: [Range<Int>]
    private(set) var currentIndex = 0

    init(document: ScriptDecoder, start: Int, path: PathNode?) throws {
        guard document.bytes[start] == UInt8(ascii: "[") else {
            if document.bytes[start] == UInt8(ascii: "n") {
                throw DecodingError.valueNotFound([Any].self, .init(codingPath: PathNode.keys(path), debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
            }
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: PathNode.keys(path), debugDescription: "Expected to decode Array<Any> but found \(document.kind(at: start)) instead."))
        }
        self.document = document
        self.path = path
        self.elements = try document.elements(at: start)
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The next element's start; `valueNotFound` of `type` at the end.
    private func next<T>(_ type: T.Type) throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [IndexKey(index: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        return elements[currentIndex].lowerBound
    }

    /// The path of the next element.
    private var nextPath: PathNode { PathNode(parent: path, key: IndexKey(index: currentIndex)) }

    mutating func decodeNil() throws -> Bool {
        guard document.bytes[try next(Never.self)] == UInt8(ascii: "n") else { return false }
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
        let value = try decodeValue(type, document: document, at: try next(type), path: path, key: IndexKey(index: currentIndex))
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try ObjectContainer<NestedKey>(document: document, start: try next([String: Any].self), path: nextPath)
        currentIndex += 1
        return KeyedDecodingContainer(container)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try ArrayContainer(document: document, start: try next([Any].self), path: nextPath)
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = ValueDecoder(document: document, start: try next(Any.self), path: nextPath)
        currentIndex += 1
        return decoder
    }
}

/// One value, read as a whole.
private struct SingleValue: SingleValueDecodingContainer {
    let document: ScriptDecoder
    let start: Int
    let path: PathNode?
    var codingPath: [any CodingKey] { PathNode.keys(path) }

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
        try decodeValue(type, document: document, at: start, path: path, key: nil)
    }
}
