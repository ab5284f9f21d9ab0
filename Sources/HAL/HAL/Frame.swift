/// How a frame's pixels are laid out, named as V4L2 names them.
public enum PixelFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// Packed YUV 4:2:2, two bytes a pixel (`V4L2_PIX_FMT_YUYV`).
    case yuyv = "YUYV"
    /// Motion-JPEG: each frame is one JPEG image (`V4L2_PIX_FMT_MJPEG`).
    case mjpeg = "MJPG"
    /// 8-bit grey (`V4L2_PIX_FMT_GREY`).
    case grey = "GREY"
    /// YUV 4:2:0, a Y plane then interleaved CbCr (`V4L2_PIX_FMT_NV12`).
    case nv12 = "NV12"
    /// Packed 8-bit RGB (`V4L2_PIX_FMT_RGB24`).
    case rgb24 = "RGB3"
    /// Packed 8-bit BGR, OpenCV's order (`V4L2_PIX_FMT_BGR24`).
    case bgr24 = "BGR3"
    /// A PNG image file.
    case png = "PNG"

    /// Whether each frame is a compressed image rather than a pixel grid.
    public var isCompressed: Bool { self == .mjpeg || self == .png }
}

/// Where a frame's pixels are.
public enum FrameStorage: Sendable, Hashable {
    /// The pixels in memory, in the frame's ``PixelFormat`` with its ``Frame/bytesPerRow``.
    case bytes([UInt8])
    /// An encoded image file (JPEG or PNG). A relative path is relative to the folder
    /// of the trace that references it, and never leaves that folder.
    case file(path: String)
}

/// One camera frame.
public struct Frame: Sendable, Hashable {
    /// When the frame was captured.
    public var timestamp: Timestamp
    /// The capture sequence number. A gap means frames were dropped.
    public var sequence: UInt64
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The pixel layout.
    public var pixelFormat: PixelFormat
    /// Bytes from one row to the next, 0 for compressed formats.
    public var bytesPerRow: Int
    /// The pixels.
    public var storage: FrameStorage

    /// Creates a frame.
    public init(
        timestamp: Timestamp, sequence: UInt64, width: Int, height: Int,
        pixelFormat: PixelFormat, bytesPerRow: Int, storage: FrameStorage
    ) {
        self.timestamp = timestamp
        self.sequence = sequence
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.bytesPerRow = bytesPerRow
        self.storage = storage
    }
}
