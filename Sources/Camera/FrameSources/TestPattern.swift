public import HAL

/// Synthetic frames for tests and demos: colour bars, a gradient or a checkerboard that moves one step
/// a frame, in any raw format the HAL knows. The same options always give the same bytes.
public struct TestPattern: Sendable, Hashable {
    /// The picture.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Eight vertical colour bars, scrolling.
        case bars
        /// A diagonal gradient, scrolling.
        case gradient
        /// A 32-pixel checkerboard, scrolling.
        case checkers
    }

    /// The picture.
    public var kind: Kind
    /// Width, even.
    public var width: Int
    /// Height, even.
    public var height: Int
    /// The pixel format: GREY, YUYV, NV12, RGB3 or BGR3.
    public var format: PixelFormat

    /// Creates a pattern; width and height are rounded down to even numbers for the 4:2:x formats.
    public init(kind: Kind, width: Int, height: Int, format: PixelFormat) {
        self.kind = kind
        self.width = max(2, width & ~1)
        self.height = max(2, height & ~1)
        self.format = format
    }

    /// Frame `index` at `timestamp`.
    public func frame(_ index: Int, at timestamp: Timestamp) -> Frame {
        var bgr = [UInt8](repeating: 0, count: width * height * 3)
        let bars: [(UInt8, UInt8, UInt8)] = [(255, 255, 255), (0, 255, 255), (255, 255, 0), (0, 255, 0), (255, 0, 255), (0, 0, 255), (255, 0, 0), (0, 0, 0)]
        for y in 0..<height {
            for x in 0..<width {
                let shifted = (x + 4 * index) % width
                let pixel: (UInt8, UInt8, UInt8)
                switch kind {
                case .bars: pixel = bars[shifted * 8 / width]
                case .gradient:
                    let value = UInt8(truncatingIfNeeded: (shifted + y) * 255 / max(1, width + height - 2))
                    pixel = (value, UInt8(truncatingIfNeeded: y * 255 / max(1, height - 1)), 255 &- value)
                case .checkers: pixel = ((shifted / 32 + y / 32) % 2 == 0) ? (230, 230, 230) : (25, 25, 25)
                }
                let offset = (y * width + x) * 3
                bgr[offset] = pixel.0
                bgr[offset + 1] = pixel.1
                bgr[offset + 2] = pixel.2
            }
        }
        let (bytes, stride) = Self.encode(bgr, width: width, height: height, as: format)
        return Frame(timestamp: timestamp, sequence: UInt64(index), width: width, height: height, pixelFormat: format, bytesPerRow: stride, storage: .bytes(bytes))
    }

    /// BGR pixels in another raw format (BT.601 studio range for YUV, full range for GREY), with its stride.
    static func encode(_ bgr: [UInt8], width: Int, height: Int, as format: PixelFormat) -> ([UInt8], Int) {
        func yuv(_ offset: Int) -> (Double, Double, Double) {
            let b = Double(bgr[offset]), g = Double(bgr[offset + 1]), r = Double(bgr[offset + 2])
            return (16 + 0.257 * r + 0.504 * g + 0.098 * b, 128 - 0.148 * r - 0.291 * g + 0.439 * b, 128 + 0.439 * r - 0.368 * g - 0.071 * b)
        }
        func byte(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        switch format {
        case .bgr24:
            return (bgr, width * 3)
        case .rgb24:
            var rgb = bgr
            for offset in stride(from: 0, to: rgb.count, by: 3) { rgb.swapAt(offset, offset + 2) }
            return (rgb, width * 3)
        case .grey:
            // Full-range luma, as V4L2 GREY cameras and OpenCV's BGR-to-gray give it.
            let gray: [UInt8] = (0..<(width * height)).map { (pixel: Int) -> UInt8 in
                let blue: Double = 0.114 * Double(bgr[pixel * 3])
                let green: Double = 0.587 * Double(bgr[pixel * 3 + 1])
                let red: Double = 0.299 * Double(bgr[pixel * 3 + 2])
                return byte(blue + green + red)
            }
            return (gray, width)
        case .yuyv:
            var out = [UInt8](repeating: 0, count: width * height * 2)
            for pixel in stride(from: 0, to: width * height, by: 2) {
                let first = yuv(pixel * 3), second = yuv(pixel * 3 + 3)
                out[pixel * 2] = byte(first.0)
                out[pixel * 2 + 1] = byte((first.1 + second.1) / 2)
                out[pixel * 2 + 2] = byte(second.0)
                out[pixel * 2 + 3] = byte((first.2 + second.2) / 2)
            }
            return (out, width * 2)
        case .nv12:
            var out = [UInt8](repeating: 0, count: width * height * 3 / 2)
            for pixel in 0..<(width * height) { out[pixel] = byte(yuv(pixel * 3).0) }
            for y in stride(from: 0, to: height, by: 2) {
                for x in stride(from: 0, to: width, by: 2) {
                    let sample = yuv((y * width + x) * 3)
                    let chroma = width * height + (y / 2) * width + x
                    out[chroma] = byte(sample.1)
                    out[chroma + 1] = byte(sample.2)
                }
            }
            return (out, width)
        case .mjpeg, .png:
            return (bgr, width * 3)  // not raw formats: the caller encodes
        }
    }
}
