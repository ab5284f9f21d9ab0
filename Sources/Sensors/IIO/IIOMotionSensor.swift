import CIIO
import Foundation
public import HAL
#if canImport(Glibc)
import Glibc
#endif

/// A gyroscope (`anglvel`), accelerometer (`accel`) or magnetometer (`magn`) read through libiio:
/// `iio:CONTEXT/DEVICE[?mode=…&rate=…&trigger=…&samples=…][#anglvel|accel|magn]`.
///
/// - **Context.** `local` is this machine's sysfs (`iio:local/iio:device0`); `ip:HOST[:PORT]` is a
///   remote board running iiod (`iio:ip:192.168.1.5/bmi160`). The device is its id or its name.
/// - **Quantity.** The fragment picks the channel type when the device has several (an IMU).
/// - **Units.** Each axis is `(raw + offset) × scale`, which IIO defines in rad/s, m/s² and gauss;
///   gauss become µT. A `mount_matrix` (by type, by direction or for the whole device) rotates the
///   vector into the board's frame.
/// - **Rate.** `rate=HZ` writes `sampling_frequency`; the device's current value is reported.
/// - **Polled mode** (`mode=polled`) reads `in_*_raw` at the rate, stamped with `CLOCK_MONOTONIC`
///   when read. **Buffered mode** (`mode=buffered`, the default when the axes are scan elements)
///   enables the axes and the `timestamp` channel, switches `current_timestamp_clock` to
///   `monotonic`, sets the trigger (`trigger=NAME`, else the one already set, else the driver's own
///   `NAME-devN`), and reads `samples` scans per refill (default 1, lowest latency). libiio decodes
///   each scan element as its `_type` says (endianness, bits, shift, sign).
/// - **A device that goes away** (sysfs entry gone, `ENODEV`, iiod lost) ends the stream with
///   ``HAL/DeviceError/Code/disconnected``.
public struct IIOMotionSensor: MotionSensor {
    /// How samples are read.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// `in_*_raw` sysfs reads at a fixed rate.
        case polled
        /// The kernel buffer (`/dev/iio:deviceN`), with the device's own timestamps.
        case buffered
    }

    /// The device.
    public let info: DeviceInfo
    /// How samples are read.
    public let mode: Mode
    /// What the sensor measures.
    public let quantity: MotionQuantity
    let configuration: IIOChannelConfiguration

    static let accessHelp = "IIO buffers need read access to /dev/iio:deviceN and write access to its sysfs attributes: add a udev rule for the 'iio' group (docs/boards.md)"

    /// Opens the device an `iio:` URI names and reads its scale, offset, mount matrix and rate.
    public init(uri: DeviceURI) throws(DeviceError) {
        let body = uri.body
        guard let slash = body.lastIndex(of: "/"), slash != body.startIndex, body.index(after: slash) != body.endIndex else {
            throw DeviceError(.invalidURI, uri: uri.description, "an IIO device is iio:local/DEVICE or iio:ip:HOST[:PORT]/DEVICE")
        }
        let contextPart = String(body[..<slash])
        let libiioURI = contextPart.contains(":") ? contextPart : contextPart + ":"
        let deviceID = String(body[body.index(after: slash)...])
        var query: [String: String] = [:]
        for (key, value) in uri.query {
            guard ["mode", "rate", "trigger", "samples"].contains(key) else {
                throw DeviceError(.invalidURI, uri: uri.description, "unknown option '\(key)' (known: mode, rate, trigger, samples)")
            }
            query[key] = value
        }
        let rate: Double?
        if let text = query["rate"] {
            guard let value = Double(text), value > 0 else { throw DeviceError(.invalidURI, uri: uri.description, "rate=\(text) is not a positive rate in Hz") }
            rate = value
        } else {
            rate = nil
        }
        let samples = Int(query["samples"] ?? "1") ?? 0
        guard samples >= 1 else { throw DeviceError(.invalidURI, uri: uri.description, "samples=\(query["samples"] ?? "") is not a positive whole number") }

        let context = try IIOContext(libiioURI: libiioURI, deviceURI: uri.description)
        guard let device = context.device(named: deviceID) else {
            let known = context.devices.map { "\(String(cString: iio_device_get_id($0))) (\(iio_device_get_name($0).map { String(cString: $0) } ?? "?"))" }
            throw DeviceError(.notFound, uri: uri.description, "no IIO device '\(deviceID)' in \(libiioURI) (found: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
        }
        let available = IIOChannelConfiguration.quantities(of: device)
        let quantity: MotionQuantity
        if let fragment = uri.fragment {
            guard let named = IIOChannelConfiguration.quantity(named: fragment), available.contains(named) else {
                throw DeviceError(.unsupported, uri: uri.description, "no '\(fragment)' channels (has: \(available.map(IIOChannelConfiguration.channelType).joined(separator: ", ")))")
            }
            quantity = named
        } else {
            guard available.count == 1, let only = available.first else {
                throw DeviceError(.invalidURI, uri: uri.description, available.isEmpty
                    ? "the device has no anglvel, accel or magn channels"
                    : "the device has \(available.map(IIOChannelConfiguration.channelType).joined(separator: ", ")) channels: name one with #TYPE")
            }
            quantity = only
        }
        var configuration = try IIOChannelConfiguration(
            device: device, quantity: quantity, libiioURI: libiioURI, uri: uri.description)
        configuration.samplesPerRead = samples
        configuration.trigger = query["trigger"]
        if let rate {
            try configuration.setRate(rate, device: device)
        }
        if let text = query["mode"] {
            guard let mode = Mode(rawValue: text) else { throw DeviceError(.invalidURI, uri: uri.description, "mode=\(text): use polled or buffered") }
            guard mode == .polled || configuration.bufferable else {
                throw DeviceError(.unsupported, uri: uri.description, "the \(IIOChannelConfiguration.channelType(quantity)) axes are not scan elements, so only mode=polled works")
            }
            self.mode = mode
        } else {
            mode = configuration.bufferable ? .buffered : .polled
        }
        self.quantity = quantity
        self.configuration = configuration
        info = DeviceInfo(
            uri: uri.description, name: configuration.deviceName, kind: quantity.deviceKind, backend: "iio",
            rate: configuration.currentRate(device: device), range: configuration.range, resolution: configuration.resolution,
            capabilities: available.map(IIOChannelConfiguration.channelType))
    }

    /// Samples as the device produces them.
    public func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<MotionSample, any Error> {
        let (configuration, mode, uri) = (configuration, mode, info.uri)
        let rate = info.rate ?? 100
        return DeviceThread.stream(name: "iio \(uri)", buffering: buffering) { stop, yield in
            let context = try IIOContext(libiioURI: configuration.libiioURI, deviceURI: uri)
            guard let device = context.device(named: configuration.deviceID) else {
                throw DeviceError(.disconnected, uri: uri, "the device is gone from \(configuration.libiioURI)")
            }
            switch mode {
            case .polled: try IIOPolledReader(configuration: configuration, device: device, uri: uri, rate: rate).run(stop: stop, yield: yield)
            case .buffered: try IIOBufferedReader(configuration: configuration, device: device, uri: uri, rate: rate).run(stop: stop, yield: yield)
            }
        }
    }
}
