import CIIO
import HAL
#if canImport(Glibc)
import Glibc
#endif

/// What it takes to turn one IIO device's x, y and z channels of a type into HAL samples:
/// channel ids, per-axis scale and offset, the unit change, and the mount matrix. Plain values,
/// so each reading thread can find the channels again in its own libiio context.
struct IIOChannelConfiguration: Sendable {
    let libiioURI: String
    let deviceID: String
    let deviceName: String
    let quantity: MotionQuantity
    /// `anglvel_x`, `anglvel_y`, `anglvel_z` (or the accel/magn ones).
    let channelIDs: [String]
    /// Per axis: SI value = (raw + offset) × scale.
    let offsets: [Double]
    let scales: [Double]
    /// Row-major 3×3 rotation into the board's frame, or nil.
    let mountMatrix: [Double]?
    /// Whether every axis is a scan element, so buffered mode works.
    let bufferable: Bool
    /// Bits of each raw value (from the scan element type), where known.
    let bits: Int?
    var samplesPerRead = 1
    var trigger: String?

    /// The IIO channel type name for a quantity.
    static func channelType(_ quantity: MotionQuantity) -> String {
        switch quantity {
        case .angularVelocity: "anglvel"
        case .acceleration: "accel"
        case .magneticField: "magn"
        }
    }

    /// A quantity from a URI fragment: the IIO type name or the HAL's short name.
    static func quantity(named name: String) -> MotionQuantity? {
        switch name {
        case "anglvel", "gyro", "gyroscope": .angularVelocity
        case "accel", "accelerometer": .acceleration
        case "magn", "mag", "magnetometer": .magneticField
        default: nil
        }
    }

    /// IIO's unit for the type, as a multiple of the HAL's (gauss are 100 µT).
    static func unitFactor(_ quantity: MotionQuantity) -> Double { quantity == .magneticField ? 100 : 1 }

    static func iioType(_ quantity: MotionQuantity) -> iio_chan_type {
        switch quantity {
        case .angularVelocity: IIO_ANGL_VEL
        case .acceleration: IIO_ACCEL
        case .magneticField: IIO_MAGN
        }
    }

    /// The quantities a device has x, y and z input channels for.
    static func quantities(of device: OpaquePointer) -> [MotionQuantity] {
        MotionQuantity.allCases.filter { axisChannels(of: device, quantity: $0) != nil }
    }

    static func axisChannels(of device: OpaquePointer, quantity: MotionQuantity) -> [OpaquePointer]? {
        var axes: [OpaquePointer?] = [nil, nil, nil]
        for index in 0..<iio_device_get_channels_count(device) {
            guard let channel = iio_device_get_channel(device, index), !iio_channel_is_output(channel),
                  iio_channel_get_type(channel) == iioType(quantity)
            else { continue }
            switch iio_channel_get_modifier(channel) {
            case IIO_MOD_X: axes[0] = channel
            case IIO_MOD_Y: axes[1] = channel
            case IIO_MOD_Z: axes[2] = channel
            default: break
            }
        }
        let found = axes.compactMap { $0 }
        return found.count == 3 ? found : nil
    }

    init(device: OpaquePointer, quantity: MotionQuantity, libiioURI: String, uri: String) throws(DeviceError) {
        guard let channels = Self.axisChannels(of: device, quantity: quantity) else {
            throw DeviceError(.unsupported, uri: uri, "the device has no x, y and z \(Self.channelType(quantity)) channels")
        }
        self.libiioURI = libiioURI
        self.quantity = quantity
        deviceID = String(cString: iio_device_get_id(device))
        deviceName = iio_device_get_name(device).map { String(cString: $0) } ?? deviceID
        channelIDs = channels.map { String(cString: iio_channel_get_id($0)) }
        var scales: [Double] = [], offsets: [Double] = []
        for channel in channels {
            let id = String(cString: iio_channel_get_id(channel))
            func number(_ attribute: String, _ fallback: Double) throws(DeviceError) -> Double {
                guard let text = IIOAttribute.read(channel, attribute) else { return fallback }
                guard let value = Double(text) else {
                    throw DeviceError(.ioFailure, uri: uri, "in_\(id)_\(attribute) reads '\(text)', not a number")
                }
                return value
            }
            scales.append(try number("scale", 1) * Self.unitFactor(quantity))
            offsets.append(try number("offset", 0))
        }
        self.scales = scales
        self.offsets = offsets
        bufferable = channels.allSatisfy { iio_channel_is_scan_element($0) }
        let format = iio_channel_get_data_format(channels[0])
        bits = bufferable ? format.map { Int($0.pointee.bits) } : nil
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
        let numbers = text.split(whereSeparator: { $0 == ";" || $0 == "," }).map { $0.trimmingCharacters(in: .whitespaces) }.compactMap(Double.init)
        return numbers.count == 9 ? numbers : nil
    }

    /// The smallest step, in HAL units.
    var resolution: Double { abs(scales[0]) }

    /// The largest magnitude a signed raw value of the scan element's width can give, in HAL units.
    var range: Double? {
        guard let bits, bits > 1, bits <= 64 else { return nil }
        return abs(scales[0]) * Double(sign: .plus, exponent: bits - 1, significand: 1)
    }

    /// A sample from three raw values: offset, scale, then the mount matrix.
    @inline(__always)
    func sample(x: Int64, y: Int64, z: Int64, at time: Timestamp) -> MotionSample {
        let ax = (Double(x) + offsets[0]) * scales[0]
        let ay = (Double(y) + offsets[1]) * scales[1]
        let az = (Double(z) + offsets[2]) * scales[2]
        let value: Vector3
        if let m = mountMatrix {
            value = Vector3(x: m[0] * ax + m[1] * ay + m[2] * az, y: m[3] * ax + m[4] * ay + m[5] * az, z: m[6] * ax + m[7] * ay + m[8] * az)
        } else {
            value = Vector3(x: ax, y: ay, z: az)
        }
        return MotionSample(timestamp: time, quantity: quantity, value: value)
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
            throw DeviceError(errno: Int32(-status), uri: libiioURI, doing: "cannot set sampling_frequency to \(text) Hz", access: IIOMotionSensor.accessHelp)
        }
    }

    /// The device's sampling frequency now, where it has one.
    func currentRate(device: OpaquePointer) -> Double? {
        let channel = iio_device_find_channel(device, channelIDs[0], false)
        let text = channel.flatMap { IIOAttribute.read($0, "sampling_frequency") } ?? IIOAttribute.readDevice(device, "sampling_frequency")
        return text.flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil }
    }
}
