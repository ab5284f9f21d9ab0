import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A real iiod serving an umockdev testbed on a loopback port, for the remote (`iio:ip:`) tests.
final class IiodServer {
    /// The port iiod listens on.
    let port: UInt16
    private let process: Process
    private let pidFile: String

    /// Starts iiod under umockdev with the testbed's first device and script, and waits until it listens.
    init(testbed: Umockdev.Testbed, scratch: String) async throws {
        port = try GPSDRoundTripTests.freePort()
        pidFile = "\(scratch)/iiod.pid"
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/umockdev-run")
        process.arguments = ["-d", testbed.devices[0], "-s", "\(testbed.scripts[0].node)=\(testbed.scripts[0].file)", "--",
                             "sh", "-c", "echo $$ > \(pidFile); exec iiod -p \(port)"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var listening = false
        for _ in 0..<100 where !listening {
            if let descriptor = connectToLoopback(port: port) { close(descriptor); listening = true } else { try await Task.sleep(for: .milliseconds(100)) }
        }
        if !listening { stop() }
        try #require(listening, "iiod did not listen on \(port)")
    }

    /// Kills iiod at once, as a board that goes away.
    func kill() {
        if let pid = try? String(contentsOfFile: pidFile, encoding: .utf8), let number = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines)) {
            Glibc.kill(number, SIGKILL)
        }
    }

    /// Kills iiod and waits for umockdev to end.
    func stop() {
        kill()
        process.waitUntilExit()
    }
}
