import CCompression

/// How a chunk's records are compressed: MCAP's three, through Debian's libzstd and liblz4 (LZ4's frame format).
public enum MCAPCompression: String, Sendable, CaseIterable {
    /// Stored as they are.
    case none = ""
    /// Zstandard, at the library's default level.
    case zstd
    /// LZ4, frame format.
    case lz4

    /// `bytes` compressed.
    func compress(_ bytes: [UInt8]) -> [UInt8] {
        switch self {
        case .none:
            return bytes
        case .zstd:
            var output = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count))
            let written = output.withUnsafeMutableBytes { out in
                bytes.withUnsafeBytes { ZSTD_compress(out.baseAddress, out.count, $0.baseAddress, $0.count, ZSTD_CLEVEL_DEFAULT) }
            }
            precondition(ZSTD_isError(written) == 0, "ZSTD_compress: \(String(cString: ZSTD_getErrorName(written)))")
            output.removeSubrange(written...)
            return output
        case .lz4:
            var output = [UInt8](repeating: 0, count: LZ4F_compressFrameBound(bytes.count, nil))
            let written = output.withUnsafeMutableBytes { out in
                bytes.withUnsafeBytes { LZ4F_compressFrame(out.baseAddress, out.count, $0.baseAddress, $0.count, nil) }
            }
            precondition(LZ4F_isError(written) == 0, "LZ4F_compressFrame: \(String(cString: LZ4F_getErrorName(written)))")
            output.removeSubrange(written...)
            return output
        }
    }

    /// `bytes` decompressed to `size` bytes, or why not.
    func decompress(_ bytes: ArraySlice<UInt8>, size: Int) -> Result<[UInt8], DecompressionFailure> {
        switch self {
        case .none:
            guard bytes.count == size else {
                return .failure(DecompressionFailure("the records are \(bytes.count) bytes where the chunk says \(size)"))
            }
            return .success(Array(bytes))
        case .zstd:
            // The frame says how large it is; memory for a size the chunk merely claims is not taken on trust.
            let declared = bytes.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
            if declared == ZSTD_CONTENTSIZE_ERROR { return .failure(DecompressionFailure("zstd: not a zstd frame")) }
            if declared != ZSTD_CONTENTSIZE_UNKNOWN, declared != UInt64(size) {
                return .failure(DecompressionFailure("the zstd frame holds \(declared) bytes where the chunk says \(size)"))
            }
            if declared == ZSTD_CONTENTSIZE_UNKNOWN, let failure = Self.implausible(size, from: bytes.count) { return .failure(failure) }
            var output = [UInt8](repeating: 0, count: size)
            let written = output.withUnsafeMutableBytes { out in
                bytes.withUnsafeBytes { ZSTD_decompress(out.baseAddress, out.count, $0.baseAddress, $0.count) }
            }
            if ZSTD_isError(written) != 0 { return .failure(DecompressionFailure("zstd: \(String(cString: ZSTD_getErrorName(written)))")) }
            guard written == size else {
                return .failure(DecompressionFailure("zstd gave \(written) bytes where the chunk says \(size)"))
            }
            return .success(output)
        case .lz4:
            var context: OpaquePointer?
            guard LZ4F_isError(LZ4F_createDecompressionContext(&context, UInt32(LZ4F_VERSION))) == 0, let context else {
                return .failure(DecompressionFailure("lz4: cannot create a decompression context"))
            }
            defer { LZ4F_freeDecompressionContext(context) }
            if let failure = Self.implausible(size, from: bytes.count) { return .failure(failure) }
            var output = [UInt8](repeating: 0, count: size)
            var produced = 0, consumed = 0
            let failure: String? = output.withUnsafeMutableBytes { out in
                bytes.withUnsafeBytes { input in
                    while consumed < input.count {
                        var outSize = out.count - produced, inSize = input.count - consumed
                        let hint = LZ4F_decompress(context, out.baseAddress! + produced, &outSize, input.baseAddress! + consumed, &inSize, nil)
                        if LZ4F_isError(hint) != 0 { return "lz4: \(String(cString: LZ4F_getErrorName(hint)))" }
                        produced += outSize
                        consumed += inSize
                        if hint == 0 { return consumed == input.count ? nil : "lz4: bytes after the frame's end" }
                        if outSize == 0 && inSize == 0 { return "lz4: more bytes than the chunk's size" }
                    }
                    return "lz4: the frame is cut short"
                }
            }
            if let failure { return .failure(DecompressionFailure(failure)) }
            guard produced == size else {
                return .failure(DecompressionFailure("lz4 gave \(produced) bytes where the chunk says \(size)"))
            }
            return .success(output)
        }
    }

    /// A failure when `size` bytes could not come from `compressed` bytes: more than zstd's and LZ4's largest
    /// ratios allow (LZ4 at most about 255:1; zstd is held to the same bound when its frame does not say its size).
    private static func implausible(_ size: Int, from compressed: Int) -> DecompressionFailure? {
        size <= 256 * compressed + 1_024 ? nil
            : DecompressionFailure("\(compressed) compressed bytes cannot hold the \(size) bytes the chunk says")
    }

    /// Why a chunk's records could not be decompressed.
    struct DecompressionFailure: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}

/// zlib's CRC-32 of `bytes`, continuing from `crc`.
func crc32(_ bytes: some Collection<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
    var value = UInt(crc)
    let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
        var start = 0
        while start < buffer.count {
            let count = min(buffer.count - start, Int(UInt32.max))
            value = CCompression.crc32(value, buffer.baseAddress! + start, UInt32(count))
            start += count
        }
    }
    if done == nil { return crc32(Array(bytes), continuing: crc) }
    return UInt32(truncatingIfNeeded: value)
}
