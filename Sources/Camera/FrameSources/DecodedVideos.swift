import HAL
import HALTestDoubles

/// Video files decoded once per process, for screens that show the same few videos again and again, as a suite of
/// scenarios does: each frame is decoded and converted to BGR once, and every screen that shows the file reads the
/// same pixels, as the `Audio` module's prepared clips share their samples.
///
/// A file is known by its path, size and modification time, so a file that changes is decoded again. At most
/// ``capacity`` files of at most ``largestCachedBytes`` bytes of pixels are kept; the cache starts over when full, and
/// a larger file is decoded frame by frame as it is shown.
public enum DecodedVideos {
    /// The most files kept.
    public static let capacity = 16
    /// The most bytes of pixels a kept file has (about 27 s of 640×480 BGR at 30 frames per second).
    public static let largestCachedBytes = 768 << 20

    /// A decoded file: its frames in order, its stated rate and frame count.
    final class Decoded: Sendable {
        let rate: Double
        let statedFrameCount: Int
        let frames: [Frame]

        init(rate: Double, statedFrameCount: Int, frames: [Frame]) {
            self.rate = rate
            self.statedFrameCount = statedFrameCount
            self.frames = frames
        }
    }

    private static let cache = Locked<[FileVersion: Decoded]>([:])

    /// The video at `path`, from the cache or decoded now; errors name `uri`, as ``VideoFiles`` gives them.
    static func open(path: String, uri: String) throws(DeviceError) -> any ScreenVideo {
        guard let key = FileVersion(path: path) else { return try VideoFile(path: path, uri: uri) }
        if let known = cache.withLock({ $0[key] }) { return DecodedVideo(known) }
        let file = try VideoFile(path: path, uri: uri)
        var frames: [Frame] = []
        var bytes = 0
        while bytes <= largestCachedBytes, let frame = file.read(at: .zero) {
            frames.append(frame)
            bytes += frame.bytesPerRow * frame.height
        }
        guard bytes <= largestCachedBytes else {
            // Too large to keep: shown from the file, frame by frame.
            try file.move(to: 0)
            return file
        }
        let decoded = Decoded(rate: file.rate, statedFrameCount: file.statedFrameCount, frames: frames)
        cache.withLock { cache in
            if cache.count >= capacity { cache.removeAll() }
            cache[key] = decoded
        }
        return DecodedVideo(decoded)
    }
}

/// A decoded file shown from memory: what ``VideoFile`` gives, frame for frame, without decoding again.
final class DecodedVideo: ScreenVideo {
    private let decoded: DecodedVideos.Decoded
    private var nextIndex = 0

    init(_ decoded: DecodedVideos.Decoded) {
        self.decoded = decoded
    }

    var rate: Double { decoded.rate }

    /// The frame count the file states, or else the frames it has, as ``VideoFile`` counts them.
    var frameCount: Int { decoded.statedFrameCount > 0 ? decoded.statedFrameCount : decoded.frames.count }

    /// Makes frame `index` the next one read; past the last frame, reading ends, as in the file.
    func move(to index: Int) throws(DeviceError) {
        nextIndex = min(max(index, 0), decoded.frames.count)
    }

    func read(at time: Timestamp) -> Frame? {
        guard nextIndex < decoded.frames.count else { return nil }
        var frame = decoded.frames[nextIndex]
        frame.timestamp = time
        nextIndex += 1
        return frame
    }
}
