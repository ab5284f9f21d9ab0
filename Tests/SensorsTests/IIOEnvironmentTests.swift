import Foundation
import HAL
import IIO
import TraceFormat
import TestSupport
import ProgramDevices
import Testing

/// The IIO backend's single-quantity sensors through the real libiio, against devices umockdev emulates from
/// Fixtures/*.umockdev: a bme280 (pressure, temperature and humidity as raw and scale, scan elements and a
/// data-ready trigger), an `_input`-only bmp280, a vcnl4010 (illuminance polled only, proximity buffered) and a
/// tsl2563 (an indexed `in_illuminance0_input`). Expected values are computed from the fixtures' own strings.
@Suite(.serialized)
struct IIOEnvironmentTests {
    static let suite = "IIOEnvironmentTests"
    static let bme280 = "\(packageRoot)/Tests/SensorsTests/Fixtures/bme280-environment.umockdev"
    static let bmp280 = "\(packageRoot)/Tests/SensorsTests/Fixtures/bmp280-barometer.umockdev"
    static let lightProximity = "\(packageRoot)/Tests/SensorsTests/Fixtures/vcnl4010-light-proximity.umockdev"

    struct MissingAttribute: Error { let name: String }

    /// A sysfs attribute's value as a fixture writes it (`A: in_pressure_raw=25683200\n`), or `fallback` when absent.
    static func attribute(_ name: String, in fixture: String, fallback: Double? = nil) throws -> Double {
        let prefix = "A: \(name)="
        for line in try String(contentsOfFile: fixture, encoding: .utf8).split(separator: "\n") where line.hasPrefix(prefix) {
            let text = line.dropFirst(prefix.count).replacingOccurrences(of: "\\n", with: "")
            return try #require(Double(text), "\(name) reads '\(text)' in \(fixture)")
        }
        if let fallback { return fallback }
        throw MissingAttribute(name: name)
    }

    /// IIO's unit after scale, in the HAL's: kPa → Pa, m°C → °C, m%RH → %RH; lux and proximity counts stay.
    static let siFactor: [String: Double] = ["pressure": 1000, "temp": 0.001, "humidityrelative": 0.001, "illuminance": 1, "proximity": 1]

    /// `(raw + offset) × scale × factor` for a channel of `fixture`, for a raw value.
    static func si(_ raw: Double, channel: String, in fixture: String) throws -> Double {
        let scale = try attribute("in_\(channel)_scale", in: fixture, fallback: 1)
        let offset = try attribute("in_\(channel)_offset", in: fixture, fallback: 0)
        let factor = try #require(siFactor[channel.filter(\.isLetter)], "no SI factor for \(channel)")
        return (raw + offset) * (scale * factor)
    }

    /// The channel's polled value: its `in_*_raw` converted.
    static func polled(_ channel: String, in fixture: String) throws -> Double {
        try si(attribute("in_\(channel)_raw", in: fixture), channel: channel, in: fixture)
    }

    /// One scan: a little-endian value padded to 8 bytes, then the 64-bit timestamp (aligned to 8).
    static func scan<Value: FixedWidthInteger>(_ value: Value, time: Int64) -> [UInt8] {
        var bytes = withUnsafeBytes(of: value.littleEndian, Array.init)
        bytes += [UInt8](repeating: 0, count: 8 - bytes.count)
        bytes += withUnsafeBytes(of: time.littleEndian, Array.init)
        return bytes
    }

    /// The bme280's pressure scans (raw u32, 1/256000 kPa; the air pressure falling), 40 ms apart.
    static let pressureScans: [(raw: UInt32, time: Int64)] = (0..<6).map { (index: Int) -> (raw: UInt32, time: Int64) in
        let raw: UInt32 = 25_683_200 - UInt32(index) * 2_560
        let time: Int64 = 9_000_000_000 + Int64(index) * 40_000_000
        return (raw: raw, time: time)
    }

    /// The pressure samples the HAL should give for ``pressureScans``.
    static func expectedPressure() throws -> [ScalarSample] {
        try pressureScans.map { scan in
            ScalarSample(timestamp: Timestamp(nanoseconds: scan.time), kind: .pressure, value: try si(Double(scan.raw), channel: "pressure", in: bme280))
        }
    }

    static func testbed(_ devices: [String], node: String? = nil, scans: [[UInt8]] = [], scratch: String) throws -> Umockdev.Testbed {
        var testbed = Umockdev.Testbed()
        testbed.devices = devices
        if let node {
            let script = scratch + "/buffer.script"
            try Data(UmockdevScript.reads(scans)).write(to: URL(fileURLWithPath: script))
            testbed.scripts = [(node, script)]
        }
        return testbed
    }

