import Foundation
import TestSupport
import Testing

/// `scripts/soak` for three minutes: `hal record` of an emulated IIO IMU, an evdev gamepad and a `sim:` gyroscope,
/// the IMU unplugged and back twice, and (as root) the disk filled near the end. docs/reliability.md has the
/// hour-long run.
@Suite(.serialized)
struct SoakTests {
    struct Channel: Decodable {
        var produced: Int, written: Int, holes: Int
        var overruns: Int?
    }

    struct Report: Decodable {
        struct Memory: Decodable { var start: Int, end: Int, growth: Int }
        struct Descriptors: Decodable { var start: Int, end: Int }
        var channels: [String: Channel]
        var reconnected: Int
        var unplugs: [[String: Double]]
        var rss_kb: Memory
        var fds: Descriptors
        var replays: Bool
        var trace_records: Int, replayed_records: Int
        var disk_full_at: Double?
        var disk_full_reported: Bool
        var problems: [String]
    }

    /// Under a sanitizer the `hal` child is built with it too: its runtime keeps freed memory aside (AddressSanitizer's
    /// quarantine), and everything runs several times slower, so the IMU runs at a quarter of the rate.
    static var sanitizer: Bool { halExecutable.contains("/.build-asan/") || halExecutable.contains("/.build-tsan/") }

    @Test func threeMinutesOfRecordingWithTwoUnplugsAndAFullDiskLoseNothing() async throws {
        let scratch = try makeScratchFolder()
        let reportPath = scratch + "/soak.json"
        var arguments = [packageRoot + "/scripts/soak", "--minutes", "3", "--hal", halExecutable, "--json", reportPath]
        if Self.sanitizer { arguments += ["--rate", "250", "--rss-limit-mb", "1024"] }
        // Three minutes of recording, then the analysis and a replay of every record: the limit only ends a soak that
        // hangs, and leaves a loaded machine's replay all the time it needs.
        let (status, output) = try await runProcess("/usr/bin/env", ["python3"] + arguments, timeout: 900)
        guard let json = FileManager.default.contents(atPath: reportPath) else {
            Issue.record("the soak wrote no report (exit \(status)):\n\(output)")
            return
        }
        let report = try JSONDecoder().decode(Report.self, from: json)
        #expect(status == 0, "\(output)")
        #expect(report.problems.isEmpty, "\(report.problems)")

        let rate = Self.sanitizer ? 250 : 1000
        let imu = try #require(report.channels["anglvel"])
        // About 160 s of the IMU's 3 min are recorded before the disk fills, less the two unplugged spans.
        #expect(imu.written > rate * 140, "\(imu)")
        #expect(imu.holes == 0 && imu.overruns == 0, "\(imu)")
        for id in ["keys", "gyro"] {
            let channel = try #require(report.channels[id])
            #expect(channel.holes == 0 && channel.written > 100, "\(id): \(channel)")
        }
        #expect(report.unplugs.count == 2 && report.reconnected == 2)
        #expect(report.rss_kb.growth < (Self.sanitizer ? 1024 : 5) * 1024, "\(report.rss_kb)")
        #expect(report.fds.end <= report.fds.start, "\(report.fds)")
        #expect(report.replays && report.replayed_records == report.trace_records)
        if getuid() == 0 {
            #expect(report.disk_full_at != nil && report.disk_full_reported)
        }
    }
}
