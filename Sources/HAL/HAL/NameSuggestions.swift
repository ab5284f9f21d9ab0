/// "Did you mean …?" for a name a file gives that the run does not have: an event, a channel, a kind, an attribute.
public enum NameSuggestions {
    /// `; did you mean …?` with the closest names, or the whole list when it is short.
    public static func hint(_ name: String, among names: some Collection<String>, kind: String) -> String {
        let closest = names.map { (name: $0, distance: editDistance(name.lowercased(), $0.lowercased())) }
            .filter { $0.distance <= max(2, name.count / 3) }
            .sorted { ($0.distance, $0.name) < ($1.distance, $1.name) }
            .prefix(3).map(\.name)
        if !closest.isEmpty { return "; did you mean \(closest.map { "'\($0)'" }.joined(separator: " or "))?" }
        if names.isEmpty { return "; it has none" }
        if names.count <= 12 { return "; the \(kind) are \(names.sorted().joined(separator: ", "))" }
        return ""
    }

    /// The Levenshtein distance between two names.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
