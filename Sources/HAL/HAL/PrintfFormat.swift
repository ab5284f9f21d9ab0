import LibC

/// Numbers as C's `printf` formats them: `printfFormat("%.1f s", 2.25)` is `2.2 s`. For the tool's and the reports'
/// text, with no Foundation: `%f`, `%g`, `%e`, `%d` and their flags, widths and precisions; a string is passed as
/// interpolated text, never as `%s` or `%@`.
package func printfFormat(_ format: String, _ arguments: any CVarArg...) -> String {
    // Formatted into 128 bytes, and again at the length asked for when that is more.
    var buffer = [CChar](repeating: 0, count: 128)
    let needed = Int(withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) })
    if needed >= buffer.count {
        buffer = [CChar](repeating: 0, count: needed + 1)
        _ = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
    }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

extension StringProtocol {
    /// The text without the spaces, tabs and line breaks around it.
    package var trimmedWhitespace: String {
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
