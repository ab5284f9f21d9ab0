import Foundation
public import InputEvents

/// Turns an evemu recording's device description into the two files umockdev needs to emulate
/// that input device for libevdev: a `.umockdev` sysfs tree (with the `capabilities/*` bitmasks
/// discovery reads) and an `.ioctl` file answering every ioctl `libevdev_new_from_fd` and a
/// `SYN_DROPPED` resync make. The events themselves are the recording's `E:` lines (`umockdev-run -e`).
///
/// ioctl lines are `NAME[(OFFSET)] RESULT HEX`: the data's length must equal the size libevdev asks for.
public enum UmockdevInputFixture {
    /// Writes `NAME.umockdev` and `NAME.ioctl` into `folder` for `/dev/input/eventN`; returns their paths.
    public static func write(
        _ device: InputDeviceDescription, eventNumber: Int, name: String, into folder: String,
        keysDown: Set<UInt16> = []
    ) throws -> (umockdev: String, ioctl: String) {
        let node = "event\(eventNumber)", input = "input\(eventNumber + 10)"
        let sysfs = "/devices/virtual/input/\(input)"
        func mask(_ codes: Set<UInt16>, bytes: Int) -> [UInt8] {
            var mask = [UInt8](repeating: 0, count: bytes)
            for code in codes where Int(code) / 8 < bytes { mask[Int(code) / 8] |= 1 << (code % 8) }
            return mask
        }
        func sysfsWords(_ codes: Set<UInt16>, bytes: Int) -> String {
            let bits = mask(codes, bytes: bytes)
            var words: [UInt64] = []
            for start in stride(from: 0, to: bits.count, by: 8) {
                var word: UInt64 = 0
                for (index, byte) in bits[start..<min(start + 8, bits.count)].enumerated() { word |= UInt64(byte) << (8 * UInt64(index)) }
                words.append(word)
            }
            while words.count > 1 && words.last == 0 { words.removeLast() }
            return words.reversed().map { String($0, radix: 16) }.joined(separator: " ")
        }
        let types = Set(device.codes.keys).union([InputCode.Event.synchronization])
        let sizes: [(String, UInt16, Int)] = [("key", 1, 96), ("rel", 2, 8), ("abs", 3, 8), ("msc", 4, 8)]
        var tree = """
            P: \(sysfs)/\(node)
            N: input/\(node)
            E: DEVNAME=/dev/input/\(node)
            E: SUBSYSTEM=input
            A: dev=13:\(64 + eventNumber)\\n
            L: device=../../\(input)

            P: \(sysfs)
            E: SUBSYSTEM=input
            E: NAME="\(device.name)"
            A: name=\(device.name)\\n
            A: properties=\(sysfsWords(device.properties, bytes: 8))\\n
            A: capabilities/ev=\(sysfsWords(types, bytes: 8))\\n

            """
        for (file, type, bytes) in sizes {
            tree += "A: capabilities/\(file)=\(sysfsWords(device.codes[type] ?? [], bytes: bytes))\\n\n"
        }
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }
        func int32(_ values: [Int32]) -> [UInt8] { values.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) } }
        var nameBytes = Array(device.name.utf8.prefix(254))
        let nameLength = nameBytes.count + 1
        nameBytes += [UInt8](repeating: 0, count: 255 - nameBytes.count)
        var lines: [String] = []
        lines.append("EVIOCGVERSION 0 \(hex(int32([0x010001])))")
        lines.append("EVIOCGID 0 \(hex([device.bus, device.vendor, device.product, device.version].flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }))")
        lines.append("EVIOCGNAME \(nameLength) \(hex(nameBytes))")
        lines.append("EVIOCGPROP 8 \(hex(mask(device.properties, bytes: 8)))")
        lines.append("EVIOCGBIT 8 \(hex(mask(types, bytes: 8)))")
        let typeSizes: [UInt16: Int] = [1: 96, 2: 8, 3: 8, 4: 8, 5: 8, 0x11: 8, 0x12: 8, 0x15: 16]
        for (type, bytes) in typeSizes.sorted(by: { $0.key < $1.key }) {
            lines.append("EVIOCGBIT(\(type)) \(bytes) \(hex(mask(device.codes[type] ?? [], bytes: bytes)))")
        }
        lines.append("EVIOCGKEY 96 \(hex(mask(keysDown, bytes: 96)))")
        lines.append("EVIOCGLED 8 \(hex([UInt8](repeating: 0, count: 8)))")
        lines.append("EVIOCGSW 8 \(hex([UInt8](repeating: 0, count: 8)))")
        for (code, axis) in device.axes.sorted(by: { $0.key < $1.key }) {
            let value = code == InputCode.Absolute.multitouchTrackingID ? -1 : axis.minimum
            let absinfo = int32([value, axis.minimum, axis.maximum, axis.fuzz, axis.flat, axis.resolution])
            lines.append((code == 0 ? "EVIOCGABS" : "EVIOCGABS(\(code))") + " 0 \(hex(absinfo))")
        }
        if device.axes[InputCode.Absolute.multitouchSlot] != nil {
            // libevdev asks for each multitouch axis in code order with room for 256 slots; every
            // request has the same size, and umockdev answers them in file order.
            for code in device.axes.keys.sorted() where code > InputCode.Absolute.multitouchSlot {
                let value: Int32 = code == InputCode.Absolute.multitouchTrackingID ? -1 : 0
                lines.append("EVIOCGMTSLOTS 0 \(hex(int32([Int32(code)] + Array(repeating: value, count: 256))))")
            }
        }
        let base = (folder as NSString).appendingPathComponent(name)
        try tree.write(toFile: base + ".umockdev", atomically: true, encoding: .utf8)
        try (lines.joined(separator: "\n") + "\n").write(toFile: base + ".ioctl", atomically: true, encoding: .utf8)
        return (base + ".umockdev", base + ".ioctl")
    }
}
