import LibC
import Foundation
import TestSupport

/// A real iiod serving an umockdev testbed on a loopback port, for the remote (`iio:ip:`) tests.
final class IiodServer {
    /// The port iiod listens on.
    let port: UInt16
    private let process: Process
    private let pidFile: String

    /// Starts iiod under umockdev with the testbed's first device and script, and waits until it listens.
    ///
    /// The port is one the kernel found free, which another program may take before iiod binds it: iiod then exits at
    /// once, and it starts again on another port. Readiness is a state (iiod accepts a connection), with a limit only
    /// for an iiod that never comes up.
    init(testbed: Umockdev.Testbed, scratch: String) async throws {
        let pidFile = "\(scratch)/iiod.pid"
        let started = try await Self.start(testbed: testbed, scratch: scratch, pidFile: pidFile)
        process = started.process
        port = started.port
        self.pidFile = pidFile
    }

    private static func start(testbed: Umockdev.Testbed, scratch: String, pidFile: String) async throws -> (process: Process, port: UInt16) {
        for _ in 0..<5 {
            let port = try GPSDRoundTripTests.freePort()
            try? FileManager.default.removeItem(atPath: pidFile)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/umockdev-run")
            process.arguments = ["-d", testbed.devices[0], "-s", "\(testbed.scripts[0].node)=\(testbed.scripts[0].file)", "--",
                                 "sh", "-c", "echo $$ > \(pidFile); exec iiod -p \(port)"]
            process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Listening, or gone (the port was taken).
            let listening = try await waitUntil(every: .milliseconds(50)) {
                guard process.isRunning else { return true }
                guard let descriptor = connectToLoopback(port: port) else { return false }
                close(descriptor)
                return true
            }
            if listening && process.isRunning { return (process, port) }
            if process.isRunning { kill(pidFile: pidFile) }
            process.waitUntilExit()
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// Kills iiod at once, as a board that goes away.
    func kill() { Self.kill(pidFile: pidFile) }

    static func kill(pidFile: String) {
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
