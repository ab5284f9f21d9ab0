import LibC
import SystemSupport
import CIIO
import HAL

/// Polled mode: reads each channel's `in_*_raw` (or `in_*_input` when it has only that) at a fixed
/// rate on `CLOCK_MONOTONIC`, and hands over the values in HAL units, in channel order.
struct IIOPolledReader {
    let configuration: IIOChannelConfiguration
    let device: OpaquePointer
    let uri: String
    let rate: Double

    func run(stop: StopFlag, yield: (_ values: [Double], _ time: Timestamp) -> Void, endOfBlock: () -> Void) throws(DeviceError) {
        let channels = try IIOBufferedReader.channels(configuration, device, uri)
        let period = Int64(1e9 / rate)
        var next = MonotonicClock().now.nanoseconds
        var values = [Double](repeating: 0, count: channels.count)
        while !stop.isSet {
            for index in channels.indices {
                let status: Int32
                if configuration.processed[index] {
                    var value: Double = 0
                    status = iio_channel_attr_read_double(channels[index], "input", &value)
                    values[index] = value * configuration.kind.factor
                } else {
                    var value: CLongLong = 0
                    status = iio_channel_attr_read_longlong(channels[index], "raw", &value)
                    values[index] = configuration.value(raw: Int64(value), channel: index)
                }
                guard status >= 0 else {
                    let file = "in_\(configuration.channelIDs[index])_\(configuration.processed[index] ? "input" : "raw")"
                    throw DeviceError(errno: Int32(-status), uri: uri, doing: "reading \(file)", access: IIOSetup.accessHelp)
                        .treatingMissingAsGone()
                }
            }
            yield(values, MonotonicClock().now)
            endOfBlock()
            next += period
            let now = MonotonicClock().now.nanoseconds
            if next < now { next = now }  // fell behind: do not try to catch up with a burst
            var until = timespec(tv_sec: Int(next / 1_000_000_000), tv_nsec: Int(next % 1_000_000_000))
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil) == EINTR {}
        }
    }
}

/// Buffered mode: the kernel's scans, decoded by libiio, turned into HAL units and stamped by the
/// timestamp channel.
struct IIOBufferedReader {
    let configuration: IIOChannelConfiguration
    let device: OpaquePointer
    let uri: String
    let rate: Double

    static func channels(_ configuration: IIOChannelConfiguration, _ device: OpaquePointer, _ uri: String) throws(DeviceError) -> [OpaquePointer] {
        let channels = configuration.channelIDs.compactMap { iio_device_find_channel(device, $0, false) }
        guard channels.count == configuration.channelIDs.count else { throw DeviceError(.disconnected, uri: uri, "the device's \(configuration.channelIDs.joined(separator: ", ")) channels are gone") }
        return channels
    }

    func run(stop: StopFlag, yield: (_ values: [Double], _ time: Timestamp) -> Void, endOfBlock: () -> Void) throws(DeviceError) {
        let channels = try Self.channels(configuration, device, uri)
        for index in 0..<iio_device_get_channels_count(device) {
            if let channel = iio_device_get_channel(device, index) { iio_channel_disable(channel) }
        }
        for channel in channels { iio_channel_enable(channel) }
        let timestamp = iio_device_find_channel(device, "timestamp", false)
        if let timestamp, iio_channel_is_scan_element(timestamp) {
            iio_channel_enable(timestamp)
            try useMonotonicTimestamps()
        }
        try selectTrigger()
        guard let buffer = iio_device_create_buffer(device, configuration.samplesPerRead, false) else {
            throw DeviceError(errno: errno, uri: uri, doing: "cannot start the IIO buffer", access: IIOSetup.accessHelp).treatingMissingAsGone()
        }
        defer { iio_buffer_destroy(buffer) }
        let stamping = timestamp.flatMap { iio_channel_is_enabled($0) ? ScanElement($0) : nil }
        let elements = channels.compactMap(ScanElement.init)
        guard elements.count == channels.count else {
            throw DeviceError(.unsupported, uri: uri, "libiio gives no data format for the \(configuration.channelIDs.joined(separator: ", ")) scan elements")
        }
        var values = [Double](repeating: 0, count: elements.count)
        let period = Int64(1e9 / rate)
        while !stop.isSet {
            let filled = iio_buffer_refill(buffer)
            if filled < 0 {
                let code = Int32(-filled)
                if code == ETIMEDOUT || code == EAGAIN {
                    if configuration.libiioURI == "local:" && access("/sys/bus/iio/devices/\(configuration.deviceID)", F_OK) != 0 {
                        throw DeviceError(.disconnected, uri: uri, "the device went away (its sysfs entry is gone)")
                    }
                    continue
                }
                if configuration.libiioURI.hasPrefix("ip:") {
                    // Whatever errno libiio's network backend reports once iiod is gone (it varies with timing),
                    // a remote board that stops answering a read has gone away for this stream.
                    throw DeviceError(.disconnected, uri: uri, "the connection to iiod was lost (reading the IIO buffer: \(describeErrno(code)))")
                }
                throw DeviceError(errno: code, uri: uri, doing: "reading the IIO buffer", access: IIOSetup.accessHelp).treatingMissingAsGone()
            }
            let step = iio_buffer_step(buffer)
            guard step > 0, let end = iio_buffer_end(buffer), let first = iio_buffer_first(buffer, channels[0]) else { continue }
            let count = (end - first) / step
            let starts = elements.compactMap { iio_buffer_first(buffer, $0.channel) }
            guard starts.count == elements.count else { continue }
            let timeStart = stamping.flatMap { iio_buffer_first(buffer, $0.channel) }
            let readAt = MonotonicClock().now.nanoseconds
            for scan in 0..<count {
                let offset = scan * step
                for index in elements.indices {
                    values[index] = configuration.value(raw: elements[index].value(at: starts[index] + offset), channel: index)
                }
                let time: Int64
                if let timeStart, let stamping {
                    time = stamping.value(at: timeStart + offset)
                } else {
                    time = readAt - Int64(count - 1 - scan) * period
                }
                yield(values, Timestamp(nanoseconds: time))
            }
            endOfBlock()
        }
    }

