import HAL
import LibC

/// Why a file camera's path cannot be opened, in the words the rest of `hal` uses for files (`no such file`, `is a
/// directory`, `empty`, `permission denied`, `not a folder`), asked before OpenCV is, which says only that it
/// cannot read it.
enum CameraFiles {
    /// Throws unless `path` is a non-empty file it may read (or, with `isFolder`, a folder it may list); errors name `uri`.
    static func check(_ path: String, isFolder: Bool, uri: String) throws(DeviceError) {
        func refuse(_ cause: String) -> DeviceError { DeviceError(.notFound, uri: uri, "\(path): \(cause)") }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw refuse(errno == ENOENT ? (isFolder ? "no such folder" : "no such file") : String(cString: strerror(errno)).lowercased())
        }
        let directory = info.st_mode & S_IFMT == S_IFDIR
        if isFolder, !directory { throw refuse("not a folder") }
        if !isFolder, directory { throw refuse("is a directory, not a video file") }
        if !isFolder, info.st_size == 0 { throw refuse("the file is empty") }
        guard access(path, isFolder ? R_OK | X_OK : R_OK) == 0 else { throw refuse(String(cString: strerror(errno)).lowercased()) }
    }
}
