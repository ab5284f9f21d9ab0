import HAL
import TraceFormat
import TestSupport

/// The shipped look-around trace.
let shippedTracePath = packageRoot + "/traces/lobby-lookaround.jsonl"

/// Decodes a trace given as text, one line per array element.
func decode(_ lines: [String], file: String = "test.jsonl") throws(TraceError) -> Trace {
    try Trace.decode(lines.isEmpty ? [] : Array((lines.joined(separator: "\n") + "\n").utf8), file: file)
}

/// The package's own kinds, in registry order. Not `DeviceKind.allCases`: a test registers kinds of its own, and
/// what it adds must not change what other tests see.
let packageKinds: [DeviceKind] = [
    .gyroscope, .accelerometer, .magnetometer, .attitude, .pointer, .keys, .location, .camera, .expression, .speaker, .app,
    .pressure, .temperature, .humidity, .illuminance, .proximity,
]

/// A header line with one channel of each of the package's kinds, ids named after the kinds.
let everyKindHeader = TraceHeader(channels: packageKinds.map {
    TraceChannel(
        id: $0.rawValue, kind: $0, source: "test:\($0.rawValue)", rate: $0.units == nil ? nil : 50,
        frame: $0 == .attitude ? .enu : nil)
})

/// The header line text of `everyKindHeader`.
func everyKindHeaderLine() throws -> String {
    String(decoding: try TraceEncoder(header: everyKindHeader).encodeHeader().dropLast(), as: UTF8.self)
}

func ts(_ nanoseconds: Int64) -> Timestamp { Timestamp(nanoseconds: nanoseconds) }