    /// Kernel timestamps default to `CLOCK_REALTIME`; the HAL's are monotonic.
    private func useMonotonicTimestamps() throws(DeviceError) {
        guard iio_device_find_attr(device, "current_timestamp_clock") != nil else { return }
        if IIOAttribute.readDevice(device, "current_timestamp_clock") == "monotonic" { return }
        let status = iio_device_attr_write(device, "current_timestamp_clock", "monotonic")
        guard status >= 0 else {
            throw DeviceError(errno: Int32(-status), uri: uri, doing: "cannot set current_timestamp_clock to monotonic", access: IIOSetup.accessHelp)
        }
    }

    /// The trigger asked for, else the one already set, else the driver's own `NAME-devN`.
    private func selectTrigger() throws(DeviceError) {
        guard let context = iio_device_get_context(device) else { return }
        let triggers = (0..<iio_context_get_devices_count(context)).compactMap { index -> OpaquePointer? in
            guard let candidate = iio_context_get_device(context, index), iio_device_is_trigger(candidate) else { return nil }
            return candidate
        }
        func name(_ trigger: OpaquePointer) -> String { iio_device_get_name(trigger).map { String(cString: $0) } ?? "" }
        let chosen: OpaquePointer?
        if let wanted = configuration.trigger {
            guard let match = triggers.first(where: { name($0) == wanted || String(cString: iio_device_get_id($0)) == wanted }) else {
                throw DeviceError(.notFound, uri: uri, "no trigger '\(wanted)' (found: \(triggers.map(name).joined(separator: ", ")))")
            }
            chosen = match
        } else {
            var current: OpaquePointer?
            if iio_device_get_trigger(device, &current) == 0, current != nil { return }
            let number = configuration.deviceID.drop { !$0.isNumber }
            chosen = triggers.first { name($0) == "\(configuration.deviceName)-dev\(number)" }
        }
        guard let chosen else { return }
        let status = iio_device_set_trigger(device, chosen)
        guard status >= 0 else {
            throw DeviceError(errno: Int32(-status), uri: uri, doing: "cannot set the trigger to \(name(chosen))", access: IIOSetup.accessHelp)
        }
    }
}

extension DeviceError {
    /// A sysfs file or node that vanished while streaming means the device went away.
    func treatingMissingAsGone() -> DeviceError {
        code == .notFound ? DeviceError(.disconnected, uri: uri, "the device went away (\(message))") : self
    }
}

/// A scan element and its data format, read once: libiio turns each raw element into a host integer
/// as the `_type` says (endianness, shift, sign), and this widens it by its storage size.
struct ScanElement {
    let channel: OpaquePointer
    private let length: UInt32
    private let signed: Bool

    init?(_ channel: OpaquePointer) {
        guard let format = iio_channel_get_data_format(channel)?.pointee else { return nil }
        self.channel = channel
        length = format.length
        signed = format.is_signed
    }

    @inline(__always)
    func value(at source: UnsafeMutableRawPointer) -> Int64 {
        var raw: UInt64 = 0
        iio_channel_convert(channel, &raw, source)
        switch (length, signed) {
        case (8, true): return Int64(Int8(truncatingIfNeeded: raw))
        case (16, true): return Int64(Int16(truncatingIfNeeded: raw))
        case (32, true): return Int64(Int32(truncatingIfNeeded: raw))
        case (64, _): return Int64(bitPattern: raw)
        default: return Int64(raw)
        }
    }
}
