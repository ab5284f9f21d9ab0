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
                try compare(
                    JSONScanner(originalBytes, range: 0..<originalBytes.count), JSONScanner(knownBytes, range: 0..<knownBytes.count),
                    path: "", into: &unknown)
            }
        }
        return unknown
    }

    private static func compare(_ original: JSONScanner, _ known: JSONScanner, path: String, into unknown: inout [String]) throws(JSONSyntaxError) {
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
                let place = path.isEmpty ? key : "\(path).\(key)"
                var element = JSONScanner(original.bytes, range: value)
                guard let knownValue = knownFields[key] else {
                    if !element.readNull() { unknown.append(place) }
                    continue
                }
                try compare(element, JSONScanner(known.bytes, range: knownValue), path: place, into: &unknown)
            }
        case UInt8(ascii: "["):
            guard known.peek() == UInt8(ascii: "[") else { return }
            for (index, (element, knownElement)) in try zip(elements(of: original), elements(of: known)).enumerated() {
                try compare(
                    JSONScanner(original.bytes, range: element), JSONScanner(known.bytes, range: knownElement), path: "\(path)[\(index)]",
                    into: &unknown)
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
