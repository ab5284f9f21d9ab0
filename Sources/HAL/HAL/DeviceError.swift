/// Why a device could not be opened or stopped delivering.
public struct DeviceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The URI is not well formed, or names a scheme nobody registered.
        case invalidURI
        /// Nothing is at that URI.
        case notFound
        /// The device exists but this user may not open it.
        case permissionDenied
        /// The device is of another kind than was asked for.
        case wrongKind
        /// The device went away while in use (unplugged, `ENODEV`, a remote board lost).
        case disconnected
        /// The device or its stream is already closed.
        case closed
        /// The device does not support what was asked, such as a rate or a format.
        case unsupported
        /// The device or its data source reported a failure.
        case ioFailure
    }

    /// What went wrong.
    public var code: Code
    /// The device's URI.
    public var uri: String
    /// A sentence a person can act on.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, uri: String, _ message: String) {
        self.code = code
        self.uri = uri
        self.message = message
    }

    /// `uri: message`.
    public var description: String { "\(uri): \(message)" }
}
