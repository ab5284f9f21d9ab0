/// An audio file that cannot be read or written: the file and why.
public struct AudioFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}
