import FoundationEssentials

/// Reading JSON scripts with errors that name the file and the place in it.
public enum ScriptFile {
    /// The most records a script may generate: ten million, about nine hours of 100 Hz motion on three
    /// channels, or four months of 1 Hz GPS. A script claiming more is refused before anything is generated,
    /// so a typo such as `"hold": 1e9` is an error rather than an out-of-memory condition.
    public static let maximumRecords = 10_000_000

    /// Refuses a script whose `records` (as computed from its rates and durations) exceed ``maximumRecords``.
    public static func checkRecordCount(_ records: Double, file: String?) throws {
        guard records.isFinite, records <= Double(maximumRecords) else {
            let count = !records.isFinite ? "endless" : records < 1e18 ? String(Int64(records.rounded())) : "\(records)"
            throw ScriptError(file: file, "the script makes \(count) records; at most \(maximumRecords) (lower the rate or shorten it)")
        }
    }

    /// Decodes a JSON file, refusing unknown fields; errors name the file and the field, or say in words why the
    /// file cannot be read (`walk.json: no such file`, `walk.json: is a directory, not a file`). The file counts as
    /// read by the `FileCache` build under way, if any.
    public static func decode<Value: Decodable>(path: String) throws -> Value {
        let bytes: [UInt8]
        do throws(FileError) { bytes = try FileReads.read(path: path) } catch {
            throw ScriptError(file: path, error.cause)
        }
        return try decode(bytes, file: path)
    }

    /// Decodes JSON bytes as ``decode(path:)`` does; `file` names them in errors.
    public static func decode<Value: Decodable>(_ bytes: [UInt8], file path: String) throws -> Value {
        try decode(bytes: bytes, file: path)
    }

    /// Decodes `bytes` with ``ScriptDecoder``, which notes the fields the type reads: a field it never read (and
    /// that does not hold `null`) is an error naming its line, column and path.
    private static func decode<Value: Decodable>(bytes: [UInt8], file path: String) throws -> Value {
        if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) {
            throw ScriptError(file: path, FileError.empty(path, expecting: "a JSON document").cause)
        }
        if let syntax = JSONDocument.syntaxError(in: bytes) { throw ScriptError(file: path, syntax) }
        let (value, unread) = try bytes.withUnsafeBufferPointer { buffer -> (Value, [String]) in
            let decoder = ScriptDecoder(buffer)
            do {
                return (try decoder.decode(Value.self), try decoder.unreadFields())
            } catch let error as DecodingError {
                throw ScriptError(file: path, ScriptError.describe(error, in: bytes))
            }
        }
        if let field = unread.first {
            throw ScriptError(file: path, (JSONDocument.place(of: field, in: bytes).map { $0 + ": " } ?? "") + "\(field): unknown field")
        }
        return value
    }

    /// Where the field `field` (as errors write it: `expect[2].between`) is in the file at `path`:
    /// `line L, column C`, or `nil` when the file or the field cannot be found. For errors found after decoding,
    /// such as an app's config checks.
    public static func place(of field: String, inFileAt path: String) -> String? {
        guard let bytes = FileReads.contents(of: path) else { return nil }
        return JSONDocument.place(of: field, in: bytes)
    }
}

/// A motion script or walk scenario that cannot be used, naming the file and the place in it.
public struct ScriptError: Error, Sendable, CustomStringConvertible {
    /// The script file.
    public var file: String?
    /// What is wrong, starting with the place in the script.
    public var message: String

    /// Creates an error about `file` (when there is one) saying `message`.
    public init(file: String?, _ message: String) {
        self.file = file
        self.message = message
    }

    /// An error whose message starts with a field path (`steps[2].turn: …`) in the JSON file at `file`, with the
    /// field's line and column put in front (`line 7, column 5: steps[2].turn: …`), read from the file: so that every
    /// file the package reads names the file, the line, the column and the field, whichever check found the problem.
    public static func located(file: String?, _ message: String) -> ScriptError {
        if let file, !message.hasPrefix("line "), let field = leadingField(of: message),
           let place = ScriptFile.place(of: field, inFileAt: file) {
            return ScriptError(file: file, place + ": " + message)
        }
        return ScriptError(file: file, message)
    }

    /// The field path a message starts with, before its first `: `, if it looks like one.
    private static func leadingField(of message: String) -> String? {
        guard let end = message.firstRange(of: ": ") else { return nil }
        let field = message[..<end.lowerBound]
        let allowed = field.allSatisfy { $0.isLetter || $0.isNumber || "_-.[]".contains($0) }
        return allowed && field.first?.isLetter == true ? String(field) : nil
    }

    /// `file: message`.
    public var description: String { "\(file ?? "<script>"): \(message)" }

    /// A decoding error as `line L, column C: field.path: what`, the place found in the document's bytes.
    static func describe(_ error: DecodingError, in bytes: [UInt8]) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "top level" : text)
        }
        func place(_ context: DecodingError.Context) -> String {
            let steps = context.codingPath.map { $0.intValue.map(JSONDocument.Step.index) ?? .key($0.stringValue) }
            guard let offset = JSONDocument.offset(of: steps, in: bytes) else { return "" }
            let (line, column) = JSONDocument.lineAndColumn(of: offset, in: bytes)
            return "line \(line), column \(column): "
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(place(context))\(path(context)): missing field '\(key.stringValue)'"
        case .typeMismatch(let type, let context): return "\(place(context))\(path(context)): expected \(type)"
        case .valueNotFound(let type, let context): return "\(place(context))\(path(context)): expected \(type), found null"
        case .dataCorrupted(let context): return "\(place(context))\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
