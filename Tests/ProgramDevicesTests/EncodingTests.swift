import HAL
import InputEvents
@testable import ProgramDevices
import Testing

/// The files and frames a program's devices are made of, checked by decoding them back with the package's own
/// readers (the evdev backend's decoder) and by the formats' rules.
@Suite struct EncodingTests {
    private func time(_ seconds: Double) -> Timestamp { Timestamp(nanoseconds: Int64(seconds * 1e9)) }

    /// A touchscreen's frames decode, with the evdev backend's decoder, into the same taps and drags: press, moves
    /// and release at the same places within one unit of 4096, and a second finger on its own slot.
    @Test func touchFramesDecodeIntoTheSamePointerEvents() throws {
        let readings: [Reading] = [
            .pointer(PointerEvent(timestamp: time(1), pointer: 0, phase: .press, x: 0.25, y: 0.5)),
            .pointer(PointerEvent(timestamp: time(1.1), pointer: 0, phase: .move, x: 0.3, y: 0.55)),
            .pointer(PointerEvent(timestamp: time(1.2), pointer: 1, phase: .press, x: 0.8, y: 0.1)),
            .pointer(PointerEvent(timestamp: time(1.3), pointer: 0, phase: .release, x: 0.3, y: 0.55)),
            .pointer(PointerEvent(timestamp: time(1.4), pointer: 1, phase: .release, x: 0.8, y: 0.1)),
        ]
        let device = InputDeviceEncoding.description(.touchscreen, name: "touch")
        var encoder = InputDeviceEncoding.Encoder()
        let events = readings.flatMap { encoder.encode($0) }
        #expect(events.filter(\.isFrameEnd).count == readings.count)
        var decoder = try InputDecoder(device: device, role: .pointer)
        var decoded: [Reading] = []
        for event in events { decoder.decode(event, into: &decoded) }
        #expect(decoded.count == readings.count)
        for (got, want) in zip(decoded, readings) {
            guard case .pointer(let a) = got, case .pointer(let b) = want else { Issue.record("not a pointer event: \(got)"); continue }
            #expect(a.phase == b.phase && a.pointer == b.pointer && a.timestamp == b.timestamp)
            #expect(abs(a.x - b.x) <= 1.0 / 4095 && abs(a.y - b.y) <= 1.0 / 4095, "\(a) vs \(b)")
        }
        // BTN_TOUCH goes down with the first finger and up with the last, as a kernel touchscreen reports it.
        let touches = events.filter { $0.type == InputCode.Event.key && $0.code == InputCode.Key.touch }.map(\.value)
        #expect(touches == [1, 0])
    }

    /// Motion samples come back within one step of the axis's resolution, and an unchanged axis is not sent again.
    @Test func motionFramesDecodeWithinOneStep() throws {
        let samples = [
            MotionSample(timestamp: time(0), quantity: .acceleration, value: Vector3(x: 0.1, y: -9.80665, z: 3)),
            MotionSample(timestamp: time(0.01), quantity: .acceleration, value: Vector3(x: 0.1, y: -9.5, z: 3)),
            MotionSample(timestamp: time(0.01), quantity: .angularVelocity, value: Vector3(x: 1, y: -0.5, z: 0.001)),
        ]
        var encoder = InputDeviceEncoding.Encoder()
        let events = samples.flatMap { encoder.encode(.motion($0)) }
        // The second acceleration frame carries y alone.
        let second = Array(events.drop { !$0.isFrameEnd }.dropFirst().prefix { !$0.isFrameEnd })
        #expect(second.map(\.code) == [InputCode.Absolute.y])
        let device = InputDeviceEncoding.description(.motion, name: "imu")
        for (role, quantity, step) in [(InputRole.accelerometer, MotionQuantity.acceleration, 9.80665 / 8192), (.gyroscope, .angularVelocity, Double.pi / 180 / 1024)] {
            var decoder = try InputDecoder(device: device, role: role)
            var decoded: [Reading] = []
            for event in events { decoder.decode(event, into: &decoded) }
            let want = samples.filter { $0.quantity == quantity }
            #expect(decoded.count == want.count)
            for (got, sample) in zip(decoded, want) {
                guard case .motion(let value) = got else { continue }
                for (a, b) in [(value.value.x, sample.value.x), (value.value.y, sample.value.y), (value.value.z, sample.value.z)] {
                    #expect(abs(a - b) <= step, "\(quantity): \(a) vs \(b)")
                }
            }
        }
    }

    /// umockdev reads an event's microseconds as a C integer literal, so they are written without a leading zero;
    /// the first line is an empty frame at 0 s so that the first event waits for its time.
    @Test func eventsFileHasNoOctalMicrosecondsAndWaitsForTheFirstEvent() {
        let events = [
            InputEvent(timestamp: time(10.05), type: 3, code: 0, value: 12),
            InputEvent(timestamp: time(10.05), type: 0, code: 0, value: 0),
            InputEvent(timestamp: time(12.000_007), type: 1, code: 0x14a, value: -1),
        ]
        let lines = UmockdevInputDevice.events(events, origin: time(10), rate: 2).split(separator: "\n").map(String.init)
        #expect(lines == ["E: 0.0 0000 0000 0", "E: 0.25000 0003 0000 12", "E: 0.25000 0000 0000 0", "E: 1.4 0001 014a -1"])
        // Starting at the origin, nothing leads.
        #expect(UmockdevInputDevice.events([events[0]], origin: time(10.05)).hasPrefix("E: 0.0 0003"))
    }

