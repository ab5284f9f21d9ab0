import COpenCV

/// Writes BGR images into a Motion-JPEG AVI file with OpenCV's own writer (no codec library needed), such
/// as test videos for the `video:` source. OpenCV's AVI writer stores a whole number of frames per second.
public final class VideoWriter {
    private let pointer: OpaquePointer

    /// Creates the file.
    public init(path: String, framesPerSecond: Double, width: Int, height: Int) throws(CameraError) {
        try OpenCVBridge.load()
        guard let pointer = hal_cv_video_writer_open(path, framesPerSecond, Int32(width), Int32(height)) else {
            throw .openCV("cannot write \(path)")
        }
        self.pointer = pointer
    }

    /// Closes the file.
    deinit { hal_cv_video_writer_close(pointer) }

    /// Appends a frame: a BGR image of the video's size.
    public func append(_ image: CVImage) throws(CameraError) {
        guard hal_cv_video_writer_write(pointer, image.pointer) == 0 else { throw .openCV("cannot append the frame") }
    }
}
