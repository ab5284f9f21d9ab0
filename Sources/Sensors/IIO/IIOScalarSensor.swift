public import HAL

/// A barometer, thermometer, hygrometer, ambient light or proximity sensor read through libiio:
/// `iio:CONTEXT/DEVICE[?mode=…&rate=…&trigger=…&samples=…][#pressure|temp|humidityrelative|illuminance|proximity]`.
///
/// The URI, the context (`local`, `ip:HOST[:PORT]` through iiod), the options and the two modes are
/// those of ``IIOMotionSensor``; this reads one channel instead of three axes.
///
/// - **Type.** The fragment picks the channel type when the device has several (a BME280 has
///   pressure, temperature and humidity): `#pressure`, `#temp` (or `#temperature`),
///   `#humidityrelative` (or `#humidity`), `#illuminance` (or `#light`) and `#proximity`. They are
///   the single-channel rows of the backend's table (`IIOKind`). Of several channels of a type the
///   first without a modifier is read (`in_temp_raw` before `in_temp_ambient_raw`).
/// - **Units.** The HAL kind's: pascals (IIO gives kPa), °C (IIO gives m°C), %RH (IIO gives
///   m%RH), lux, and proximity as the sensor counts it (no unit, higher is nearer). A channel with
///   `in_*_raw` gives `(raw + offset) × scale` in IIO's unit; one with only `in_*_input` is already
///   in IIO's unit. Either is then converted to the HAL's.
/// - **Rate.** `rate=HZ` writes `sampling_frequency` when the device has one; a device without
///   one (most barometers and light sensors) is polled at `rate`, else at the type's default
///   (1 Hz for temperature and humidity, 10 Hz for the others).
/// - **Modes.** Buffered (the default when the channel is a scan element) enables the channel and
///   the `timestamp` channel and reads the kernel's scans with their timestamps; polled reads the
///   sysfs value at the rate, stamped with `CLOCK_MONOTONIC`. A channel that is no scan element
///   (an `_input`-only BMP280, a VCNL4010's illuminance) works polled only.
/// - **A device that goes away** ends the stream with ``HAL/DeviceError/Code/disconnected``.
public struct IIOScalarSensor: ScalarSensor {
    /// The device.
    public let info: DeviceInfo
    /// How samples are read.
    public let mode: IIOReadMode
    /// What the sensor measures: ``HAL/DeviceKind/pressure``, ``HAL/DeviceKind/temperature``, and so on.
    public var kind: DeviceKind { info.kind }
    let configuration: IIOChannelConfiguration

    /// Opens the device an `iio:` URI names and reads the channel's scale, offset and rate.
    public init(uri: DeviceURI) throws(DeviceError) {
        self.init(setup: try IIOSetup(uri: uri, axes: 1))
    }

    /// A sensor from a setup of a single-channel type.
    init(setup: IIOSetup) {
        configuration = setup.configuration
        mode = setup.mode
        info = setup.info
    }

    /// Samples as the device produces them, in the kind's units.
    public func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<ScalarSample, any Error> {
        let kind = kind
        return configuration.readings(mode: mode, uri: info.uri, rate: info.rate, buffering: buffering) { values, time in
            ScalarSample(timestamp: time, kind: kind, value: values[0])
        }
    }
}
