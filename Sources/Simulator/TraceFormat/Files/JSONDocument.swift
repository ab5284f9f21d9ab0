import FoundationEssentials
/// Places in a JSON document (a script, a scenario, a config), for errors that name the line and the column.
enum JSONDocument {
    /// One step of a path into a document: an object's member or an array's element.
    enum Step: Equatable {
        case key(String)
        case index(Int)
    }

    /// The 1-based line and column of the byte at `offset`.
    static func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        let prefix = bytes.prefix(max(0, min(offset, bytes.count)))
        let line = prefix.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        let column = prefix.count - (prefix.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
        return (line, column)
    }

    /// `line L, column C: what is wrong` when `bytes` are not one JSON value, by the strict scanner; `nil` when they are.
    static func syntaxError(in bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { buffer -> String? in
            var scanner = JSONScanner(buffer)
            do throws(JSONSyntaxError) {
                try scanner.skipValue()
                try scanner.expectEnd()
                return nil
            } catch {
                let (line, column) = lineAndColumn(of: error.column - 1, in: bytes)
                let message = error.message.replacing("end of line", with: "end of the file")
                return "line \(line), column \(column): not JSON: \(message)"
            }
        }
    }

    /// The byte offset where the value at `path` starts, or of as much of the path as the document has; `nil` when
    /// the document does not have the first step (it is not an object or array of that shape).
    static func offset(of path: [Step], in bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { buffer -> Int? in
            var scanner = JSONScanner(buffer)
            scanner.skipWhitespace()
            var found: Int?
            var fields: [JSONScanner.Field] = []
            for step in path {
                switch (step, scanner.peek()) {
                case (.key(let name), UInt8(ascii: "{")):
                    guard (try? scanner.objectFields(into: &fields)) != nil, let field = fields.first(where: { scanner.key($0, is: name) }) else {
                        return found
                    }
                    scanner = JSONScanner(buffer, range: field.value)
                case (.index(let index), UInt8(ascii: "[")):
                    scanner.position += 1
                    for _ in 0..<index {
                        guard (try? scanner.skipValue()) != nil, scanner.peek() == UInt8(ascii: ",") else { return found }
                        scanner.position += 1
                    }
                    guard let next = scanner.peek(), next != UInt8(ascii: "]") else { return found }
                default:
                    return found
                }
                scanner.skipWhitespace()
                found = scanner.position
            }
            return found
        }
    }

    /// A field path as errors write it, `expect[2].between` or `places.ubc.lat`, as steps.
    static func steps(_ field: String) -> [Step] {
        var steps: [Step] = []
        for part in field.split(separator: ".") {
            var name = Substring(part)
            var indices: [Int] = []
            while name.hasSuffix("]"), let open = name.lastIndex(of: "["), let index = Int(name[name.index(after: open)..<name.index(before: name.endIndex)]) {
                indices.insert(index, at: 0)
                name = name[..<open]
            }
            if !name.isEmpty { steps.append(.key(String(name))) }
            steps += indices.map(Step.index)
        }
        return steps
    }

    /// `line L, column C` of the field `field` (as errors write it) in `bytes`, or `nil` when the path is empty.
    static func place(of field: String, in bytes: [UInt8]) -> String? {
        let path = steps(field)
        guard !path.isEmpty, let offset = offset(of: path, in: bytes) else { return nil }
        // The field itself, or the object it is missing from.
        let (line, column) = lineAndColumn(of: offset, in: bytes)
        return "line \(line), column \(column)"
    }
}
