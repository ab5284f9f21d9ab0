import LibC
import SystemSupport
import CIIO
import HAL

/// An owned libiio context (`local:`, `ip:HOST[:PORT]`, …), destroyed with its owner.
/// libiio contexts are not shared between threads: each reading thread makes its own.
final class IIOContext {
    let pointer: OpaquePointer
    let uri: String

    /// Creates the context a libiio URI names; `deviceURI` names the device in errors.
    init(libiioURI: String, deviceURI: String, timeoutMilliseconds: UInt32 = 500) throws(DeviceError) {
        if let failure = CIIO_load(nil) { throw DeviceError(.unsupported, uri: deviceURI, String(cString: failure)) }
        guard let pointer = iio_create_context_from_uri(libiioURI) else {
            let code = errno
            if libiioURI == "local:" && access("/sys/bus/iio", F_OK) != 0 {
                throw DeviceError(.notFound, uri: deviceURI, "this kernel has no IIO devices (/sys/bus/iio is missing)")
            }
            throw DeviceError(errno: code, uri: deviceURI, doing: "cannot create the libiio context '\(libiioURI)'", access: IIOSetup.accessHelp)
        }
        self.pointer = pointer
        self.uri = deviceURI
        _ = iio_context_set_timeout(pointer, timeoutMilliseconds)
    }

    deinit { iio_context_destroy(pointer) }

    /// The devices that are not triggers.
    var devices: [OpaquePointer] {
        (0..<iio_context_get_devices_count(pointer)).compactMap { index in
            guard let device = iio_context_get_device(pointer, index), !iio_device_is_trigger(device) else { return nil }
            return device
        }
    }

    /// A device by id (`iio:device0`) or name (`bmi160`).
    func device(named name: String) -> OpaquePointer? {
        iio_context_find_device(pointer, name)
    }
}

/// Reads libiio attributes as text, with libiio's negative-errno results turned into errors.
enum IIOAttribute {
    static func read(_ channel: OpaquePointer, _ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 512)
        let count = iio_channel_attr_read(channel, name, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return text(buffer)
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).trimmedWhitespace
    }

    static func readDevice(_ device: OpaquePointer, _ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 512)
        let count = iio_device_attr_read(device, name, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return text(buffer)
    }
}
