public import HAL
import COpenCV

/// What a conversion produces.
public enum ImageTarget: Sendable, Hashable {
    /// 8-bit gray, one byte a pixel.
    case gray
    /// 8-bit BGR, OpenCV's colour order.
    case bgr

    var code: Int32 { self == .gray ? Int32(HAL_CV_TO_GRAY.rawValue) : Int32(HAL_CV_TO_BGR.rawValue) }
}

/// An error from OpenCV, with what was being done.
public struct CameraError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed and why.
    public var description: String

    /// Creates an error.
    public init(_ description: String) {
        self.description = description
    }

    package static func openCV(_ action: String) -> CameraError {
        CameraError("\(action): \(String(cString: hal_cv_last_error()))")
    }
}

/// An 8-bit gray or BGR image held by OpenCV: a frame converted for processing, or an image file.
///
/// Not `Sendable`: one task owns it. ``pixels`` copies them out; ``withPixels(_:)`` lends them without a copy.
public final class CVImage {
    package let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { hal_cv_image_free(pointer) }

    /// Converts a frame held in memory, or an encoded (JPEG or PNG) frame, to gray or BGR.
    public convenience init(converting frame: Frame, to target: ImageTarget) throws(CameraError) {
        try OpenCVBridge.load()
        guard case .bytes(let bytes) = frame.storage else {
            throw CameraError("frame \(frame.sequence) is a file; read it with CVImage(path:)")
        }
        let format = Self.formatCode(frame.pixelFormat)
        let converted = bytes.withUnsafeBufferPointer { buffer in
            hal_cv_convert(buffer.baseAddress, buffer.count, Int32(frame.width), Int32(frame.height), Int32(frame.bytesPerRow), format, target.code)
        }
        guard let converted else { throw .openCV("cannot convert a \(frame.pixelFormat.rawValue) frame") }
        self.init(converted)
    }

    /// A frame as a gray or BGR image, wherever its pixels are: converted from memory, or read from its file
    /// (a relative path is resolved in `frameFolder`, the folder of the trace that holds the frame). Encoded
    /// frames are decoded in colour and then turned gray with OpenCV's BGR-to-gray, as fer does, so that
    /// expression scores match fer's.
    public static func image(of frame: Frame, frameFolder: String?, as target: ImageTarget) throws(CameraError) -> CVImage {
        let colour: CVImage
        switch frame.storage {
        case .bytes where !frame.pixelFormat.isCompressed:
            return try CVImage(converting: frame, to: target)
        case .bytes:
            colour = try CVImage(converting: frame, to: .bgr)
        case .file(let path):
            colour = try CVImage(path: path.hasPrefix("/") ? path : (frameFolder.map { $0 + "/" + path } ?? path), as: .bgr)
        }
        return target == .gray ? try colour.grayscale() : colour
    }

    /// Converts pixels lent from elsewhere (a driver's buffer) without copying them first.
    public convenience init(
        borrowing bytes: UnsafeRawBufferPointer, format: PixelFormat, width: Int, height: Int, bytesPerRow: Int, to target: ImageTarget
    ) throws(CameraError) {
        try OpenCVBridge.load()
        let converted = hal_cv_convert(
            bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(width), Int32(height), Int32(bytesPerRow),
            Self.formatCode(format), target.code)
        guard let converted else { throw .openCV("cannot convert a \(format.rawValue) frame") }
        self.init(converted)
    }

    /// Reads an image file (JPEG, PNG, and what else OpenCV decodes).
    public convenience init(path: String, as target: ImageTarget) throws(CameraError) {
        try OpenCVBridge.load()
        guard let image = hal_cv_image_read(path, target.code) else { throw .openCV("cannot read \(path)") }
        self.init(image)
    }

    /// Copies packed pixels (`channels` 1 for gray, 3 for BGR).
    public convenience init(pixels: [UInt8], width: Int, height: Int, channels: Int) throws(CameraError) {
        guard channels == 1 || channels == 3, pixels.count >= width * height * channels, width > 0, height > 0 else {
            throw CameraError("\(pixels.count) bytes are not a \(width)×\(height) image of \(channels) channels")
        }
        try OpenCVBridge.load()
        let image = pixels.withUnsafeBufferPointer {
            hal_cv_image_create($0.baseAddress, Int32(width), Int32(height), Int32(channels), Int32(width * channels))
        }
        guard let image else { throw .openCV("cannot make an image") }
        self.init(image)
    }

    /// The image in gray: a BGR image through OpenCV's BGR-to-gray weights (as fer converts), a gray one copied.
    public func grayscale() throws(CameraError) -> CVImage {
        guard let gray = hal_cv_image_gray(pointer) else { throw .openCV("cannot convert to gray") }
        return CVImage(gray)
    }

    /// Width in pixels.
    public var width: Int { Int(hal_cv_image_width(pointer)) }
    /// Height in pixels.
    public var height: Int { Int(hal_cv_image_height(pointer)) }
    /// 1 for gray, 3 for BGR.
    public var channels: Int { Int(hal_cv_image_channels(pointer)) }
    /// Bytes from one row to the next.
    public var bytesPerRow: Int { Int(hal_cv_image_stride(pointer)) }

    /// Lends the pixels, rows ``bytesPerRow`` apart, without copying them.
    public func withPixels<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: hal_cv_image_pixels(pointer), count: bytesPerRow * height))
    }

    /// The pixels, copied, packed row after row.
    public var pixels: [UInt8] {
        withPixels { buffer in
            var packed: [UInt8] = []
            packed.reserveCapacity(width * height * channels)
            for row in 0..<height {
                let start = row * bytesPerRow
                packed += buffer[start..<(start + width * channels)]
            }
            return packed
        }
    }

    /// Writes an image file; the extension (`.jpg`, `.png`) picks the codec.
    public func write(to path: String) throws(CameraError) {
        guard hal_cv_image_write(pointer, path) == 0 else { throw .openCV("cannot write \(path)") }
    }

    /// The image encoded as `.jpg` or `.png`.
    public func encoded(as fileExtension: String) throws(CameraError) -> [UInt8] {
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard hal_cv_image_encode(pointer, fileExtension, &bytes, &length) == 0, let bytes else { throw .openCV("cannot encode \(fileExtension)") }
        defer { hal_cv_free_bytes(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    static func formatCode(_ format: PixelFormat) -> Int32 {
        let code: hal_cv_pixel_format
        switch format {
        case .grey: code = HAL_CV_GREY
        case .yuyv: code = HAL_CV_YUYV
        case .nv12: code = HAL_CV_NV12
        case .rgb24: code = HAL_CV_RGB24
        case .bgr24: code = HAL_CV_BGR24
        case .mjpeg: code = HAL_CV_MJPEG
        case .png: code = HAL_CV_PNG
        }
        return Int32(code.rawValue)
    }
}
