// NMEA decode throughput: sentences per second through NMEADecoder, epochs and fixes
// included, over real receiver logs. `Benchmarks/nmea` builds this in release mode and
// runs it beside pynmea2 (Benchmarks/nmea_peer.py) on the same files.
//
//   NMEADecode REPEATS LOG...

import Foundation
import HAL
import NMEA

let arguments = CommandLine.arguments
guard arguments.count >= 3, let repeats = Int(arguments[1]) else {
    print("usage: NMEADecode REPEATS LOG...")
    exit(2)
}
// The same sentences as the peer: the lines that start with '$', read once before timing.
var lines: [String] = []
for path in arguments.dropFirst(2) {
    guard let data = FileManager.default.contents(atPath: path) else {
        print("NMEADecode: cannot read \(path)")
        exit(2)
    }
    for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        if trimmed.hasPrefix("$") { lines.append(String(trimmed)) }
    }
}
var best = 0.0
var epochs = 0
var checksum = 0.0
var rejected = 0
for _ in 0..<repeats {
    var decoder = NMEADecoder()
    var sum = 0.0
    var count = 0
    let start = MonotonicClock.now
    for line in lines {
        if let fix = decoder.decode(line: line) {
            sum += fix.coordinate?.latitude ?? 0
            count += 1
        }
    }
    if let fix = decoder.finish() {
        sum += fix.coordinate?.latitude ?? 0
        count += 1
    }
    let seconds = start.duration(to: MonotonicClock.now).seconds
    best = max(best, Double(lines.count) / seconds)
    epochs = count
    checksum = sum
    rejected = decoder.statistics.rejectedCount
}
print("RESULT swift-nmea-decoder sentences_per_second=\(Int(best)) sentences=\(lines.count) epochs=\(epochs) rejected=\(rejected) checksum=\(checksum)")
