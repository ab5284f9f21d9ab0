import Foundation
import HAL
import Simulator
import TestSupport

/// The shipped look-around trace.
let shippedTracePath = packageRoot + "/traces/lobby-lookaround.jsonl"

/// Decodes a trace given as text, one line per array element.
func decode(_ lines: [String], file: String = "test.jsonl") throws(TraceError) -> Trace {
    try Trace.decode(lines.isEmpty ? [] : Array((lines.joined(separator: "\n") + "\n").utf8), file: file)
}

/// A header line with one channel of each kind, ids named after the kinds.
let everyKindHeader = TraceHeader(channels: DeviceKind.allCases.map {
    TraceChannel(
        id: $0.rawValue, kind: $0, source: "test:\($0.rawValue)", rate: $0.units == nil ? nil : 50,
        frame: $0 == .attitude ? .enu : nil)
})

/// The header line text of `everyKindHeader`.
func everyKindHeaderLine() throws -> String {
    String(decoding: try TraceEncoder(header: everyKindHeader).encodeHeader().dropLast(), as: UTF8.self)
}

func ts(_ nanoseconds: Int64) -> Timestamp { Timestamp(nanoseconds: nanoseconds) }
