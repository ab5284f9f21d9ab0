import Foundation

/// The `hal` executable built beside the test binary.
public let halExecutable: String = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    .deletingLastPathComponent().appendingPathComponent("hal").path

/// Runs a program to completion, with extra environment, and returns its exit status and
/// combined output. A program still running after `timeout` seconds is killed.
public func runProcess(
    _ path: String, _ arguments: [String], environment: [String: String] = [:], timeout: Double
) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let killer = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    killer.cancel()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// ``runProcess(_:_:environment:timeout:)`` for async tests: the wait happens on a Dispatch thread, not on
/// the cooperative pool, so a long child process (a qemu guest, a umockdev child) does not starve the
/// other tests' tasks on a two-core machine.
public func runProcess(
    _ path: String, _ arguments: [String], environment: [String: String] = [:], timeout: Double
) async throws -> (status: Int32, output: String) {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try runProcess(path, arguments, environment: environment, timeout: timeout) })
        }
    }
}