    /// Decodes umockdev's read script back into the stream a reader sees.
    private func stream(of script: [UInt8]) -> (bytes: [UInt8], delays: [Int]) {
        var bytes: [UInt8] = [], delays: [Int] = []
        for line in script.split(separator: 10, omittingEmptySubsequences: false) where !line.isEmpty {
            var rest = line.dropFirst(2)  // "r "
            let delay = rest.prefix { $0 != 0x20 }
            delays.append(Int(String(decoding: delay, as: UTF8.self))!)
            rest = rest.dropFirst(delay.count).drop { $0 == 0x20 }  // the parser skips every space here
            var escape = false
            for byte in rest {
                if escape {
                    bytes.append(byte == 96 ? 94 : byte - 64)
                    escape = false
                } else if byte == 94 { escape = true } else { bytes.append(byte) }
            }
        }
        return (bytes, delays)
    }

    /// Every byte value survives the script, leading spaces included (they end the line before), with the delays.
    @Test func scriptCarriesEveryByteAndItsDelays() {
        let chunks: [[UInt8]] = [Array(0...255).map(UInt8.init).reversed(), [0x20, 0x20, 1, 0x5e, 10, 13], [0x20], [7]]
        let script = UmockdevScript.reads(chunks, delays: [5, 0, 17, 3])
        let (bytes, delays) = stream(of: script)
        #expect(bytes == chunks.flatMap { $0 })
        #expect(delays == [5, 0, 17, 3])
        // Without the move, the parser would have eaten them.
        #expect(!script.contains([10, 0x72, 0x20, 0x30, 0x20, 0x20]))
    }

    /// A line becomes the first matching pattern's event, named groups as values (numbers as numbers); a pattern for
    /// one stream ignores the other; JSON lines carry their own names; a bad pattern names its index.
    @Test func outputLinesBecomeEvents() throws {
        let patterns = try OutputPatterns(
            [
                .init(pattern: "^arrived (?<place>\\S+) after (?<seconds>[0-9.]+)s$", event: "place.arrived"),
                .init(pattern: "warning: (?<what>.+)", event: "program.warned", stream: .stderr),
                .init(pattern: "arrived", event: "never.this"),
            ], jsonEvents: true)
        let at = time(3)
        let arrived = patterns.event(for: "arrived clock-tower after 12.5s", stream: .stdout, at: at)
        #expect(arrived == AppEvent(timestamp: at, name: "place.arrived", attributes: ["place": "clock-tower", "seconds": .double(12.5)]))
        #expect(patterns.event(for: "warning: low battery", stream: .stdout, at: at) == nil)
        #expect(patterns.event(for: "warning: low battery", stream: .stderr, at: at)?.attributes["what"] == "low battery")
        #expect(patterns.event(for: "nothing here", stream: .stdout, at: at) == nil)
        let json = patterns.event(for: #"{"event": "gps.fix", "count": 3, "ok": true, "where": "here"}"#, stream: .stdout, at: at)
        #expect(json == AppEvent(timestamp: at, name: "gps.fix", attributes: ["count": .int(3), "ok": true, "where": "here"]))
        #expect(throws: ProgramError.self) { try OutputPatterns([.init(pattern: "(unclosed", event: "x")]) }
        do {
            _ = try OutputPatterns([.init(pattern: "fine", event: "a"), .init(pattern: "(unclosed", event: "x")])
        } catch {
            #expect(error.description.hasPrefix("events[1].pattern"))
        }
    }

    /// The WAV header alsa-lib's file plugin writes is read, a second one found at a frame boundary, and samples
    /// come out scaled to [-1, 1].
    @Test func wavStreamsAreReadAndSplitAtHeaders() throws {
        func header(rate: UInt32, channels: UInt16, bits: UInt16) -> [UInt8] {
            func u32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
            func u16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
            let align = channels * bits / 8
            return Array("RIFF".utf8) + u32(0x7fff_ffff) + Array("WAVEfmt ".utf8) + u32(16) + u16(1) + u16(channels) + u32(rate)
                + u32(rate * UInt32(align)) + u16(align) + u16(bits) + Array("data".utf8) + u32(0x7fff_fff0)
        }
        let first = header(rate: 22050, channels: 1, bits: 16)
        let samples: [Int16] = [0, 16384, -32768, 32767]
        let data = samples.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }
        let stream = try #require(WAVStream(first + data))
        #expect(stream.dataOffset == 44 && stream.rate == 22050 && stream.channels == 1 && stream.bytesPerSecond == 44100)
        #expect(stream.audio(data).samples == [0, 0.5, -1, Float(32767) / 32768])
        let both = first + data + header(rate: 48000, channels: 2, bits: 16)
        #expect(WAVStream.startsHeader(both, at: 44 + data.count))
        #expect(!WAVStream.startsHeader(both, at: 44))
        #expect(WAVStream(Array(first.prefix(30))) == nil)
    }

    /// A channel id becomes an environment variable's name.
    @Test func variableNames() {
        #expect(TestbedPlan.variableName("gps") == "GPS")
        #expect(TestbedPlan.variableName("imu.accel-1") == "IMU_ACCEL_1")
    }
}
