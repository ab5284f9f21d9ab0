/// A unified diff of two texts' lines (Myers' algorithm), as `diff -u` prints it.
public enum LineDiff {
    /// The hunks that turn `old` into `new`, with `context` lines around each change, under `---`/`+++` headers;
    /// empty when the texts have the same lines.
    public static func unified(old: [String], new: [String], oldName: String, newName: String, context: Int = 3) -> String {
        let script = edits(old, new)
        guard script.contains(where: { $0.kind != .same }) else { return "" }
        var out = "--- \(oldName)\n+++ \(newName)\n"
        // Hunks: runs of changes whose gaps of unchanged lines are at most twice the context, with the context around.
        let changes = script.indices.filter { script[$0].kind != .same }
        var hunks: [Range<Int>] = []
        for change in changes {
            if let last = hunks.last, change - last.upperBound <= 2 * context {
                hunks[hunks.count - 1] = last.lowerBound..<(change + 1)
            } else {
                hunks.append(change..<(change + 1))
            }
        }
        for changed in hunks {
            let hunk = script[max(0, changed.lowerBound - context)..<min(script.count, changed.upperBound + context)]
            let oldLines = hunk.filter { $0.kind != .insert }, newLines = hunk.filter { $0.kind != .delete }
            let oldStart = oldLines.first.map { $0.old + 1 } ?? (hunk.first?.old ?? 0)
            let newStart = newLines.first.map { $0.new + 1 } ?? (hunk.first?.new ?? 0)
            out += "@@ -\(oldStart),\(oldLines.count) +\(newStart),\(newLines.count) @@\n"
            for edit in hunk {
                switch edit.kind {
                case .same: out += " " + old[edit.old] + "\n"
                case .delete: out += "-" + old[edit.old] + "\n"
                case .insert: out += "+" + new[edit.new] + "\n"
                }
            }
        }
        return out
    }

    struct Edit {
        enum Kind { case same, delete, insert }
        let kind: Kind
        /// The line's place in the old text (for an insert, where it goes).
        let old: Int
        /// The line's place in the new text (for a delete, where it was).
        let new: Int
    }

    /// The shortest edit script, by Myers' O((N+M)·D) greedy algorithm.
    static func edits(_ a: [String], _ b: [String]) -> [Edit] {
        let n = a.count, m = b.count, max = n + m
        var v = [Int](repeating: 0, count: 2 * max + 2)
        var trace: [[Int]] = []
        search: for d in 0...max {
            trace.append(v)
            for k in stride(from: -d, through: d, by: 2) {
                var x = (k == -d || (k != d && v[max + k - 1] < v[max + k + 1])) ? v[max + k + 1] : v[max + k - 1] + 1
                var y = x - k
                while x < n, y < m, a[x] == b[y] {
                    x += 1
                    y += 1
                }
                v[max + k] = x
                if x >= n, y >= m { trace.append(v); break search }
            }
        }
        // Walk back through the saved frontiers.
        var edits: [Edit] = []
        var x = n, y = m
        for d in stride(from: trace.count - 2, through: 0, by: -1) {
            let v = trace[d]
            let k = x - y
            let previousK = (k == -d || (k != d && v[max + k - 1] < v[max + k + 1])) ? k + 1 : k - 1
            let previousX = v[max + previousK]
            let previousY = previousX - previousK
            while x > previousX, y > previousY {
                x -= 1
                y -= 1
                edits.append(Edit(kind: .same, old: x, new: y))
            }
            if d > 0 {
                if x == previousX {
                    y -= 1
                    edits.append(Edit(kind: .insert, old: x, new: y))
                } else {
                    x -= 1
                    edits.append(Edit(kind: .delete, old: x, new: y))
                }
            }
        }
        return edits.reversed()
    }
}
