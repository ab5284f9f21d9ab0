import Foundation
import HAL
import Testing
@testable import TraceFormat

/// `ScriptFile` decodes with its own decoder, which notes the fields a type reads. It must decode what Foundation's
/// `JSONDecoder` decodes, refuse what it refuses with the same field named, and call a field unknown exactly when the
/// type never read it.
@Suite struct ScriptDecoderTests {
    struct Document: Codable, Equatable {
        var name: String
        var rate: Double
        var count: Int?
        var small: UInt8?
        var ratio: Float?
        var on: Bool?
        var tags: [String]?
        var steps: [Step]
        var table: [String: Int]?
        var kind: Kind?
        var grid: [[Int]]?

        struct Step: Codable, Equatable {
            var at: Double
            var turn: Turn?
            var with: [String: String]?
        }

        struct Turn: Codable, Equatable {
            var yaw: Double
            var seconds: Double?
        }

        enum Kind: String, Codable { case walk, run }
    }

    /// A JSON value as the test writes it: numbers keep their text, objects their order.
    indirect enum Value {
        case null, bool(Bool), number(String), string(String), array([Value]), object([(String, Value)])

        var text: String {
            switch self {
            case .null: "null"
            case .bool(let value): value ? "true" : "false"
            case .number(let text): text
            case .string(let text): "\"\(text)\""
            case .array(let items): "[" + items.map(\.text).joined(separator: ", ") + "]"
            case .object(let fields): "{" + fields.map { "\"\($0.0)\": \($0.1.text)" }.joined(separator: ", ") + "}"
            }
        }
    }

    /// A valid document, drawn from `random`.
    static func document(_ random: inout SeededRandom) -> Value {
        func pick(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }
        func number() -> Value { .number(["0", "1", "-2.5", "1e2", "0.1", "3.14159", "-0", "12345678.25"][pick(8)]) }
        func whole() -> Value { .number(["0", "7", "-3", "1.0", "2e1", "100"][pick(6)]) }
        func string() -> Value { .string(["a", "walk", "tap", "b\\u00e9", "x y"][pick(5)]) }
        var fields: [(String, Value)] = [("name", string()), ("rate", number())]
        if pick(2) == 0 { fields.append(("count", whole())) }
        if pick(2) == 0 { fields.append(("small", .number(["0", "255", "17"][pick(3)]))) }
        if pick(2) == 0 { fields.append(("ratio", number())) }
        if pick(2) == 0 { fields.append(("on", .bool(pick(2) == 0))) }
        if pick(2) == 0 { fields.append(("tags", .array((0..<pick(3)).map { _ in string() }))) }
        fields.append(("steps", .array((0..<pick(4)).map { _ in
            var step: [(String, Value)] = [("at", number())]
            if pick(2) == 0 {
                var turn: [(String, Value)] = [("yaw", number())]
                if pick(2) == 0 { turn.append(("seconds", number())) }
                step.append(("turn", .object(turn)))
            }
            if pick(3) == 0 { step.append(("with", .object([("k", string()), ("v", string())]))) }
            return .object(step)
        })))
        if pick(2) == 0 { fields.append(("table", .object([("one", whole()), ("two", whole())]))) }
        if pick(2) == 0 { fields.append(("kind", .string(["walk", "run"][pick(2)]))) }
        if pick(3) == 0 { fields.append(("grid", .array([.array([whole(), whole()]), .array([])]))) }
        return .object(fields.shuffled(using: &random))
    }

    /// What a change to a valid document does to it.
    enum Change {
        /// Adds a field no type reads, at this path, holding a value (an unknown field) or `null` (not one).
        case unknownField(path: String, null: Bool)
        /// Something else, which both decoders judge.
        case other
    }

    /// `value` with one change drawn from `random`, and what it was.
    static func changed(_ value: Value, _ random: inout SeededRandom) -> (Value, Change) {
        guard case .object(var fields) = value else { return (value, .other) }
        func pick(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }
        let index = pick(fields.count)
        switch pick(9) {
        case 0:
            let null = pick(2) == 0
            fields.append(("extra", null ? .null : .number("1")))
            return (.object(fields), .unknownField(path: "extra", null: null))
        case 1:
            // An unknown field inside the first step, when there is one.
            guard let steps = fields.firstIndex(where: { $0.0 == "steps" }), case .array(var items) = fields[steps].1,
                case .object(var step) = items.first
            else { return (.object(fields), .other) }
            step.append(("tunr", .object([("yaw", .number("1"))])))
            items[0] = .object(step)
            fields[steps].1 = .array(items)
            return (.object(fields), .unknownField(path: "steps[0].tunr", null: false))
        case 2: fields.remove(at: index)
        case 3: fields[index].1 = .string("1")
        case 4: fields[index].1 = .number("1.5")
        case 5: fields[index].1 = .null
        case 6: fields[index].1 = .number("300")
        case 7: fields[index].1 = .array([.number("1")])
        default: fields[index].1 = .object([])
        }
        return (.object(fields), .other)
    }

