import Foundation

/// Reading JSON scripts with errors that name the file and the place in it.
public enum ScriptFile {
    /// The most records a script may generate: ten million, about nine hours of 100 Hz motion on three
    /// channels, or four months of 1 Hz GPS. A script claiming more is refused before anything is generated,
    /// so a typo such as `"hold": 1e9` is an error rather than an out-of-memory condition.
    public static let maximumRecords = 10_000_000

    /// Refuses a script whose `records` (as computed from its rates and durations) exceed ``maximumRecords``.
    public static func checkRecordCount(_ records: Double, file: String?) throws {
        guard records.isFinite, records <= Double(maximumRecords) else {
            let count = records.isFinite ? String(format: "%.0f", records) : "endless"
            throw ScriptError(file: file, "the script makes \(count) records; at most \(maximumRecords) (lower the rate or shorten it)")
        }
    }

    /// Decodes a JSON file, refusing unknown fields; errors name the file and the field.
    public static func decode<Value: Codable>(path: String) throws -> Value {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ScriptError(file: path, "cannot read: \(error.localizedDescription)")
        }
        return try decode(data: data, file: path)
    }

    /// Decodes JSON bytes as ``decode(path:)`` does; `file` names them in errors.
    public static func decode<Value: Codable>(_ bytes: [UInt8], file path: String) throws -> Value {
        try decode(data: Data(bytes), file: path)
    }

    private static func decode<Value: Codable>(data: Data, file path: String) throws -> Value {
        let value: Value
        do { value = try JSONDecoder().decode(Value.self, from: data) } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty, let syntax = syntaxError(in: data) {
                throw ScriptError(file: path, syntax)
            }
            throw ScriptError(file: path, ScriptError.describe(error))
        } catch {
            throw ScriptError(file: path, "not JSON: \(error.localizedDescription)")
        }
        if let unknown = try UnknownKeys.find(in: data, decoded: value).first {
            throw ScriptError(file: path, "\(unknown): unknown field")
        }
        return value
    }

    /// Why `data` is not JSON, with the line and column: JSONDecoder only says that it is not.
    static func syntaxError(in data: Data) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return nil
        } catch {
            let reason = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
            // "Invalid value around character 31." -> line and column of that byte.
            guard let range = reason.range(of: #"around character (\d+)"#, options: .regularExpression),
                  let offset = Int(reason[range].split(separator: " ").last ?? "") else { return "not JSON: \(reason)" }
            let prefix = data.prefix(offset)
            let line = prefix.filter { $0 == UInt8(ascii: "\n") }.count + 1
            let column = offset - (prefix.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
            let what = reason.replacingOccurrences(of: #" around character \d+\.?"#, with: "", options: .regularExpression)
            return "line \(line), column \(column): not JSON: \(what.lowercased())"
        }
    }
}

/// A motion script or walk scenario that cannot be used, naming the file and the place in it.
public struct ScriptError: Error, Sendable, CustomStringConvertible {
    /// The script file.
    public var file: String?
    /// What is wrong, starting with the place in the script.
    public var message: String

    /// Creates an error.
    public init(file: String?, _ message: String) {
        self.file = file
        self.message = message
    }

    /// `file: message`.
    public var description: String { "\(file ?? "<script>"): \(message)" }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "top level" : text)
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)): missing field '\(key.stringValue)'"
        case .typeMismatch(let type, let context): return "\(path(context)): expected \(type)"
        case .valueNotFound(let type, let context): return "\(path(context)): expected \(type), found null"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
