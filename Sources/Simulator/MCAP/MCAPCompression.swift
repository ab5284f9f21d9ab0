import CCompression

/// How a chunk's records are compressed: MCAP's three, through Debian's libzstd and liblz4 (LZ4's frame format).
public enum MCAPCompression: String, Sendable, CaseIterable {
    /// Stored as they are.
    case none = ""
    /// Zstandard, at the library's default level.
    case zstd
    /// LZ4, frame format.
    case lz4

    /// The compression a command line or a doc names: `none`, `zstd` or `lz4`.
    public init?(named name: String) {
        switch name {
        case "none": self = .none
        case "zstd": self = .zstd
        case "lz4": self = .lz4
        default: return nil
        }
    }

    /// `none`, `zstd` or `lz4`.
    public var name: String { self == .none ? "none" : rawValue }

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
    ///
    /// Both codecs stream into an output that grows as it fills, up to `size`: memory follows what the compressed
    /// bytes really hold, not what a damaged chunk or frame header claims.
    func decompress(_ bytes: ArraySlice<UInt8>, size: Int) -> Result<[UInt8], DecompressionFailure> {
        switch self {
        case .none:
            guard bytes.count == size else {
                return .failure(DecompressionFailure("the records are \(bytes.count) bytes where the chunk says \(size)"))
            }
            return .success(Array(bytes))
        case .zstd:
            guard let stream = ZSTD_createDStream() else { return .failure(DecompressionFailure("zstd: cannot create a decompression stream")) }
            defer { ZSTD_freeDStream(stream) }
            return Self.inflate(bytes, size: size, codec: "zstd") { input, output in
                var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
                var destination = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
                let result = ZSTD_decompressStream(stream, &destination, &source)
                if ZSTD_isError(result) != 0 { return (0, 0, false, String(cString: ZSTD_getErrorName(result))) }
                return (source.pos, destination.pos, result == 0, nil)
            }
        case .lz4:
            var context: OpaquePointer?
            guard LZ4F_isError(LZ4F_createDecompressionContext(&context, UInt32(LZ4F_VERSION))) == 0, let context else {
                return .failure(DecompressionFailure("lz4: cannot create a decompression context"))
            }
            defer { LZ4F_freeDecompressionContext(context) }
            return Self.inflate(bytes, size: size, codec: "lz4") { input, output in
                var inSize = input.count, outSize = output.count
                let hint = LZ4F_decompress(context, output.baseAddress, &outSize, input.baseAddress, &inSize, nil)
                if LZ4F_isError(hint) != 0 { return (0, 0, false, String(cString: LZ4F_getErrorName(hint))) }
                return (inSize, outSize, hint == 0, nil)
            }
        }
    }

