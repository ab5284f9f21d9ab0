/// A device's name, such as `trace:walk.jsonl#gps`, `iio:local/iio:device0`,
/// `nmea:/dev/ttyACM0?baud=9600` or `gpsd://127.0.0.1:2947`.
///
/// The form is `scheme:body[?query][#fragment]`. The scheme picks the backend;
/// the backend gives the body, query and fragment their meaning.
public struct DeviceURI: Sendable, Hashable, CustomStringConvertible {
    /// The backend's name, lowercased, such as `trace` or `iio`.
    public let scheme: String
    /// Everything between the scheme's colon and the query or fragment.
    public let body: String
    /// The query's `key=value` pairs, in order; a bare `key` has an empty value.
    public let query: [(key: String, value: String)]
    /// The part after `#`, such as a trace channel's id.
    public let fragment: String?
    /// The URI as it was written.
    public let description: String

    /// Parses a URI. Throws ``DeviceError`` with code ``DeviceError/Code/invalidURI``
    /// when there is no scheme or the body is empty.
    public init(_ text: String) throws(DeviceError) {
        guard let colon = text.firstIndex(of: ":") else {
            throw DeviceError(.invalidURI, uri: text, "a device URI starts with a scheme, such as trace: or iio:")
        }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isLetter,
              scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
        else {
            throw DeviceError(.invalidURI, uri: text, "'\(scheme)' is not a URI scheme")
        }
        var rest = text[text.index(after: colon)...]
        var fragment: String?
        if let hash = rest.lastIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        var query: [(key: String, value: String)] = []
        if let mark = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query.append((String(parts[0]), parts.count > 1 ? String(parts[1]) : ""))
            }
            rest = rest[..<mark]
        }
        guard !rest.isEmpty else {
            throw DeviceError(.invalidURI, uri: text, "the URI names no device after '\(scheme):'")
        }
        self.description = text
        self.scheme = scheme.lowercased()
        self.body = String(rest)
        self.query = query
        self.fragment = fragment
    }

    /// The value of the first query item named `key`.
    public func queryValue(_ key: String) -> String? {
        query.first { $0.key == key }?.value
    }

    /// For `scheme://host:port` forms, the `host:port` part.
    public var authority: String? {
        guard body.hasPrefix("//") else { return nil }
        let afterSlashes = body.dropFirst(2)
        return String(afterSlashes.prefix { $0 != "/" })
    }

    /// Compares the URIs as written.
    public static func == (lhs: DeviceURI, rhs: DeviceURI) -> Bool {
        lhs.description == rhs.description
    }

    /// Hashes the URI's text.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(description)
    }
}