    static func pressureTestbed(scratch: String) throws -> Umockdev.Testbed {
        try testbed([bme280], node: "/dev/iio:device0", scans: pressureScans.map { scan($0.raw, time: $0.time) }, scratch: scratch)
    }

    static func sysfs(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    static func message(_ uri: String) -> String? {
        do { _ = try makeFactory().open(uri); return nil } catch { return (error as? DeviceError)?.message }
    }

    @Test func polledPressureTemperatureAndHumidityAreInSIUnits() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.testbed([Self.bme280, Self.bmp280], scratch: scratch), scratch: scratch, suite: Self.suite) {
            let barometer = try makeFactory().open("iio:local/iio:device0?mode=polled&rate=50#pressure", as: (any ScalarSensor).self)
            #expect(barometer.info.name == "bme280" && barometer.info.kind == .pressure && barometer.info.backend == "iio")
            #expect(barometer.info.rate == 50)  // no sampling_frequency: polled at the rate asked for
            #expect(barometer.info.capabilities == ["pressure", "temp", "humidityrelative"])
            let scale = try Self.attribute("in_pressure_scale", in: Self.bme280)
            #expect(barometer.info.resolution == scale * 1000)
            #expect(barometer.info.range == 4_294_967_295 * (scale * 1000))  // u32, not s32
            let pressure = try await collect(barometer.readings(buffering: .unbounded), count: 3)
            #expect(pressure.count == 3)
            let expectedPressure = try Self.polled("pressure", in: Self.bme280)
            #expect(abs(expectedPressure - 100_318.6) < 0.1)  // raw × scale in Pa, not the fixture's differing `_input`
            for sample in pressure { #expect(sample.value == expectedPressure && sample.kind == .pressure) }
            #expect(zip(pressure, pressure.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })

            let thermometer = try makeFactory().open("iio:local/iio:device0?mode=polled#temperature", as: (any ScalarSensor).self)
            #expect(thermometer.info.kind == .temperature && thermometer.info.rate == 1)  // the type's default
            let temperature = try await collect(thermometer.readings(buffering: .unbounded), count: 1)
            #expect(temperature.map(\.value) == [try Self.polled("temp", in: Self.bme280)])
            #expect(abs((temperature.first?.value ?? 0) - 21.5) < 1e-9)

            let hygrometer = try makeFactory().open("iio:local/iio:device0?mode=polled&rate=20#humidity", as: (any ScalarSensor).self)
            #expect(hygrometer.info.kind == .humidity)
            let humidity = try await collect(hygrometer.readings(buffering: .unbounded), count: 2)
            let expectedHumidity = try Self.polled("humidityrelative", in: Self.bme280)
            #expect(abs(expectedHumidity - 45.123) < 0.001)
            #expect(humidity.map(\.value) == [expectedHumidity, expectedHumidity])

            // The bmp280 has only `_input` values, already in kPa and m°C: no scale, no scan elements.
            let processed = try makeFactory().open("iio:local/bmp280?rate=40#pressure", as: IIOScalarSensor.self)
            #expect(processed.mode == .polled && processed.info.resolution == nil && processed.info.range == nil)
            let processedPressure = try await collect(processed.readings(buffering: .unbounded), count: 2)
            #expect(processedPressure.count == 2 && processedPressure.allSatisfy { abs($0.value - 100_325) < 1e-6 })
            let cold = try await collect(IIOScalarSensor(uri: DeviceURI("iio:local/bmp280?rate=40#temp")).readings(buffering: .unbounded), count: 1)
            #expect(cold.count == 1 && cold.allSatisfy { abs($0.value - -7.25) < 1e-9 })
        }
    }

