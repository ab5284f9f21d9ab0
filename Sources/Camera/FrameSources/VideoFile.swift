public import HAL
public import HALTestDoubles
import COpenCV

/// A video file decoded by OpenCV, a frame at a time, as BGR: what the `video:` frame source and the
/// ``VideoFileScreen`` read. Not `Sendable`: one owner reads it.
final class VideoFile {
    /// The file.
    let path: String
    /// Frames per second, as the file states it (30 when it states none).
    let rate: Double
    /// The frame count the file states; reading may end sooner.
    let statedFrameCount: Int
    /// The index of the frame ``read()`` returns next.
    private(set) var nextIndex = 0
    private var handle: OpaquePointer
    private let uri: String

    /// Opens the file; errors name `uri`.
    init(path: String, uri: String) throws(DeviceError) {
        try CameraFiles.check(path, isFolder: false, uri: uri)
        do { try OpenCVBridge.load() } catch { throw DeviceError(.unsupported, uri: uri, error.description) }
        guard let handle = hal_cv_video_open(path) else { throw DeviceError(.notFound, uri: uri, String(cString: hal_cv_last_error())) }
        self.path = path
        self.uri = uri
        self.handle = handle
        let fps = hal_cv_video_fps(handle)
        rate = fps > 0 ? fps : 30
        statedFrameCount = max(0, Int(hal_cv_video_frame_count(handle)))
    }

    deinit { hal_cv_video_close(handle) }

    /// The next frame, stamped `timestamp`, with its index as its sequence; `nil` at the end.
    func read(at timestamp: Timestamp) -> Frame? {
        guard let image = hal_cv_video_read(handle) else { return nil }
        defer { hal_cv_image_free(image) }
        let width = Int(hal_cv_image_width(image)), height = Int(hal_cv_image_height(image))
        let stride = Int(hal_cv_image_stride(image))
        let bytes = Array(UnsafeBufferPointer(start: hal_cv_image_pixels(image), count: stride * height))
        defer { nextIndex += 1 }
        return Frame(
            timestamp: timestamp, sequence: UInt64(nextIndex), width: width, height: height, pixelFormat: .bgr24,
            bytesPerRow: stride, storage: .bytes(bytes))
    }

    /// Moves past the next frame without converting or copying it; `false` at the end.
    private func skip() -> Bool {
        guard hal_cv_video_grab(handle) != 0 else { return false }
        nextIndex += 1
        return true
    }

    /// Counts the frames by reading them all, for a file that states no count, and starts again from the first.
    func countFrames() -> Int {
        while skip() {}
        let count = nextIndex
        try? move(to: 0)
        return count
    }

    /// Makes frame `index` the next one ``read()`` returns: going through the frames before it from the start again
    /// when it lies behind (OpenCV's own seek lands on key frames in some codecs), so that a seek gives exactly the
    /// frames a straight read does. The frames passed over are not converted or copied.
    func move(to index: Int) throws(DeviceError) {
        if index < nextIndex {
            guard let reopened = hal_cv_video_open(path) else { throw DeviceError(.notFound, uri: uri, String(cString: hal_cv_last_error())) }
            hal_cv_video_close(handle)
            handle = reopened
            nextIndex = 0
        }
        while nextIndex < index, skip() {}
    }
}

extension VideoFile: ScreenVideo {
    /// The frame count the file states, or else the frames counted by reading it.
    var frameCount: Int { statedFrameCount > 0 ? statedFrameCount : countFrames() }
}

/// Video files decoded by OpenCV, as BGR: the ``HALTestDoubles/ScreenVideoSource`` of a `VideoFileScreen`. Each file
/// is decoded once per process and its frames shared by every screen that shows it (``DecodedVideos``).
public struct VideoFiles: ScreenVideoSource {
    /// Creates the source.
    public init() {}

    /// Opens the clip's file.
    public func open(_ clip: VideoClip) throws -> any ScreenVideo {
        try DecodedVideos.open(path: clip.path, uri: "video:\(clip.path)")
    }
}

/// A ``HALTestDoubles/SimulatedScreen`` that shows video files, decoding each frame as the `video:` frame source does
/// (OpenCV, BGR), at the file's frame rate.
public typealias VideoFileScreen = SimulatedScreen

extension SimulatedScreen {
    /// A screen showing video files (``VideoFiles``), each first frame `startDelay` after its request at the earliest.
    public convenience init(startDelay: Duration = .zero) {
        self.init(videos: VideoFiles(), startDelay: startDelay)
    }
}