    /// A `DecodingError`'s coding path as `ScriptFile`'s messages write it.
    static func path(of error: any Error) -> String? {
        let context: DecodingError.Context
        switch error as? DecodingError {
        case .typeMismatch(_, let found), .valueNotFound(_, let found), .keyNotFound(_, let found): context = found
        default: return nil
        }
        let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "top level" : text)
    }

    @Test func seededDocumentsDecodeAsJSONDecoderDecodesThem() throws {
        var random = SeededRandom(seed: 2026)
        var (agreed, refused, unknown) = (0, 0, 0)
        for round in 0..<1500 {
            var value = Self.document(&random)
            var change = Change.other
            if round % 3 != 0 { (value, change) = Self.changed(value, &random) }
            let text = value.text
            let expected = Result { try JSONDecoder().decode(Document.self, from: Data(text.utf8)) }
            let decoded = Result { try ScriptFile.decode(Array(text.utf8), file: "doc.json") as Document }
            switch (expected, decoded, change) {
            case (.success, .failure(let error), .unknownField(let path, false)):
                #expect("\(error)".hasSuffix("\(path): unknown field"), "\(text)")
                unknown += 1
            case (.success(let want), .success(let got), .other), (.success(let want), .success(let got), .unknownField(_, true)):
                #expect(want == got, "\(text)")
                agreed += 1
            case (.failure(let error), .failure(let refusal), _):
                if let path = Self.path(of: error) { #expect("\(refusal)".contains("\(path): "), "\(text): \(refusal) against \(error)") }
                refused += 1
            default:
                Issue.record("\(text): JSONDecoder \(expected), ScriptFile \(decoded), change \(change)")
            }
        }
        // Every kind of case came up, so that the comparison above means something.
        #expect(agreed > 300 && refused > 300 && unknown > 50, "\(agreed) agreed, \(refused) refused, \(unknown) unknown fields")
    }

    @Test func aFieldIsUnknownExactlyWhenTheTypeDoesNotReadIt() throws {
        struct Reads: Decodable {
            var a: Int
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Key.self)
                a = try container.decode(Int.self, forKey: .a)
                // `b` is only looked at, never read: it is still unknown. `c` is read.
                _ = container.contains(.b)
                _ = try container.decodeIfPresent(String.self, forKey: .c)
            }
            enum Key: String, CodingKey { case a, b, c }
        }
        let read: Reads = try ScriptFile.decode(Array(#"{"a": 1, "c": "x"}"#.utf8), file: "f.json")
        #expect(read.a == 1)
        #expect(throws: ScriptError.self) { try ScriptFile.decode(Array(#"{"a": 1, "b": 2}"#.utf8), file: "f.json") as Reads }
        do {
            _ = try ScriptFile.decode(Array("{\"a\": 1,\n \"b\": {\"deep\": 2}}".utf8), file: "f.json") as Reads
            Issue.record("b was never read")
        } catch {
            #expect("\(error)" == "f.json: line 2, column 7: b: unknown field")
        }
        // A field holding null says nothing, read or not.
        #expect(try (ScriptFile.decode(Array(#"{"a": 1, "b": null}"#.utf8), file: "f.json") as Reads).a == 1)
    }

    @Test func wholeNumbersAreTakenAsJSONDecoderTakesThem() throws {
        struct Whole: Codable { var n: Int }
        for text in ["7", "7.0", "7e0", "0.7e1", "-0"] {
            let want = try JSONDecoder().decode(Whole.self, from: Data(#"{"n": \#(text)}"#.utf8)).n
            #expect(try (ScriptFile.decode(Array(#"{"n": \#(text)}"#.utf8), file: "f.json") as Whole).n == want)
        }
        for text in ["7.5", "1e30", "9223372036854775808"] {
            #expect(throws: ScriptError.self) { try ScriptFile.decode(Array(#"{"n": \#(text)}"#.utf8), file: "f.json") as Whole }
        }
    }
}
