import FoundationEssentials

/// Finds the keys of a JSON document that a `Codable` type did not read, so that a
/// misspelt field in a script is an error instead of silently ignored.
///
/// It decodes the document, encodes the value again, and reports every object key of
/// the document (other than ones holding `null`) that the re-encoding lacks, with its path.
/// Both documents are walked in place with the project's JSON scanner: no tree is built.
enum UnknownKeys {
    static func find<Value: Codable>(in data: Data, decoded value: Value) throws -> [String] {
        let reencoded = try JSONEncoder().encode(value)
        var unknown: [String] = []
        try data.withUnsafeBytes { original in
            try reencoded.withUnsafeBytes { known in
                let originalBytes = original.bindMemory(to: UInt8.self), knownBytes = known.bindMemory(to: UInt8.self)
                var path: [PathComponent] = []
                try compare(
                    JSONScanner(originalBytes, range: 0..<originalBytes.count), JSONScanner(knownBytes, range: 0..<knownBytes.count),
                    path: &path, into: &unknown)
            }
        }
        return unknown
    }

    /// A step of the path to a value: a key, or an array index.
    private enum PathComponent {
        case key(String)
        case index(Int)
    }

    /// The path as a report names it: `steps[2].turn.yaw`. Made only for a key that is reported.
    private static func render(_ path: [PathComponent]) -> String {
        var text = ""
        for component in path {
            switch component {
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    private static func compare(
        _ original: JSONScanner, _ known: JSONScanner, path: inout [PathComponent], into unknown: inout [String]
    ) throws(JSONSyntaxError) {
        var original = original, known = known
        switch original.peek() {
        case UInt8(ascii: "{"):
            var fields: [JSONScanner.Field] = []
            try original.objectFields(into: &fields)
            var knownFields: [String: Range<Int>] = [:]
            if known.peek() == UInt8(ascii: "{") {
                var members: [JSONScanner.Field] = []
                try known.objectFields(into: &members)
                for member in members { knownFields[known.keyString(member)] = member.value }
            }
            let keyed = fields.map { (key: original.keyString($0), value: $0.value) }.sorted { $0.key < $1.key }
            for (key, value) in keyed {
                var element = JSONScanner(original.bytes, range: value)
                path.append(.key(key))
                defer { path.removeLast() }
                guard let knownValue = knownFields[key] else {
                    if !element.readNull() { unknown.append(render(path)) }
                    continue
                }
                try compare(element, JSONScanner(known.bytes, range: knownValue), path: &path, into: &unknown)
            }
        case UInt8(ascii: "["):
            guard known.peek() == UInt8(ascii: "[") else { return }
            for (index, (element, knownElement)) in try zip(elements(of: original), elements(of: known)).enumerated() {
                // Only objects and arrays hold keys: a number or a string is passed by.
                let first = original.bytes[element.lowerBound]
                guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { continue }
                path.append(.index(index))
                defer { path.removeLast() }
                try compare(JSONScanner(original.bytes, range: element), JSONScanner(known.bytes, range: knownElement), path: &path, into: &unknown)
            }
        default:
            return
        }
    }

    /// Where each element of the array at the scanner's position is.
    private static func elements(of array: JSONScanner) throws(JSONSyntaxError) -> [Range<Int>] {
        var scanner = array
        try scanner.expect(UInt8(ascii: "["), "'['")
        var ranges: [Range<Int>] = []
        if scanner.peek() == UInt8(ascii: "]") { return ranges }
        while true {
            scanner.skipWhitespace()
            let start = scanner.position
            try scanner.skipValue(depth: 1)
            ranges.append(start..<scanner.position)
            switch scanner.peek() {
            case UInt8(ascii: ","): scanner.position += 1
            default: return ranges
            }
        }
    }
}