    /// Runs `step` (which decompresses from the start of an input window into an output window, and says how much it
    /// took and gave and whether a frame ended, or its error) until the input is used up.
    ///
    /// The output starts at what the input could plausibly give (4:1, at least 64 KiB) and doubles as it fills, up to
    /// `size` bytes: memory follows what the compressed bytes really hold, not what a damaged chunk header claims. It
    /// is never zeroed first: each buffer holds what was written so far and is cut to what the codec wrote.
    private static func inflate(
        _ bytes: ArraySlice<UInt8>, size: Int, codec: String,
        step: (UnsafeRawBufferPointer, UnsafeMutableRawBufferPointer) -> (taken: Int, given: Int, frameEnded: Bool, error: String?)
    ) -> Result<[UInt8], DecompressionFailure> {
        var capacity = min(size, max(1 << 16, 4 * bytes.count))
        var output: [UInt8] = []
        var consumed = 0
        while true {
            var outcome = Drained.full
            let written = output
            output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                if !written.isEmpty { _ = UnsafeMutableBufferPointer(rebasing: buffer[..<written.count]).initialize(from: written) }
                initialized = written.count
                outcome = bytes.withUnsafeBytes { input in
                    drain(input, consumed: &consumed, into: UnsafeMutableRawBufferPointer(buffer), produced: &initialized, size: size, codec: codec, step: step)
                }
            }
            switch outcome {
            case .done: return .success(output)
            case .failed(let reason): return .failure(DecompressionFailure(reason))
            case .full: capacity = min(size, 2 * capacity)
            }
        }
    }

    /// How ``drain(_:consumed:into:produced:size:codec:step:)`` stopped.
    private enum Drained {
        /// The input is used up and gave `size` bytes.
        case done
        /// The output is full before `size` bytes: a larger one is needed.
        case full
        case failed(String)
    }

    /// Runs `step` from `consumed` in `input` into `output` from `produced`, until the input is used up, the output
    /// (short of `size` bytes) is full, or the codec fails.
    private static func drain(
        _ input: UnsafeRawBufferPointer, consumed: inout Int, into output: UnsafeMutableRawBufferPointer, produced: inout Int, size: Int,
        codec: String, step: (UnsafeRawBufferPointer, UnsafeMutableRawBufferPointer) -> (taken: Int, given: Int, frameEnded: Bool, error: String?)
    ) -> Drained {
        while true {
            if produced == output.count, output.count < size { return .full }
            let (taken, given, frameEnded, error) = step(
                UnsafeRawBufferPointer(rebasing: input[consumed...]), UnsafeMutableRawBufferPointer(rebasing: output[produced...]))
            if let error { return .failed("\(codec): \(error)") }
            consumed += taken
            produced += given
            if frameEnded && consumed == input.count {
                return produced == size ? .done : .failed("\(codec) gave \(produced) bytes where the chunk says \(size)")
            }
            if taken == 0 && given == 0 {
                if consumed == input.count { return .failed("\(codec): the frame is cut short") }
                return .failed(produced == size ? "\(codec) gives more than the \(size) bytes the chunk says" : "\(codec) makes no progress")
            }
        }
    }

    /// Why a chunk's records could not be decompressed.
    struct DecompressionFailure: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}

/// The CRC-32 (zlib's, as MCAP specifies) of `bytes`, continuing from `crc`, through libdeflate.
package func crc32(_ bytes: some Collection<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
    var value = crc
    let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
        guard let base = buffer.baseAddress else { return }
        value = libdeflate_crc32(value, base, buffer.count)
    }
    if done == nil { return crc32(Array(bytes), continuing: crc) }
    return value
}

/// The CRC-32 of two byte strings one after the other, from the CRC-32 of each and the second's length (zlib's
/// `crc32_combine`, which libdeflate lacks): what a scan needs when a chunk's bytes were checked on another thread.
package func crc32Combine(_ first: UInt32, _ second: UInt32, length: Int) -> UInt32 {
    guard length > 0 else { return first }
    // Appending `length` zero bytes to the first string multiplies its CRC by x^(8·length) modulo the polynomial:
    // that power is a product of the precomputed x^(2^k), one for each bit set in 8·length.
    var power: UInt32 = 1 << 31  // x⁰, in the reflected bit order
    var remaining = UInt(length) << 3
    var k = 0
    while remaining != 0 {
        if remaining & 1 != 0 { power = CRC32Powers.multiply(CRC32Powers.twoToThe[k & 31], power) }
        remaining >>= 1
        k += 1
    }
    return CRC32Powers.multiply(power, first) ^ second
}

/// Arithmetic modulo CRC-32's polynomial, in its reflected bit order, for ``crc32Combine(_:_:length:)``.
private enum CRC32Powers {
    /// x^(2^k) modulo the polynomial, for k from 0 to 31. Squaring x 32 times gives x again modulo this
    /// polynomial, so the table repeats and a longer length wraps its index, as zlib's does.
    static let twoToThe: [UInt32] = {
        var powers: [UInt32] = [1 << 30]  // x¹
        for _ in 1..<32 { powers.append(multiply(powers[powers.count - 1], powers[powers.count - 1])) }
        return powers
    }()

    /// The product of two polynomials modulo CRC-32's (0xEDB88320, reflected).
    static func multiply(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var product: UInt32 = 0
        var b = b
        var bit: UInt32 = 1 << 31
        while bit != 0 {
            if a & bit != 0 { product ^= b }
            b = b & 1 != 0 ? (b >> 1) ^ 0xEDB8_8320 : b >> 1
            bit >>= 1
        }
        return product
    }
}
