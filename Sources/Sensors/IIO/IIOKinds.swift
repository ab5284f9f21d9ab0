import CIIO
package import HAL

/// One IIO channel type the `iio:` backend reads, and what it becomes in the HAL.
///
/// ``all`` is the one place that says which IIO types the backend knows: the URI fragments, discovery, the
/// backend's summary and its error messages all come from it. Adding a kind the HAL has registered is one row
/// there, plus a case in ``IIOBackend/open(_:)`` only when its reading type is neither ``HAL/MotionSample`` (three
/// axes) nor ``HAL/ScalarSample`` (one channel).
package struct IIOKind: Sendable, Hashable {
    /// The libiio channel type's raw value (`IIO_PRESSURE`, …); `iio_chan_type` itself is not `Sendable`.
    let typeValue: UInt32
    /// The sysfs type name (`in_pressure_raw`): the canonical URI fragment and what `hal devices` lists.
    package let name: String
    /// For a single-channel type, the libiio modifier the channel must have (`IIO_MOD_CO2` for
    /// `in_concentration_co2_raw`), as a raw value; `nil` takes any, preferring none.
    let modifierValue: UInt32?
    /// Other names the URI fragment accepts, such as the HAL kind's own name.
    let aliases: [String]
    /// The HAL kind the samples are.
    package let kind: DeviceKind
    /// 3 for x, y and z channels (a ``HAL/MotionSample``), 1 for a single channel (a ``HAL/ScalarSample``).
    package let axes: Int
    /// The IIO ABI's unit after `scale`, as a multiple of the HAL kind's unit (gauss are 100 µT; kPa are 1000 Pa).
    package let factor: Double
    /// The polling rate when neither the URI nor the device gives one.
    package let defaultRate: Double

    init(
        _ type: iio_chan_type, _ name: String, modifier: iio_modifier? = nil, aliases: [String], kind: DeviceKind, axes: Int,
        factor: Double, defaultRate: Double
    ) {
        typeValue = type.rawValue
        modifierValue = modifier?.rawValue
        self.name = name
        self.aliases = aliases
        self.kind = kind
        self.axes = axes
        self.factor = factor
        self.defaultRate = defaultRate
    }

    /// Every type the backend reads, in the order `hal devices` lists a device's kinds.
    package static let all: [IIOKind] = [
        IIOKind(IIO_ANGL_VEL, "anglvel", aliases: ["gyro", "gyroscope"], kind: .gyroscope, axes: 3, factor: 1, defaultRate: 100),
        IIOKind(IIO_ACCEL, "accel", aliases: ["accelerometer"], kind: .accelerometer, axes: 3, factor: 1, defaultRate: 100),
        IIOKind(IIO_MAGN, "magn", aliases: ["mag", "magnetometer"], kind: .magnetometer, axes: 3, factor: 100, defaultRate: 100),
        IIOKind(IIO_PRESSURE, "pressure", aliases: [], kind: .pressure, axes: 1, factor: 1000, defaultRate: 10),
        IIOKind(IIO_TEMP, "temp", aliases: ["temperature"], kind: .temperature, axes: 1, factor: 0.001, defaultRate: 1),
        IIOKind(IIO_HUMIDITYRELATIVE, "humidityrelative", aliases: ["humidity"], kind: .humidity, axes: 1, factor: 0.001, defaultRate: 1),
        IIOKind(IIO_LIGHT, "illuminance", aliases: ["light"], kind: .illuminance, axes: 1, factor: 1, defaultRate: 10),
        IIOKind(IIO_PROXIMITY, "proximity", aliases: [], kind: .proximity, axes: 1, factor: 1, defaultRate: 10),
    ]

    /// The type a URI fragment names: its sysfs name or an alias.
    static func named(_ fragment: String) -> IIOKind? {
        all.first { $0.name == fragment || $0.aliases.contains(fragment) }
    }

    /// The fragments, as the backend's summary and error messages list them: `anglvel, accel, …, proximity`.
    static var fragmentList: String {
        all.map { $0.name }.joined(separator: ", ")
    }

    /// The types a device has input channels for, in table order.
    static func kinds(of device: OpaquePointer) -> [IIOKind] {
        all.filter { $0.channels(of: device) != nil }
    }

    /// The HAL motion quantity, for the three-axis types.
    var motionQuantity: MotionQuantity? { kind.motionQuantity }

    /// The device's input channels of this type: x, y and z for a three-axis type, else the one channel (the
    /// first without a modifier, else the first with one, such as `temp_ambient`). `nil` when it has none.
    func channels(of device: OpaquePointer) -> [OpaquePointer]? {
        var axes: [OpaquePointer?] = [nil, nil, nil]
        var plain: OpaquePointer?
        var modified: OpaquePointer?
        for index in 0..<iio_device_get_channels_count(device) {
            guard let channel = iio_device_get_channel(device, index), !iio_channel_is_output(channel),
                  iio_channel_get_type(channel).rawValue == typeValue
            else { continue }
            let modifier = iio_channel_get_modifier(channel)
            if self.axes == 3 {
                switch modifier {
                case IIO_MOD_X: axes[0] = axes[0] ?? channel
                case IIO_MOD_Y: axes[1] = axes[1] ?? channel
                case IIO_MOD_Z: axes[2] = axes[2] ?? channel
                default: break
                }
            } else {
                // A channel with neither a value to read nor a place in the buffer is not an input.
                guard iio_channel_find_attr(channel, "raw") != nil || iio_channel_find_attr(channel, "input") != nil
                        || iio_channel_is_scan_element(channel)
                else { continue }
                if let modifierValue, modifier.rawValue != modifierValue { continue }
                if modifier == IIO_NO_MOD { plain = plain ?? channel } else { modified = modified ?? channel }
            }
        }
        if self.axes == 3 {
            let found = axes.compactMap { $0 }
            return found.count == 3 ? found : nil
        }
        return (plain ?? modified).map { [$0] }
    }

    /// What the channels are called in messages: `x, y and z anglvel channels` or `a pressure channel`.
    var channelsPhrase: String { axes == 3 ? "x, y and z \(name) channels" : "a \(name) channel" }
}
