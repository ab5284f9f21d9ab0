import LibC
package import HAL
import SystemPackage

extension DeviceError {
    /// A typed error for a failed system call on a device: permissions, absence and removal get
    /// their own codes, and `access` says what grants access when permission was denied.
    package init(errno code: Int32, uri: String, doing action: String, access: String) {
        let reason = "\(action): \(describeErrno(code))"
        switch code {
        case EACCES, EPERM: self.init(.permissionDenied, uri: uri, "\(reason); \(access)")
        case ENOENT: self.init(.notFound, uri: uri, reason)
        case ENODEV, ENXIO, EPIPE, ECONNRESET, ESHUTDOWN, ENOTCONN: self.init(.disconnected, uri: uri, "the device went away (\(reason))")
        default: self.init(.ioFailure, uri: uri, reason)
        }
    }
}

/// A system call's error as text, as swift-system's `Errno` describes it: `No such file or directory`.
package func describeErrno(_ code: Int32) -> String {
    Errno(rawValue: code).description
}
