import SystemSupport
import CIIO
import HAL
import FoundationEssentials

/// What it takes to turn one IIO device's channels of a type (x, y and z, or a single one) into HAL
/// values: channel ids, per-channel scale and offset with the unit change, whether a channel is
/// already processed, and the mount matrix. Plain values, so each reading thread can find the
/// channels again in its own libiio context.
struct IIOChannelConfiguration: Sendable {
    let libiioURI: String
    let deviceID: String
    let deviceName: String
    /// The channel type, from ``IIOKind/all``.
    let kind: IIOKind
    /// `anglvel_x`, `anglvel_y`, `anglvel_z`, or the one channel (`pressure`, `illuminance0`).
    let channelIDs: [String]
    /// Per channel: HAL value = (raw + offset) × scale, with the kind's unit factor in the scale.
    let offsets: [Double]
    let scales: [Double]
    /// Per channel: whether it has only `in_*_input` (already in the IIO unit; no raw, scale or
    /// offset), so polled mode reads that and applies only the unit factor.
    let processed: [Bool]
    /// Row-major 3×3 rotation into the board's frame, or nil.
    let mountMatrix: [Double]?
    /// Whether every channel is a scan element, so buffered mode works.
    let bufferable: Bool
    /// Bits of each raw value and whether it is signed (from the scan element type), where known.
    let bits: Int?
    let signed: Bool
    var samplesPerRead = 1
    var trigger: String?

    init(device: OpaquePointer, kind: IIOKind, libiioURI: String, uri: String) throws(DeviceError) {
        guard let channels = kind.channels(of: device) else {
            throw DeviceError(.unsupported, uri: uri, "the device has no \(kind.channelsPhrase)")
        }
        self.libiioURI = libiioURI
        self.kind = kind
        deviceID = String(cString: iio_device_get_id(device))
        deviceName = iio_device_get_name(device).map { String(cString: $0) } ?? deviceID
        channelIDs = channels.map { String(cString: iio_channel_get_id($0)) }
        var scales: [Double] = [], offsets: [Double] = [], processed: [Bool] = []
        for channel in channels {
            let id = String(cString: iio_channel_get_id(channel))
            func number(_ attribute: String, _ fallback: Double) throws(DeviceError) -> Double {
                guard let text = IIOAttribute.read(channel, attribute) else { return fallback }
                guard let value = Double(text) else {
                    throw DeviceError(.ioFailure, uri: uri, "in_\(id)_\(attribute) reads '\(text)', not a number")
                }
                return value
            }
            // `raw` is preferred; a channel with only `input` is read as it is (the kernel has applied scale and offset).
            let hasRaw = iio_channel_find_attr(channel, "raw") != nil
            processed.append(!hasRaw && iio_channel_find_attr(channel, "input") != nil)
            scales.append(try number("scale", 1) * kind.factor)
            offsets.append(try number("offset", 0))
        }
        self.scales = scales
        self.offsets = offsets
        self.processed = processed
        bufferable = channels.allSatisfy { iio_channel_is_scan_element($0) }
        let format = bufferable ? iio_channel_get_data_format(channels[0])?.pointee : nil
        bits = format.map { Int($0.bits) }
        signed = format?.is_signed ?? true
        guard kind.axes == 3 else {
            mountMatrix = nil
            return
        }
        let matrixText = IIOAttribute.read(channels[0], "mount_matrix")
            ?? IIOAttribute.readDevice(device, "mount_matrix")
            ?? IIOAttribute.readDevice(device, "in_mount_matrix")
            ?? iio_device_find_channel(device, "mount", false).flatMap { IIOAttribute.read($0, "matrix") }
        if let matrixText {
            guard let matrix = Self.parseMountMatrix(matrixText) else {
                throw DeviceError(.ioFailure, uri: uri, "mount_matrix reads '\(matrixText)', not nine numbers 'a, b, c; d, e, f; g, h, i'")
            }
            let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
            mountMatrix = matrix == identity ? nil : matrix
        } else {
            mountMatrix = nil
        }
    }

    /// `a, b, c; d, e, f; g, h, i` as nine numbers, row-major.
    static func parseMountMatrix(_ text: String) -> [Double]? {
        let numbers = text.split(whereSeparator: { $0 == ";" || $0 == "," }).map(\.trimmedWhitespace).compactMap(Double.init)
        return numbers.count == 9 ? numbers : nil
    }

    /// The smallest step, in HAL units; unknown for a processed channel.
    var resolution: Double? { processed[0] ? nil : abs(scales[0]) }

    /// The largest magnitude a raw value of the scan element's width and sign can give, in HAL units.
    var range: Double? {
        guard let bits, bits > 1, bits <= 64 else { return nil }
        let low = signed ? -Double(sign: .plus, exponent: bits - 1, significand: 1) : 0
        let high = signed ? Double(sign: .plus, exponent: bits - 1, significand: 1) - 1 : Double(sign: .plus, exponent: bits, significand: 1) - 1
        return max(abs((low + offsets[0]) * scales[0]), abs((high + offsets[0]) * scales[0]))
    }

    /// Channel `index`'s value in HAL units from its raw value: offset, then scale and unit factor.
    @inline(__always)
    func value(raw: Int64, channel index: Int) -> Double {
        (Double(raw) + offsets[index]) * scales[index]
    }

    /// A motion sample from the three axes' HAL values: the mount matrix, then the sample.
    @inline(__always)
    func motionSample(_ values: [Double], at time: Timestamp, quantity: MotionQuantity) -> MotionSample {
        let (ax, ay, az) = (values[0], values[1], values[2])
        let value: Vector3
        if let m = mountMatrix {
            value = Vector3(x: m[0] * ax + m[1] * ay + m[2] * az, y: m[3] * ax + m[4] * ay + m[5] * az, z: m[6] * ax + m[7] * ay + m[8] * az)
        } else {
            value = Vector3(x: ax, y: ay, z: az)
        }
        return MotionSample(timestamp: time, quantity: quantity, value: value)
    }

    /// Whether the device (for the type or as a whole) has a `sampling_frequency` to write.
    func hasRateAttribute(device: OpaquePointer) -> Bool {
        if let channel = iio_device_find_channel(device, channelIDs[0], false), iio_channel_find_attr(channel, "sampling_frequency") != nil { return true }
        return iio_device_find_attr(device, "sampling_frequency") != nil
    }

    /// Writes `sampling_frequency` (the type's or the device's).
    func setRate(_ rate: Double, device: OpaquePointer) throws(DeviceError) {
        let text = String(rate)
        let status: Int
        if let channel = iio_device_find_channel(device, channelIDs[0], false), iio_channel_find_attr(channel, "sampling_frequency") != nil {
            status = iio_channel_attr_write(channel, "sampling_frequency", text)
        } else if iio_device_find_attr(device, "sampling_frequency") != nil {
            status = iio_device_attr_write(device, "sampling_frequency", text)
        } else {
            throw DeviceError(.unsupported, uri: libiioURI, "\(deviceName) has no sampling_frequency attribute to set")
        }
        guard status >= 0 else {
            throw DeviceError(errno: Int32(-status), uri: libiioURI, doing: "cannot set sampling_frequency to \(text) Hz", access: IIOSetup.accessHelp)
        }
    }

    /// The device's sampling frequency now, where it has one.
    func currentRate(device: OpaquePointer) -> Double? {
        let channel = iio_device_find_channel(device, channelIDs[0], false)
        let text = channel.flatMap { IIOAttribute.read($0, "sampling_frequency") } ?? IIOAttribute.readDevice(device, "sampling_frequency")
        return text.flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil }
    }
}
