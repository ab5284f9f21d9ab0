import Foundation

/// Reading JSON scripts with errors that name the file and the place in it.
public enum ScriptFile {
    /// Decodes a JSON file, refusing unknown fields; errors name the file and the field.
    public static func decode<Value: Codable>(path: String) throws -> Value {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ScriptError(file: path, "cannot read: \(error.localizedDescription)")
        }
        let value: Value
        do { value = try JSONDecoder().decode(Value.self, from: data) } catch let error as DecodingError {
            throw ScriptError(file: path, ScriptError.describe(error))
        } catch {
            throw ScriptError(file: path, "not JSON: \(error.localizedDescription)")
        }
        if let unknown = try UnknownKeys.find(in: data, decoded: value).first {
            throw ScriptError(file: path, "\(unknown): unknown field")
        }
        return value
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
