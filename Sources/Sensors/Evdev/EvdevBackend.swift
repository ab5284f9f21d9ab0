import LibC
import SystemSupport
import FoundationEssentials
public import HAL
import InputEvents

/// Opens `evdev:` input devices and lists those in `/dev/input`.
public struct EvdevBackend: DeviceBackend {
    /// `evdev`.
    public var scheme: String { "evdev" }
    /// What `hal devices` says about the backend.
    public var summary: String { "Linux input (libevdev): evdev:/dev/input/event3[?grab=1][#pointer|keys|accel|gyro|stick]" }

    /// Creates the backend.
    public init() {}

    /// Opens a device as the protocol its role delivers.
    public func open(_ uri: DeviceURI) throws -> any Device {
        let input = try EvdevInput(uri: uri)
        switch input.role {
        case .pointer: return EvdevPointerInput(input: input)
        case .keys: return EvdevKeyInput(input: input)
        case .accelerometer, .gyroscope, .stick: return EvdevMotionSensor(input: input)
        }
    }

    /// Every input event device in sysfs, classified from sysfs (readable without access to the node),
    /// one entry per role; a node this user cannot open says what grants access.
    public func discover() throws -> [DeviceInfo] {
        var found: [DeviceInfo] = []
        for node in Self.eventNodes() {
            let sysfs = "/sys/class/input/\(node)/device"
            guard let description = Self.sysfsDescription(sysfs) else { continue }
            let path = "/dev/input/\(node)"
            var reason: String?
            let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            if descriptor >= 0 {
                close(descriptor)
            } else {
                reason = DeviceError(errno: errno, uri: "evdev:\(path)", doing: "cannot open \(path)", access: EvdevInput.accessHelp).message
            }
            let roles = description.roles
            for role in roles {
                found.append(DeviceInfo(
                    uri: "evdev:\(path)#\(role.rawValue)", name: description.name, kind: role.deviceKind, backend: "evdev",
                    capabilities: roles.map(\.rawValue), unavailableReason: reason))
            }
        }
        return found
    }

    /// The event devices sysfs lists (`/sys/class/input/eventN`), in number order.
    static func eventNodes() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/input")) ?? []
        return names.filter { $0.hasPrefix("event") }.sorted { (Int($0.dropFirst(5)) ?? .max, $0) < (Int($1.dropFirst(5)) ?? .max, $1) }
    }

    /// The name, properties and codes sysfs gives (`name`, `properties`, `capabilities/*`); axis ranges are not there.
    static func sysfsDescription(_ folder: String) -> InputDeviceDescription? {
        func read(_ name: String) -> String? {
            (try? String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8))?.trimmedWhitespace
        }
        guard let name = read("name") else { return nil }
        var description = InputDeviceDescription(name: name)
        description.properties = bits(read("properties") ?? "")
        let types: [(String, UInt16)] = [
            ("key", InputCode.Event.key), ("rel", InputCode.Event.relative), ("abs", InputCode.Event.absolute),
            ("msc", InputCode.Event.miscellaneous),
        ]
        for (file, type) in types {
            let codes = bits(read("capabilities/\(file)") ?? "")
            if !codes.isEmpty { description.codes[type] = codes }
        }
        for code in description.codes[InputCode.Event.absolute] ?? [] {
            description.axes[code] = AbsoluteAxis(minimum: 0, maximum: 1)
        }
        return description
    }

    /// A sysfs bitmask: hexadecimal words of the kernel's `long`, most significant first.
    static func bits(_ text: String) -> Set<UInt16> {
        var set: Set<UInt16> = []
        for (index, word) in text.split(separator: " ").reversed().enumerated() {
            guard let value = UInt64(word, radix: 16) else { return [] }
            for bit in 0..<64 where value & (1 << UInt64(bit)) != 0 { set.insert(UInt16(index * 64 + bit)) }
        }
        return set
    }
}
