import Foundation

/// Finds the keys of a JSON document that a `Codable` type did not read, so that a
/// misspelt field in a script is an error instead of silently ignored.
///
/// It decodes the document, encodes the value again, and reports every object key of
/// the document (other than ones holding `null`) that the re-encoding lacks, with its path.
enum UnknownKeys {
    static func find<Value: Codable>(in data: Data, decoded value: Value) throws -> [String] {
        let original = try JSONSerialization.jsonObject(with: data)
        let reencoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value))
        var unknown: [String] = []
        compare(original, reencoded, path: "", into: &unknown)
        return unknown
    }

    private static func compare(_ original: Any, _ known: Any, path: String, into unknown: inout [String]) {
        if let object = original as? [String: Any] {
            let knownObject = known as? [String: Any] ?? [:]
            for key in object.keys.sorted() {
                let place = path.isEmpty ? key : "\(path).\(key)"
                guard let knownValue = knownObject[key] else {
                    if !(object[key] is NSNull) { unknown.append(place) }
                    continue
                }
                compare(object[key]!, knownValue, path: place, into: &unknown)
            }
        } else if let array = original as? [Any], let knownArray = known as? [Any] {
            for (index, element) in array.enumerated() where index < knownArray.count {
                compare(element, knownArray[index], path: "\(path)[\(index)]", into: &unknown)
            }
        }
    }
}
