/// A trace that cannot be read or written, naming the file, line and field.
public struct TraceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of problem.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The line is not valid JSON.
        case malformedJSON
        /// The header is missing, of another format, or of an unsupported version.
        case badHeader
        /// A record names a channel the header does not declare.
        case unknownChannel
        /// A record's timestamp is earlier than the one before it in the same channel.
        case timestampBackwards
        /// A required field is absent.
        case missingField
        /// A field this kind of record does not have.
        case unknownField
        /// A field has the wrong type or an impossible value.
        case invalidValue
        /// A channel's units are not the SI units its kind uses.
        case wrongUnits
        /// A frame's file path is absolute or climbs out of the trace's folder.
        case pathOutsideTrace
        /// The last line ends part-way through a record (a cut-off recording).
        case truncated
        /// The file could not be opened, read or written.
        case io
        /// An MCAP file's record is damaged; the message names the byte offset and the record.
        case badContainer
    }

    /// What kind of problem it is.
    public var kind: Kind
    /// The trace file, where there is one.
    public var file: String?
    /// The 1-based line, or 0 when the problem is not on one line.
    public var line: Int
    /// The field, as a path such as `channels[1].units` or `v[2]`, where one is to blame.
    public var field: String?
    /// What is wrong, in words.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, file: String? = nil, line: Int, field: String? = nil, _ message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.field = field
        self.message = message
    }

    /// `file:line: field 'name': message`.
    public var description: String {
        var text = file ?? "<trace>"
        if line > 0 { text += ":\(line)" }
        text += ": "
        if let field { text += "field '\(field)': " }
        return text + message
    }
}
