/// What went wrong reading or writing an MCAP file, and where: the file, the byte offset and the record.
public struct MCAPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file, or `<memory>` for bytes read from memory.
    public var file: String
    /// The byte offset in the file where the bad record (or field) starts.
    public var offset: UInt64
    /// The record being read, such as `Chunk` or `Message`, or `file` for the file as a whole.
    public var record: String
    /// What is wrong, in words.
    public var reason: String

    /// An error at `offset` of `file`, in `record`.
    public init(file: String, offset: UInt64, record: String, _ reason: String) {
        self.file = file
        self.offset = offset
        self.record = record
        self.reason = reason
    }

    /// `FILE: byte OFFSET: RECORD record: REASON`.
    public var description: String { "\(file): byte \(offset): \(record) record: \(reason)" }
}
