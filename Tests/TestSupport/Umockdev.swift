import Foundation
public import Testing

/// Runs device tests against umockdev's emulated sysfs and `/dev`, with the real libiio and libevdev.
///
/// umockdev works by `LD_PRELOAD`, which must be in place when a process starts. So a device test
/// calls ``run(_:suite:test:body:)``: in the ordinary test process that hosts the testbed's files in
/// `hal-testbed` (as `hal exec` does, with its evdev answers at any size) and re-runs the test binary
/// under umockdev's preload in it, filtered to the same test; in that child the preload is active and
/// `body` runs. The child's failures fail the parent, with its output.
/// Each child has its own testbed; suites using this are `.serialized` all the same, as umockdev
/// allows one testbed per process and the children share the machine's two cores.
public enum Umockdev {
    /// The files a testbed loads.
    public struct Testbed: Sendable {
        /// `.umockdev` device descriptions (sysfs trees).
        public var devices: [String] = []
        /// `(node, file)`: ioctl replies for a `/dev` node.
        public var ioctls: [(node: String, file: String)] = []
        /// `(node, file)`: evemu events a `/dev/input` node delivers.
        public var evemuEvents: [(node: String, file: String)] = []
        /// `(node, file)`: a read/write script for a `/dev` node.
        public var scripts: [(node: String, file: String)] = []
        /// `(node, file)`: an evdev node's variable-size ioctl answers (`hal-testbed -x`).
        public var answers: [(node: String, file: String)] = []

        /// An empty testbed.
        public init() {}
    }

    /// Whether this process runs under umockdev's preload.
    public static var isInTestbed: Bool {
        ProcessInfo.processInfo.environment["LD_PRELOAD"]?.contains("umockdev-preload") ?? false
    }

    /// The scratch folder the parent made for this child's files, inside the child.
    public static var scratchFolder: String {
        ProcessInfo.processInfo.environment["HAL_TESTBED_SCRATCH"] ?? NSTemporaryDirectory()
    }

    /// A fresh scratch folder in the parent; the parent's folder again in the umockdev child.
    public static func testScratchFolder() throws -> String {
        isInTestbed ? scratchFolder : try makeScratchFolder()
    }

    /// Where the testbed's emulated root is, inside the child (`$UMOCKDEV_DIR`).
    public static var testbedRoot: String? { ProcessInfo.processInfo.environment["UMOCKDEV_DIR"] }

    /// Runs `body` in a child test process under umockdev's preload in `hal-testbed`'s testbed, or runs `body`
    /// directly when already in that child. `scratch` holds the files the parent prepared.
    public static func run(
        _ testbed: Testbed, scratch: String, suite: String, test: String = #function,
        sourceLocation: SourceLocation = #_sourceLocation,
        body: () async throws -> Void
    ) async throws {
        if isInTestbed {
            try await body()
            return
        }
        var arguments: [String] = []
        for device in testbed.devices { arguments += ["-d", device] }
        for (node, file) in testbed.ioctls { arguments += ["-i", "\(node)=\(file)"] }
        for (node, file) in testbed.evemuEvents { arguments += ["-e", "\(node)=\(file)"] }
        for (node, file) in testbed.scripts { arguments += ["-s", "\(node)=\(file)"] }
        for (node, file) in testbed.answers { arguments += ["-x", "\(node)=\(file)"] }
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let host = Process()
        host.executableURL = URL(fileURLWithPath: testbedHost)
        let ready = scratch + "/testbed.ready"
        host.arguments = [ready] + arguments
        host.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch]) { $1 }
        try host.run()
        defer {
            // SIGTERM ends hal-testbed at once; Foundation's waitUntilExit would spin a core while it goes.
            host.terminate()
            _ = blockUntil { !host.isRunning }
        }
        let made = try await waitUntil { FileManager.default.fileExists(atPath: ready) || !host.isRunning }
        guard made, let root = try? String(contentsOfFile: ready, encoding: .utf8) else {
            Issue.record("hal-testbed did not make the testbed for \(suite)/\(test)", sourceLocation: sourceLocation)
            return
        }
        let pattern = NSRegularExpression.escapedPattern(for: "\(suite)/\(test)")
        let preload = ["libumockdev-preload.so.0", ProcessInfo.processInfo.environment["LD_PRELOAD"]].compactMap { $0 }.joined(separator: ":")
        // The limit only ends a child that hangs: it is longer than any wait for a state inside it (`stateTimeout`).
        let (status, output) = try await runProcess(
            binary, ["--testing-library", "swift-testing", "--filter", pattern],
            environment: ["TMPDIR": scratch, "HAL_TESTBED_SCRATCH": scratch, "UMOCKDEV_DIR": root, "LD_PRELOAD": preload], timeout: 300)
        if status != 0 || !output.contains("1 test") {
            Issue.record("the umockdev child for \(suite)/\(test) failed (exit \(status)):\n\(output)", sourceLocation: sourceLocation)
        }
    }

    /// `hal-testbed`: `$HAL_TESTBED` when set, else the one built beside the test binary.
    static var testbedHost: String {
        if let path = ProcessInfo.processInfo.environment["HAL_TESTBED"], !path.isEmpty { return path }
        return URL(fileURLWithPath: halExecutable).deletingLastPathComponent().appendingPathComponent("hal-testbed").path
    }
}
