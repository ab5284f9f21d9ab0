extension Frame {
    /// What is wrong with the frame's bytes, as far as can be told without decoding them, or `nil`.
    ///
    /// Raw pixels must fill the frame's rows at its stride (one and a half planes for NV12); an
    /// encoded image must start and end whole: a JPEG with its start and end markers (trailing
    /// zero padding, which some cameras add, is allowed), a PNG with its signature and `IEND` chunk.
    /// A frame cut short by a failing transfer fails these. Frame files are not read here; they are
    /// checked when they are decoded.
    public var damage: String? {
        guard case .bytes(let bytes) = storage else { return nil }
        switch pixelFormat {
        case .mjpeg:
            var end = bytes.endIndex
            while end > bytes.startIndex, bytes[end - 1] == 0 { end -= 1 }
            guard bytes.starts(with: [0xFF, 0xD8]) else { return "the JPEG image has no start marker" }
            guard end - bytes.startIndex >= 4, bytes[end - 2] == 0xFF, bytes[end - 1] == 0xD9 else {
                return "the JPEG image is cut short: \(bytes.count) bytes and no end marker"
            }
            return nil
        case .png:
            guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return "the PNG image has no signature" }
            guard bytes.count >= 20, Array(bytes.suffix(8)) == [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82] else {
                return "the PNG image is cut short: \(bytes.count) bytes and no IEND chunk"
            }
            return nil
        case .grey, .yuyv, .rgb24, .bgr24, .nv12:
            let rows = pixelFormat == .nv12 ? height / 2 * 3 + height % 2 : height
            let (needed, overflow) = bytesPerRow.multipliedReportingOverflow(by: rows)
            guard !overflow, needed >= 0 else { return "the frame's stride and height are out of range" }
            guard bytes.count >= needed else {
                return "the frame is cut short: \(bytes.count) bytes of the \(needed) its \(width)×\(height) \(pixelFormat.rawValue) pixels need"
            }
            return nil
        }
    }
}
