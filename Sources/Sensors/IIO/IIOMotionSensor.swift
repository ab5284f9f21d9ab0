public import HAL

/// A gyroscope (`anglvel`), accelerometer (`accel`) or magnetometer (`magn`) read through libiio:
/// `iio:CONTEXT/DEVICE[?mode=…&rate=…&trigger=…&samples=…][#anglvel|accel|magn]`.
///
/// - **Context.** `local` is this machine's sysfs (`iio:local/iio:device0`); `ip:HOST[:PORT]` is a
///   remote board running iiod (`iio:ip:192.168.1.5/bmi160`). The device is its id or its name.
/// - **Quantity.** The fragment picks the channel type when the device has several (an IMU); the
///   types and their fragments are the three-axis rows of the backend's table (`IIOKind`).
/// - **Units.** Each axis is `(raw + offset) × scale`, which IIO defines in rad/s, m/s² and gauss;
///   gauss become µT. A `mount_matrix` (by type, by direction or for the whole device) rotates the
///   vector into the board's frame.
/// - **Rate.** `rate=HZ` writes `sampling_frequency`; the device's current value is reported. A
///   device without one is polled at `rate`, else at 100 Hz.
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
    public typealias Mode = IIOReadMode

    /// The device.
    public let info: DeviceInfo
    /// How samples are read.
    public let mode: Mode
    /// What the sensor measures.
    public let quantity: MotionQuantity
    let configuration: IIOChannelConfiguration

    /// Opens the device an `iio:` URI names and reads its scale, offset, mount matrix and rate.
    public init(uri: DeviceURI) throws(DeviceError) {
        try self.init(setup: IIOSetup(uri: uri, axes: 3))
    }

    /// A sensor from a setup of a three-axis type.
    init(setup: IIOSetup) throws(DeviceError) {
        guard let quantity = setup.kind.motionQuantity else {
            throw DeviceError(.unsupported, uri: setup.info.uri, "\(setup.kind.name) is not a motion quantity")
        }
        self.quantity = quantity
        configuration = setup.configuration
        mode = setup.mode
        info = setup.info
    }

    /// Samples as the device produces them.
    public func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<MotionSample, any Error> {
        let (configuration, quantity) = (configuration, quantity)
        return configuration.readings(mode: mode, uri: info.uri, rate: info.rate, buffering: buffering) { values, time in
            configuration.motionSample(values, at: time, quantity: quantity)
        }
    }

    /// The same samples a block at a time: the scans of each buffer refill (up to `samples` of the URI), or the
    /// one sample of each poll. A high-rate IMU costs one hand-off per block instead of one per sample
    /// (`docs/performance.md`); ``readings(buffering:)`` stays for those who want each sample as it comes.
    /// `buffering` counts blocks.
    public func blocks(buffering: ReadingBuffering = .unbounded) -> AsyncThrowingStream<[MotionSample], any Error> {
        let (configuration, quantity) = (configuration, quantity)
        return configuration.blocks(mode: mode, uri: info.uri, rate: info.rate, buffering: buffering) { values, time in
            configuration.motionSample(values, at: time, quantity: quantity)
        }
    }
}
