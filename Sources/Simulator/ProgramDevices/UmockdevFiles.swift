public import HAL
public import InputEvents

/// The files umockdev reads to emulate an input device for libevdev and every program over it: a `.umockdev` sysfs
/// tree (with the `capabilities/*` bitmasks that udev-style discovery reads) and an `.ioctl` file answering every
/// ioctl `libevdev_new_from_fd`, `evtest`, python-evdev and `lsinput` make, and a `SYN_DROPPED` resync: the fixed-size
/// ones as umockdev's recording (``ioctls``, `NAME[(OFFSET)] RESULT HEX` lines, which umockdev answers only at the
/// size written) and the variable-size ones as ``answers``, which `hal-testbed` answers at any size.
public struct UmockdevInputDevice: Sendable {
    /// The device.
    public var device: InputDeviceDescription
    /// Its node's number: `/dev/input/eventN`.
    public var eventNumber: Int
    /// Keys reported as held when the device is opened.
    public var keysDown: Set<UInt16>

    /// A device at `/dev/input/event<eventNumber>`.
    public init(_ device: InputDeviceDescription, eventNumber: Int, keysDown: Set<UInt16> = []) {
        self.device = device
        self.eventNumber = eventNumber
        self.keysDown = keysDown
    }

    /// The node's path.
    public var node: String { "/dev/input/event\(eventNumber)" }

    /// The `.umockdev` sysfs tree.
    public var sysfsTree: String {
        let node = "event\(eventNumber)", input = "input\(eventNumber + 10)"
        let sysfs = "/devices/virtual/input/\(input)"
        let types = Set(device.codes.keys).union([InputCode.Event.synchronization])
        let udev = udevProperties.map { "E: \($0)\n" }.joined()
        var tree = """
            P: \(sysfs)/\(node)
            N: input/\(node)
            E: DEVNAME=/dev/input/\(node)
            E: SUBSYSTEM=input
            E: MAJOR=13
            E: MINOR=\(64 + eventNumber)
            \(udev)A: dev=13:\(64 + eventNumber)\\n
            L: device=../../\(input)

            P: \(sysfs)
            E: SUBSYSTEM=input
            E: NAME="\(device.name)"
            \(udev)A: name=\(device.name)\\n
            A: properties=\(Self.sysfsWords(device.properties, bytes: 8))\\n
            A: capabilities/ev=\(Self.sysfsWords(types, bytes: 8))\\n

            """
        for (file, type, bytes) in [("key", UInt16(1), 96), ("rel", 2, 8), ("abs", 3, 8), ("msc", 4, 8)] {
            tree += "A: capabilities/\(file)=\(Self.sysfsWords(device.codes[type] ?? [], bytes: bytes))\\n\n"
        }
        return tree
    }

    /// The properties udev's `input_id` builtin gives such a device, which libinput and other udev users read:
    /// `ID_INPUT=1` and the class its capabilities make it (an accelerometer by its property; a touchscreen by
    /// absolute x and y, a touch button and the direct property, a touchpad without that property; a mouse by relative
    /// x and y with a left button; keys by any key below the buttons).
    public var udevProperties: [String] {
        let keys = device.codes[InputCode.Event.key] ?? [], absolute = device.codes[InputCode.Event.absolute] ?? []
        let relative = device.codes[InputCode.Event.relative] ?? []
        var properties = ["ID_INPUT=1"]
        if device.properties.contains(InputCode.Property.accelerometer) { return properties + ["ID_INPUT_ACCELEROMETER=1"] }
        if absolute.isSuperset(of: [InputCode.Absolute.x, InputCode.Absolute.y]) && keys.contains(InputCode.Key.touch) {
            properties.append(device.properties.contains(InputCode.Property.direct) ? "ID_INPUT_TOUCHSCREEN=1" : "ID_INPUT_TOUCHPAD=1")
        }
        if relative.isSuperset(of: [InputCode.Relative.x, InputCode.Relative.y]) && keys.contains(InputCode.Key.leftButton) {
            properties.append("ID_INPUT_MOUSE=1")
        }
        if keys.contains(where: { $0 < 0x100 }) { properties.append("ID_INPUT_KEY=1") }
        return properties
    }

    /// udev's database entry for the node, at ``udevDatabasePath``: its properties, the `seat` tag, and an
    /// initialization time, which makes libudev (and libinput) take the device as set up by udev.
    public var udevDatabase: String {
        "I:1\n" + udevProperties.map { "E:\($0)\n" }.joined() + "G:seat\nQ:seat\nV:1\n"
    }

    /// Where udev keeps the node's database entry: `/run/udev/data/c13:<64 + N>`.
    public var udevDatabasePath: String { "/run/udev/data/c13:\(64 + eventNumber)" }