    @Test func bufferedPressureUsesTheScanElementTriggerAndKernelTimestamps() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.pressureTestbed(scratch: scratch), scratch: scratch, suite: Self.suite) {
            let barometer = try makeFactory().open("iio:local/bme280#pressure", as: IIOScalarSensor.self)
            #expect(barometer.mode == .buffered && barometer.kind == .pressure && barometer.info.rate == nil)
            let device = "/sys/bus/iio/devices/iio:device0"
            // The scan elements as the open buffer has them: libiio disables them all when the buffer closes.
            let samples = try await collect(barometer.readings(buffering: .unbounded), count: Self.pressureScans.count) { () throws in
                #expect(try Self.sysfs("\(device)/scan_elements/in_pressure_en").hasPrefix("1"))
                #expect(try Self.sysfs("\(device)/scan_elements/in_temp_en").hasPrefix("0"))
            }
            #expect(samples == (try Self.expectedPressure()))
            #expect(samples.last.map { abs($0.value - 100_268.6) < 0.1 } == true)
            #expect(try Self.sysfs("\(device)/current_timestamp_clock").hasPrefix("monotonic"))
            #expect(try Self.sysfs("\(device)/trigger/current_trigger").hasPrefix("bme280-dev0"))
        }
    }

    @Test func bufferedTemperatureKeepsTheSignOfNegativeValues() async throws {
        let scratch = try Umockdev.testScratchFolder()
        let raws: [Int32] = [-725, -1, 3_120]
        let times: [Int64] = [11_000_000_000, 12_000_000_000, 13_000_000_000]
        let scans = zip(raws, times).map { Self.scan($0, time: $1) }
        try await Umockdev.run(
            Self.testbed([Self.bme280], node: "/dev/iio:device0", scans: scans, scratch: scratch), scratch: scratch, suite: Self.suite
        ) {
            let thermometer = try makeFactory().open("iio:local/iio:device0?mode=buffered#temp", as: (any ScalarSensor).self)
            #expect(thermometer.info.range == 2_147_483_648 * (10 * 0.001))  // s32
            let samples = try await collect(thermometer.readings(buffering: .unbounded), count: raws.count) { () throws in
                #expect(try Self.sysfs("/sys/bus/iio/devices/iio:device0/scan_elements/in_temp_en").hasPrefix("1"))
            }
            #expect(samples == (try zip(raws, times).map { raw, time in
                ScalarSample(timestamp: Timestamp(nanoseconds: time), kind: .temperature, value: try Self.si(Double(raw), channel: "temp", in: Self.bme280))
            }))
            #expect(samples.map(\.value).first.map { abs($0 - -7.25) < 1e-9 } == true)
        }
    }

    @Test func illuminanceIsPolledOnlyAndBufferedModeSaysSo() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.testbed([Self.lightProximity], scratch: scratch), scratch: scratch, suite: Self.suite) {
            let light = try makeFactory().open("iio:local/vcnl4010#light", as: IIOScalarSensor.self)
            #expect(light.mode == .polled && light.kind == .illuminance && light.info.rate == 10)
            #expect(light.info.capabilities == ["illuminance", "proximity"])
            let samples = try await collect(light.readings(buffering: .unbounded), count: 2)
            let expected = try Self.polled("illuminance", in: Self.lightProximity)
            #expect(expected == 300)
            #expect(samples.map(\.value) == [expected, expected])
            #expect(Self.message("iio:local/vcnl4010?mode=buffered#illuminance") == "the illuminance channel is not a scan element, so only mode=polled works")

            // An indexed, already processed channel (`in_illuminance0_input`) on a device with no other type.
            let processed = try makeFactory().open("iio:local/tsl2563", as: (any ScalarSensor).self)
            #expect(processed.info.kind == .illuminance)
            #expect(try await collect(processed.readings(buffering: .unbounded), count: 1).map(\.value) == [347])
        }
    }

    @Test func bufferedProximityIsUnsignedWithKernelTimestamps() async throws {
        let scratch = try Umockdev.testScratchFolder()
        let raws: [UInt16] = [2_100, 40_000, 65_535]
        let times: [Int64] = [3_000_000_000, 3_060_150_375, 3_120_300_750]
        let scans = zip(raws, times).map { Self.scan($0, time: $1) }
        try await Umockdev.run(
            Self.testbed([Self.lightProximity], node: "/dev/iio:device1", scans: scans, scratch: scratch), scratch: scratch, suite: Self.suite
        ) {
            let proximity = try makeFactory().open("iio:local/iio:device1#proximity", as: IIOScalarSensor.self)
            #expect(proximity.mode == .buffered && proximity.kind == .proximity)
            #expect(proximity.info.rate == 16.625 && proximity.info.range == 65_535)
            let samples = try await collect(proximity.readings(buffering: .unbounded), count: raws.count)
            #expect(samples == zip(raws, times).map { ScalarSample(timestamp: Timestamp(nanoseconds: $1), kind: .proximity, value: Double($0)) })
            #expect(try Self.sysfs("/sys/bus/iio/devices/iio:device1/trigger/current_trigger").hasPrefix("vcnl4010-dev1"))
        }
    }

    @Test func discoveryListsEveryKindAndBadURIsSayWhatIsWrong() async throws {
        let scratch = try Umockdev.testScratchFolder()
        try await Umockdev.run(Self.testbed([Self.bme280, Self.bmp280], scratch: scratch), scratch: scratch, suite: Self.suite) {
            let discovered = try IIOBackend().discover()
            #expect(discovered.map(\.uri) == [
                "iio:local/iio:device0#pressure", "iio:local/iio:device0#temp", "iio:local/iio:device0#humidityrelative",
                "iio:local/iio:device3#pressure", "iio:local/iio:device3#temp",
            ])
            #expect(discovered.map(\.kind) == [.pressure, .temperature, .humidity, .pressure, .temperature])
            #expect(discovered.map(\.name) == ["bme280", "bme280", "bme280", "bmp280", "bmp280"])
            let summary = IIOBackend().summary
            for fragment in ["anglvel", "accel", "magn", "pressure", "temp", "humidityrelative", "illuminance", "proximity"] {
                #expect(summary.contains(fragment), "\(summary)")
            }
            let known = "anglvel, accel, magn, pressure, temp, humidityrelative, illuminance, proximity"
            #expect(Self.message("iio:local/iio:device0#barometer") == "unknown channel type '#barometer' (known: \(known))")
            #expect(Self.message("iio:local/iio:device0#anglvel") == "no 'anglvel' channels (has: pressure, temp, humidityrelative)")
            #expect(Self.message("iio:local/iio:device0") == "the device has pressure, temp, humidityrelative channels: name one with #TYPE")
            #expect(Self.message("iio:local/bmp280?mode=buffered#pressure") == "the pressure channel is not a scan element, so only mode=polled works")
            #expect(Self.message("iio:local/bme280?rate=5#pressure") == "bme280 has no sampling_frequency attribute to set (in buffered mode its trigger sets the rate; mode=polled polls at rate=HZ)")
            do {
                _ = try IIOMotionSensor(uri: DeviceURI("iio:local/iio:device0#pressure"))
                Issue.record("a pressure channel opened as a motion sensor")
            } catch {
                let error = error as? DeviceError
                #expect(error?.code == .unsupported && error?.message == "#pressure is a single-quantity pressure sensor (ScalarSensor), not a motion sensor")
            }
            #expect(throws: DeviceError.self) { _ = try makeFactory().open("iio:local/iio:device0#pressure", as: (any MotionSensor).self) }
        }
    }

    @Test func aRemoteBarometerThroughIiodDeliversTheSameSamples() async throws {
        let scratch = try makeScratchFolder()
        let testbed = try Self.pressureTestbed(scratch: scratch)
        let server = try await IiodServer(testbed: testbed, scratch: scratch)
        defer { server.stop() }
        let port = server.port

        let barometer = try makeFactory().open("iio:ip:127.0.0.1:\(port)/bme280#pressure", as: IIOScalarSensor.self)
        #expect(barometer.info.name == "bme280" && barometer.mode == .buffered && barometer.kind == .pressure)
        let expected = try Self.expectedPressure()
        var samples: [ScalarSample] = []
        var ending: DeviceError?
        do {
            for try await sample in barometer.readings(buffering: .unbounded) {
                samples.append(sample)
                if samples.count == expected.count {
                    server.kill()
                }
            }
        } catch let error as DeviceError {
            ending = error
        }
        #expect(samples == expected)
        #expect(ending?.code == .disconnected, "\(String(describing: ending))")
    }

    @Test func halRecordOfAnEmulatedBarometerWritesPressureSamples() async throws {
        let scratch = try makeScratchFolder()
        let testbed = try Self.pressureTestbed(scratch: scratch)
        let trace = scratch + "/barometer.jsonl"
        let uri = "iio:local/iio:device0#pressure"
        let (status, output) = try await recordUnderUmockdev(testbed, uri: uri, into: trace, records: Self.pressureScans.count, scratch: scratch)
        try #require(status == 0, "\(output)")
        let recorded = try Trace.load(path: trace)
        let channel = try #require(recorded.header.channels.first)
        #expect(channel.id == "pressure" && channel.kind == .pressure && channel.source == uri && channel.units == "Pa")
        #expect(channel.name == "bme280" && channel.backend == "iio")
        let scale = try Self.attribute("in_pressure_scale", in: Self.bme280) * 1000
        #expect(channel.resolution == scale && channel.range == 4_294_967_295 * scale)
        let samples = recorded.records.compactMap { ScalarSample($0.reading) }
        #expect(samples.count == recorded.records.count)
        #expect(samples == (try Self.expectedPressure()))
    }
}
