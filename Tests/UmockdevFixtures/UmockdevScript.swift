/// umockdev's script format (`umockdev-run -s NODE=FILE`), for the reads a device node answers.
public enum UmockdevScript {
    /// umockdev's script format for reads (`r 0 DATA`): bytes below 32 are written as `^` and the
    /// byte plus 64, and `^` itself as ``^` ``.
    public static func reads(_ chunks: [[UInt8]]) -> [UInt8] {
        var script: [UInt8] = []
        for chunk in chunks {
            script += Array("r 0 ".utf8)
            for byte in chunk {
                if byte < 32 { script += [94, byte + 64] } else if byte == 94 { script += [94, 96] } else { script.append(byte) }
            }
            script.append(10)
        }
        return script
    }
}