    /// The `.ioctl` replies of fixed size (umockdev's recording format): version, identity, force-feedback effects,
    /// each axis's `input_absinfo` and the multitouch slots. The variable-size reads are ``answers``.
    public var ioctls: String {
        let identity = [device.bus, device.vendor, device.product, device.version].flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }
        var lines = [
            "EVIOCGVERSION 0 \(Self.hex(Self.int32([0x010001])))",
            "EVIOCGID 0 \(Self.hex(identity))",
            "EVIOCGEFFECTS 0 \(Self.hex(Self.int32([0])))",
        ]
        for (code, axis) in device.axes.sorted(by: { $0.key < $1.key }) {
            let value = code == InputCode.Absolute.multitouchTrackingID ? -1 : min(max(0, axis.minimum), axis.maximum)
            let absinfo = Self.int32([value, axis.minimum, axis.maximum, axis.fuzz, axis.flat, axis.resolution])
            lines.append((code == 0 ? "EVIOCGABS" : "EVIOCGABS(\(code))") + " 0 \(Self.hex(absinfo))")
        }
        if device.axes[InputCode.Absolute.multitouchSlot] != nil {
            // libevdev asks for each multitouch axis in code order with room for 256 slots; every request has the
            // same size, and umockdev answers them in file order.
            for code in device.axes.keys.sorted() where code > InputCode.Absolute.multitouchSlot {
                let value: Int32 = code == InputCode.Absolute.multitouchTrackingID ? -1 : 0
                lines.append("EVIOCGMTSLOTS 0 \(Self.hex(Self.int32([Int32(code)] + Array(repeating: value, count: 256))))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The variable-size reads, as the kernel holds them, for `hal-testbed -x`: `NR HEX` lines, `NR` being the
    /// request's number (`_IOC_NR`) and `HEX` the whole answer. A caller asking with any buffer size gets the first
    /// `min(size, length)` bytes and that count, as from the kernel (libevdev, evtest, python-evdev and `lsinput`
    /// each ask with sizes of their own). The name ends with its NUL; a bitmap has the kernel's length
    /// (`BITS_TO_LONGS(TYPE_MAX)` longs: 96 bytes for keys, 16 for force feedback, 8 for the rest). The device has
    /// no `PHYS` or `UNIQ` (as a virtual device has none): those requests fail with `ENOENT`.
    public var answers: String {
        let types = Set(device.codes.keys).union([InputCode.Event.synchronization])
        var lines = [
            "06 " + Self.hex(Array(device.name.utf8) + [0]),
            "09 " + Self.hex(Self.mask(device.properties, bytes: 8)),
            "18 " + Self.hex(Self.mask(keysDown, bytes: 96)),
        ]
        // The LED, sound and switch states: all off.
        for number in [0x19, 0x1a, 0x1b] { lines.append(String(number, radix: 16) + " " + Self.hex([UInt8](repeating: 0, count: 8))) }
        lines.append("20 " + Self.hex(Self.mask(types, bytes: 8)))
        // EVIOCGBIT(type): the types the kernel answers (others are EINVAL), each with its bitmap's length.
        let typeBytes: [UInt16: Int] = [1: 96, 2: 8, 3: 8, 4: 8, 5: 8, 0x11: 8, 0x12: 8, 0x15: 16]
        for (type, bytes) in typeBytes.sorted(by: { $0.key < $1.key }) {
            lines.append(String(0x20 + Int(type), radix: 16) + " " + Self.hex(Self.mask(device.codes[type] ?? [], bytes: bytes)))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// umockdev's events file (`umockdev-run -e`): `E: SECONDS.MICROSECONDS TYPE CODE VALUE` lines, types and codes
    /// in hex. umockdev waits out each gap between timestamps before delivering an event, so the times are the
    /// events' offsets from `origin`, divided by `rate`.
    ///
    /// umockdev reads the microseconds as a C integer literal, so a leading zero would make them octal: they are
    /// written without one (`0.10000` is ten milliseconds). umockdev delivers the first line at once, so when the
    /// first event comes after `origin`, an empty `SYN_REPORT` frame at 0 s leads, and carries the wait.
    public static func events(_ events: [InputEvent], origin: Timestamp, rate: Double = 1) -> String {
        var text = ""
        text.reserveCapacity(events.count * 24)
        if let first = events.first, first.timestamp > origin { text += "E: 0.0 0000 0000 0\n" }
        for event in events {
            let micros = max(0, Int64((Double(event.timestamp.nanoseconds - origin.nanoseconds) / 1000 / rate).rounded()))
            text += "E: \(micros / 1_000_000).\(micros % 1_000_000) \(hex4(event.type)) \(hex4(event.code)) \(event.value)\n"
        }
        return text
    }

    private static func hex4(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    static func mask(_ codes: Set<UInt16>, bytes: Int) -> [UInt8] {
        var mask = [UInt8](repeating: 0, count: bytes)
        for code in codes where Int(code) / 8 < bytes { mask[Int(code) / 8] |= 1 << (code % 8) }
        return mask
    }

    static func sysfsWords(_ codes: Set<UInt16>, bytes: Int) -> String {
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

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: text, as: UTF8.self)
    }

    static func int32(_ values: [Int32]) -> [UInt8] { values.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) } }
}

/// umockdev's script format (`umockdev-run -s NODE=FILE`), for the reads a device node answers.
public enum UmockdevScript {
    /// `r DELAY DATA` lines, one per chunk, each read `delay` milliseconds after the one before it (0 when not
    /// given). Bytes below 32 are written as `^` and the byte plus 64, and `^` itself as ``^` ``.
    ///
    /// umockdev's parser skips the spaces after the delay, so a chunk's leading spaces (0x20) end the line before
    /// it instead: the reader sees one stream of bytes either way. The first chunk must not start with one.
    public static func reads(_ chunks: [[UInt8]], delays: [Int] = []) -> [UInt8] {
        var script: [UInt8] = []
        for (index, whole) in chunks.enumerated() {
            var chunk = whole[...]
            if index > 0, !script.isEmpty {
                let spaces = chunk.prefix { $0 == 0x20 }.count
                if spaces > 0 {
                    script.removeLast()
                    script += [UInt8](repeating: 0x20, count: spaces) + [10]
                    chunk = chunk.dropFirst(spaces)
                }
            }
            script += Array("r \(index < delays.count ? max(0, delays[index]) : 0) ".utf8)
            for byte in chunk {
                if byte < 32 { script += [94, byte + 64] } else if byte == 94 { script += [94, 96] } else { script.append(byte) }
            }
            script.append(10)
        }
        return script
    }
}
