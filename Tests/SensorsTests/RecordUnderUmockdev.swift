import LibC
import Foundation
import Testing
import TestSupport

/// Runs `hal record` of `uri` into the JSON Lines trace `trace`, under umockdev with the testbed's first device and
/// script, until the trace holds `records` records; then stops it with Ctrl-C (SIGINT), as a user would. Returns hal's
/// exit status and output.
///
/// An emulated buffer gives its scans at once and the device never ends, so the recording ends on a state (every scan
/// written), not after a `--duration` that a loaded machine may need more of before the first scan is read.
func recordUnderUmockdev(
    _ testbed: Umockdev.Testbed, uri: String, into trace: String, records: Int, scratch: String
) async throws -> (status: Int32, output: String) {
    let pidFile = scratch + "/hal-record.pid", log = scratch + "/hal-record.log"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/umockdev-run")
    // The shell writes its pid, which `exec` makes hal's: the signal goes to hal itself, not to umockdev-run. The
    // shell, not this process, opens the log: no descriptor of this process is handed to the child to close.
    process.arguments = ["-d", testbed.devices[0], "-s", "\(testbed.scripts[0].node)=\(testbed.scripts[0].file)", "--",
                         "/bin/sh", "-c", "echo $$ > '\(pidFile)' && exec \"$@\" > '\(log)' 2>&1", "sh",
                         halExecutable, "record", "--out", trace, "--quiet", uri]
    process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch]) { $1 }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let written = try await waitUntil { wholeRecords(inTrace: trace) >= records || !process.isRunning }
    let pid = (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    if written, process.isRunning, let pid {
        // `hal record` starts recording, then ignores SIGINT's default action and listens for it: a Ctrl-C before that
        // would kill it, and one between the two is lost. So the first waits for the first step, and Ctrl-C is sent
        // again until hal has ended.
        _ = try await waitUntil { handlesInterrupt(pid) || !process.isRunning }
        _ = try await waitUntil(every: .milliseconds(200)) {
            if process.isRunning { kill(pid, SIGINT) }
            return !process.isRunning
        }
    }
    if process.isRunning {
        // Not all written, or no end on Ctrl-C: the test fails, and the recording is killed so that it ends.
        if let pid { kill(pid, SIGKILL) }
        kill(process.processIdentifier, SIGKILL)
    }
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            process.waitUntilExit()
            continuation.resume()
        }
    }
    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    #expect(written, "the trace has \(wholeRecords(inTrace: trace)) of \(records) records:\n\(text)")
    return (process.terminationStatus, text)
}

/// Whether process `pid` has taken SIGINT over: ignored (`SigIgn` in `/proc`) or caught (`SigCgt`). `hal record`
/// ignores its default action, then Dispatch's signal source installs its handler (on Linux it catches the signal),
/// so either mask can show it.
func handlesInterrupt(_ pid: Int32) -> Bool {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
    let bit = UInt64(1) << UInt64(SIGINT - 1)
    return status.split(separator: "\n").contains { line in
        guard line.hasPrefix("SigIgn:") || line.hasPrefix("SigCgt:"),
              let mask = UInt64(line.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
        return mask & bit != 0
    }
}
