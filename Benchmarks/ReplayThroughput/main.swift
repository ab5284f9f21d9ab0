import LibC
// Replay throughput: how many gyroscope samples a second go from a trace file (JSON Lines or MCAP), through the
// reader, into a consumer, and how fast JSON Lines converts to MCAP. `Benchmarks/run` and `Benchmarks/mcap` build
// this in release mode and run it beside Python's json module and PyPI mcap on the same files.
//
//   ReplayThroughput generate PATH [COUNT]   writes COUNT gyroscope samples (default 1,000,000)
//   ReplayThroughput read PATH [REPEATS]     streams the file through TraceReader.next()
//   ReplayThroughput replay PATH [REPEATS]   loads the file, then times TraceReplay.forEach alone
//   ReplayThroughput convert IN OUT [REPEATS]  converts a JSONL trace to MCAP (or back), as `hal convert` does
//   ReplayThroughput mcap PATH [REPEATS]     streams an MCAP trace through MCAPTraceFile.forEachRecord

import HAL
import Interchange
import MCAP
import Replay
import Synthesis
import TraceFormat
import TraceMCAP

/// The process's environment, without Foundation.
enum ProcessInfoLite {
    static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}

/// Seconds on the monotonic clock.
func now() -> Double { MonotonicClock.now.seconds }

func fail(_ message: String) -> Never {
    print("ReplayThroughput: \(message)")
    exit(2)
}

/// Runs `body` `repeats` times, printing each run's count, time and checksum, and returns the best rate a second.
func best(_ repeats: Int, _ what: String, _ body: () throws -> (count: Int, checksum: Double)) -> Int {
    var rates: [Double] = []
    for _ in 0..<repeats {
        let start = now()
        let result: (count: Int, checksum: Double)
        do { result = try body() } catch { fail("\(error)") }
        let seconds = now() - start
        rates.append(Double(result.count) / seconds)
        print("\(what) \(result.count) in \(seconds) s: \(Int(Double(result.count) / seconds))/s (checksum \(result.checksum))")
    }
    return Int(rates.max()!)
}

// MCAP traces are read and written through the registered container, as `hal` registers it.
TraceContainers.register(MCAPTraceContainer())
let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: ReplayThroughput generate|read|replay|mcap PATH [COUNT|REPEATS] | convert IN OUT [REPEATS]") }
let path = arguments[2]
let number = arguments.count > 3 ? Int(arguments[3]) : nil

switch arguments[1] {
case "generate":
    let count = number ?? 1_000_000
    let header = TraceHeader(channels: [TraceChannel(id: "gyro", kind: .gyroscope, source: "bench:gyro", rate: 1000)])
    do {
        let writer = try TraceWriter(path: path, header: header, durability: .buffered)
        // A smooth wobble with full-precision doubles, like a simulated or scaled IIO gyroscope.
        for index in 0..<count {
            let t = Double(index) / 1000
            let value = Vector3(x: 0.3 * sin(t * 1.7), y: -0.52 * cos(t * 0.9), z: 0.05 * sin(t * 3.1) + 0.001)
            try writer.write(.motion(MotionSample(timestamp: Timestamp(nanoseconds: Int64(index) * 1_000_000), quantity: .angularVelocity, value: value)), channel: "gyro")
        }
        try writer.close()
    } catch {
        fail("\(error)")
    }
    print("generated \(count) samples in \(path)")

case "read":
    let rate = best(number ?? 3, "read") {
        var count = 0
        var sum = 0.0
        let reader = try TraceReader(path: path)
        while let record = try reader.next() {
            if case .motion(let sample) = record.reading {
                sum += sample.value.x + sample.value.y + sample.value.z
                count += 1
            }
        }
        return (count, sum)
    }
    print("RESULT swift-trace-reader best \(rate) samples/s (\(path))")

case "replay":
    let trace: Trace
    do { trace = try Trace.load(path: path) } catch { fail("\(error)") }
    let replay: TraceReplay
    do { replay = try TraceReplay(trace: trace) } catch { fail("\(error)") }
    let rate = best(number ?? 3, "replayed") {
        var count = 0
        var sum = 0.0
        replay.forEach { record in
            if case .motion(let sample) = record.reading {
                sum += sample.value.x
                count += 1
            }
        }
        return (count, sum)
    }
    print("RESULT swift-replay-engine best \(rate) samples/s")

case "convert":
    guard arguments.count >= 4 else { fail("usage: ReplayThroughput convert IN OUT [REPEATS]") }
    let output = arguments[3]
    let compression = MCAPCompression(named: ProcessInfoLite.environment("HAL_MCAP_COMPRESSION") ?? "zstd") ?? .zstd
    let rate = best(arguments.count > 4 ? Int(arguments[4]) ?? 3 : 3, "converted") {
        let (trace, framePaths) = try TraceConversion.read(path)
        let sink = try TraceFiles.makeWriter(path: output, header: trace.header, durability: .buffered, compression: compression, frameFolderOf: path)
        try TraceConversion.write(trace, framePaths: framePaths, to: sink)
        return (trace.records.count, 0)
    }
    print("RESULT swift-convert best \(rate) records/s (\(path) -> \(output), \(compression.name))")

case "mcap":
    let checkingCRCs = ProcessInfoLite.environment("HAL_MCAP_CRC") != "off"
    let rate = best(number ?? 3, "read") {
        var count = 0
        var sum = 0.0
        try MCAPTraceFile.forEachRecord(path: path, checkingCRCs: checkingCRCs) { record in
            if case .motion(let sample) = record.reading {
                sum += sample.value.x + sample.value.y + sample.value.z
                count += 1
            }
        }
        return (count, sum)
    }
    print("RESULT swift-mcap-reader best \(rate) samples/s (\(path), CRCs \(checkingCRCs ? "checked" : "not checked"))")

default:
    fail("unknown mode \(arguments[1])")
}
