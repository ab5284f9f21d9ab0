import LibC
// Nanoseconds per attitude-fusion update, on the fusion reference sequence.
// `Benchmarks/fusion` builds this in release mode and runs it beside x-io Fusion
// (imufusion from Python, and its C core) on the same CSV file.
//
//   FusionUpdate export SCRIPT CSV   writes the script's samples and ground truth as CSV:
//                                    t, gyroscope (°/s), accelerometer (g), magnetometer (µT), truth quaternion (ENU)
//   FusionUpdate bench CSV [REPEATS] times AttitudeFilter.update over every sample, 9- and 6-axis
//   FusionUpdate profile CSV [PASSES] runs the 9-axis update PASSES times through one function that is never
//                                    inlined, for callgrind (see docs/performance.md): its instructions are
//                                    then the update's alone, apart from reading the CSV

import Foundation
import HAL
import Motion
import Interchange
import Replay
import Synthesis
import TraceFormat

func fail(_ message: String) -> Never {
    print("FusionUpdate: \(message)")
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: FusionUpdate export SCRIPT CSV | bench CSV [REPEATS]") }

/// One row: a gyroscope sample with the accelerometer, magnetometer and truth of the same instant.
struct Row {
    var time: Double
    var gyroscope: Vector3
    var accelerometer: Vector3
    var magnetometer: Vector3
    var truth: Quaternion
}

func rows(of trace: Trace) -> [Row] {
    var byTime: [Int64: Row] = [:]
    for record in trace.records {
        let key = record.timestamp.nanoseconds
        var row = byTime[key] ?? Row(time: Double(key) / 1e9, gyroscope: .zero, accelerometer: .zero, magnetometer: .zero, truth: .identity)
        switch record.reading {
        case .motion(let sample):
            switch sample.quantity {
            case .angularVelocity: row.gyroscope = sample.value
            case .acceleration: row.accelerometer = sample.value
            case .magneticField: row.magnetometer = sample.value
            }
        case .attitude(let truth): row.truth = truth.quaternion
        default: continue
        }
        byTime[key] = row
    }
    return byTime.keys.sorted().map { byTime[$0]! }
}

switch arguments[1] {
case "export":
    guard arguments.count == 4 else { fail("usage: FusionUpdate export SCRIPT CSV") }
    let trace: Trace
    do { trace = try MotionScript.load(path: arguments[2]).generate() } catch { fail("\(error)") }
    var text = "t,gx,gy,gz,ax,ay,az,mx,my,mz,qw,qx,qy,qz\n"
    let degrees = 180 / Double.pi
    let exported = rows(of: trace)
    for row in exported {
        let g = row.gyroscope * degrees
        let a = row.accelerometer * (1 / MotionScript.standardGravity)
        let m = row.magnetometer
        let q = row.truth
        text += [row.time, g.x, g.y, g.z, a.x, a.y, a.z, m.x, m.y, m.z, q.w, q.x, q.y, q.z].map { "\($0)" }.joined(separator: ",") + "\n"
    }
    guard let file = fopen(arguments[3], "w") else { fail("cannot write \(arguments[3])") }
    fputs(text, file)
    fclose(file)
    print("exported \(exported.count) rows to \(arguments[3])")

case "bench", "profile":
    // Read the CSV back, as the peers do, so that all contenders see the same numbers.
    guard let text = try? String(contentsOfFile: arguments[2], encoding: .utf8) else { fail("cannot read \(arguments[2])") }
    var samples: [Row] = []
    let radians = Double.pi / 180
    for row in text.split(separator: "\n").dropFirst() {
        let line = row.split(separator: ",").compactMap { Double($0) }
        guard line.count == 14 else { continue }
        samples.append(Row(
            time: line[0], gyroscope: Vector3(x: line[1], y: line[2], z: line[3]) * radians,
            accelerometer: Vector3(x: line[4], y: line[5], z: line[6]), magnetometer: Vector3(x: line[7], y: line[8], z: line[9]),
            truth: Quaternion(w: line[10], x: line[11], y: line[12], z: line[13])))
    }
    let repeats = arguments.count > 3 ? Int(arguments[3]) ?? 20 : 20
    let interval = samples[1].time - samples[0].time

    if arguments[1] == "profile" {
        /// One pass of 9-axis updates, kept out of line so that callgrind counts it on its own.
        @inline(never) func pass(_ filter: inout AttitudeFilter) {
            for sample in samples {
                filter.update(gyroscope: sample.gyroscope, accelerometer: sample.accelerometer, magnetometer: sample.magnetometer, interval: interval)
            }
        }
        var filter = AttitudeFilter()
        for _ in 0..<repeats { pass(&filter) }
        print("PROFILE updates=\(repeats * samples.count) w=\(filter.quaternion.w)")
        exit(0)
    }

    for sixAxis in [false, true] {
        // Score once, outside the timed runs.
        var statistics = AttitudeErrorStatistics(headingAsDrift: sixAxis)
        var scoring = AttitudeFilter()
        for sample in samples {
            scoring.update(
                gyroscope: sample.gyroscope, accelerometer: sample.accelerometer,
                magnetometer: sixAxis ? nil : sample.magnetometer, interval: interval)
            guard sample.time >= 15 else { continue }
            let truth = AttitudeSample(timestamp: .zero, quaternion: sample.truth, frame: .enu)
            statistics.add(estimate: scoring.attitude(at: .zero), truth: truth)
        }
        var best = Double.infinity
        var checksum = 0.0
        for _ in 0..<repeats {
            var filter = AttitudeFilter()
            var sum = 0.0
            let start = MonotonicClock.now
            for sample in samples {
                filter.update(
                    gyroscope: sample.gyroscope, accelerometer: sample.accelerometer,
                    magnetometer: sixAxis ? nil : sample.magnetometer, interval: interval)
                sum += filter.quaternion.w
            }
            let elapsed = Double(start.duration(to: MonotonicClock.now).wholeNanoseconds)
            best = min(best, elapsed / Double(samples.count))
            checksum = sum
        }
        let rms = statistics.rms
        let name = sixAxis ? "swift-attitude-filter-6axis" : "swift-attitude-filter-9axis"
        print("RESULT \(name) ns_per_update=\(Int(best.rounded())) total_rms=\(rms.total) total_max=\(statistics.maximum.total) tilt_rms=\(rms.tilt) heading_rms=\(rms.heading) checksum=\(checksum)")
    }

default:
    fail("unknown mode \(arguments[1])")
}
