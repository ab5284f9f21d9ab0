import Foundation
import HAL
import TestSupport
import Testing
import TraceFormat

/// `hal exec` when things go wrong: each failure has a message that says what to do, and nothing outlives the
/// command (its scratch folder under `TMPDIR`, the program, umockdev's testbed host).
@Suite(.serialized) struct ProgramFailureTests {
    /// A scratch folder with a trace of one touch channel, two taps. Its path is short, so that `hal exec` makes its
    /// own folder inside it (`TMPDIR`) rather than in `/tmp` (umockdev's sockets need short paths).
    private func prepare() throws -> (scratch: String, trace: String) {
        var template = Array("/tmp/hx.XXXXXX".utf8CString)
        let scratch = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        let path = scratch + "/taps.jsonl"
        let records = [0.0, 0.1, 0.5, 0.6].enumerated().map { index, at in
            TraceRecord(channel: 0, reading: .pointer(PointerEvent(timestamp: Timestamp(nanoseconds: Int64(at * 1e9)), phase: index % 2 == 0 ? .press : .release, x: 0.5, y: 0.5)))
        }
        let trace = Trace(header: TraceHeader(channels: [TraceChannel(id: "touch", kind: .pointer, source: "test")]), records: records)
        try TraceConversion.write(trace, to: TraceWriter(path: path, header: trace.header, durability: .buffered))
        return (scratch, path)
    }

    private func exec(_ arguments: [String], scratch: String, environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
        try await runProcess(halExecutable, ["exec"] + arguments, environment: ["TMPDIR": scratch].merging(environment) { $1 }, timeout: 120)
    }

    /// Nothing of the run is left in the scratch folder: no `hal-exec.*` folder.
    private func expectNothingLeft(_ scratch: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch).filter { $0.hasPrefix("hal-exec.") }
        #expect(left.isEmpty, "left behind: \(left)", sourceLocation: sourceLocation)
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// Whether `pid` runs: a zombie (killed, not yet reaped by whoever inherited it) does not.
    private func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return !(stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? false)
    }

    @Test func aProgramThatIsNotFound() async throws {
        let (scratch, trace) = try prepare()
        let (status, output) = try await exec([trace, "--", "no-such-program-here"], scratch: scratch)
        #expect(status != 0)
        #expect(output.contains("program 'no-such-program-here' not found on PATH"), "\(output)")
        try expectNothingLeft(scratch)
    }

    @Test func aProgramThatExitsAtOnceGivesItsStatus() async throws {
        let (scratch, trace) = try prepare()
        let (status, output) = try await exec([trace, "--end", "600", "--", "/bin/sh", "-c", "exit 3"], scratch: scratch)
        #expect(status == 3)
        #expect(output.contains("the program ended: exit status 3"), "\(output)")
        try expectNothingLeft(scratch)
    }

    @Test func aCrashIsReportedWithItsSignal() async throws {
        let (scratch, trace) = try prepare()
        let (status, output) = try await exec([trace, "--end", "600", "--", "/bin/sh", "-c", "kill -SEGV $$"], scratch: scratch)
        #expect(status == 128 + 11)
        #expect(output.contains("the program crashed: signal 11 (SIGSEGV)"), "\(output)")
        try expectNothingLeft(scratch)
    }

    /// A program that ignores SIGTERM is killed after the grace period, with what it started.
    @Test func aProgramThatOutlivesTheEndIsKilledAfterTheGracePeriod() async throws {
        let (scratch, trace) = try prepare()
        let (status, output) = try await exec(
            [trace, "--end", "2", "--grace", "0.5", "--", "/bin/sh", "-c", "trap '' TERM; echo pid $$; sleep 300 & echo child $!; wait"], scratch: scratch)
        #expect(status == 0)
        #expect(output.contains("end passed at 2.0 s; the program was stopped with SIGKILL after the grace period: signal 9 (SIGKILL)"), "\(output)")
        let pids = output.split(separator: "\n").compactMap { line -> Int32? in
            guard let range = line.range(of: "] pid ") ?? line.range(of: "] child ") else { return nil }
            return Int32(line[range.upperBound...])
        }
        #expect(pids.count == 2, "\(output)")
        for pid in pids { #expect(!isAlive(pid), "process \(pid) outlived the command") }
        try expectNothingLeft(scratch)
    }

    /// A program that keeps running ends when the inputs do, with SIGTERM.
    @Test func theProgramIsStoppedWhenTheInputsEnd() async throws {
        let (scratch, trace) = try prepare()
        let (status, output) = try await exec([trace, "--", "/bin/sh", "-c", "exec sleep 300"], scratch: scratch)
        #expect(status == 0)
        #expect(output.contains("inputs ended at 0.6 s; the program was stopped with SIGTERM: signal 15 (SIGTERM)"), "\(output)")
        try expectNothingLeft(scratch)
    }

    @Test func umockdevMissingNamesTheDebianPackage() async throws {
        let (scratch, trace) = try prepare()
        var (status, output) = try await exec([trace, "--", "/bin/true"], scratch: scratch, environment: ["HAL_UMOCKDEV_PRELOAD": scratch + "/none.so"])
        #expect(status != 0)
        #expect(output.contains("umockdev's preload library is not there; install Debian's umockdev"), "\(output)")
        (status, output) = try await exec([trace, "--", "/bin/true"], scratch: scratch, environment: ["HAL_TESTBED": scratch + "/none"])
        #expect(status != 0)
        #expect(output.contains("HAL_TESTBED=\(scratch)/none is not an executable file"), "\(output)")
        try expectNothingLeft(scratch)
    }

    /// `hal` run from a SwiftPM build folder that lacks `libhal-clock.so` and `hal-testbed` (as after `swift run hal`)
    /// builds them there with `swift build` first, once, and says so; a failed build is an error with swift's output.
    /// The package here is a stand-in: its `hal-clock` is an empty C library and its `hal-testbed` a C program that
    /// exits 3, so the run fails after the builds, at the testbed.
    @Test func aMissingHelperIsBuiltBesideHal() async throws {
        let (scratch, trace) = try prepare()
        let root = scratch + "/package"
        try FileManager.default.createDirectory(atPath: root + "/Sources/Testbed", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/Sources/Clock/include", withIntermediateDirectories: true)
        // The layout SwiftPM makes: hal in BUILD/TRIPLE/CONFIGURATION (BUILD/CONFIGURATION links there), whatever the
        // build folder's name (.build, or a sanitizer's .build-tsan).
        let parts = halExecutable.split(separator: "/")
        try #require(parts.count >= 3, "\(halExecutable)")
        let configuration = parts[parts.count - 2]
        let folder = root + "/.build/" + parts[parts.count - 3] + "/" + configuration
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try """
            // swift-tools-version:5.9
            import PackageDescription
            let package = Package(
                name: "helpers",
                products: [.executable(name: "hal-testbed", targets: ["Testbed"]), .library(name: "hal-clock", type: .dynamic, targets: ["Clock"])],
                targets: [.executableTarget(name: "Testbed", path: "Sources/Testbed"), .target(name: "Clock", path: "Sources/Clock")])
            """.write(toFile: root + "/Package.swift", atomically: true, encoding: .utf8)
        try "int main(void) { return 3; }\n".write(toFile: root + "/Sources/Testbed/main.c", atomically: true, encoding: .utf8)
        try "int hal_stand_in(void) { return 0; }\n".write(toFile: root + "/Sources/Clock/clock.c", atomically: true, encoding: .utf8)
        let hal = folder + "/hal"
        try FileManager.default.copyItem(atPath: halExecutable, toPath: hal)
        func run() async throws -> (status: Int32, output: String) {
            // The sanitizer lanes name the helpers in the environment; empty is unset.
            try await runProcess(
                hal, ["exec", trace, "--clock", "wall", "--", "/bin/true"], environment: ["TMPDIR": scratch, "HAL_TESTBED": "", "HAL_CLOCK_PRELOAD": ""], timeout: 600)
        }
        var (status, output) = try await run()
        #expect(output.contains("hal exec: building hal-clock beside hal (swift build -c \(configuration) --product hal-clock), once"), "\(output)")
        #expect(output.contains("hal exec: building hal-testbed beside hal (swift build -c \(configuration) --product hal-testbed), once"), "\(output)")
        #expect(FileManager.default.fileExists(atPath: folder + "/libhal-clock.so"), "\(output)")
        #expect(FileManager.default.isExecutableFile(atPath: folder + "/hal-testbed"), "\(output)")
        #expect(status != 0 && output.contains("hal-testbed"), "\(output)")
        (status, output) = try await run()
        #expect(!output.contains("building"), "\(output)")
        // A package that cannot build it: the error says what swift said.
        try FileManager.default.removeItem(atPath: folder + "/hal-testbed")
        try "int main(void) { return }\n".write(toFile: root + "/Sources/Testbed/main.c", atomically: true, encoding: .utf8)
        (status, output) = try await run()
        #expect(status != 0 && output.contains("building hal-testbed beside hal failed") && output.contains("main.c"), "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// A device asked of a channel whose kind it cannot carry, an unknown channel and an unknown type are refused
    /// with what would work.
    @Test func aDeviceThatCannotCarryTheChannelIsRefused() async throws {
        let (scratch, trace) = try prepare()
        var (status, output) = try await exec([trace, "--device", "touch=nmea", "--", "/bin/true"], scratch: scratch)
        #expect(status != 0)
        #expect(output.contains("--device touch=nmea: a nmea device cannot carry channel 'touch' of kind pointer; it can be served as evdev"), "\(output)")
        (status, output) = try await exec([trace, "--device", "gps=nmea", "--", "/bin/true"], scratch: scratch)
        #expect(output.contains("the inputs have no channel 'gps'; they have touch"), "\(output)")
        (status, output) = try await exec([trace, "--device", "touch=uinput", "--", "/bin/true"], scratch: scratch)
        #expect(output.contains("no device type 'uinput'; the types are evdev, iio, nmea, gpsd, v4l2"), "\(output)")
        try expectNothingLeft(scratch)
    }

    /// busybox from Debian's busybox-static is statically linked: the preload cannot reach it, which is said
    /// before anything runs; a script is judged by its interpreter.
    @Test func aStaticallyLinkedProgramIsRefused() async throws {
        let (scratch, trace) = try prepare()
        var (status, output) = try await exec([trace, "--clock", "wall", "--", "/bin/busybox", "true"], scratch: scratch)
        #expect(status != 0)
        #expect(output.contains("/bin/busybox is statically linked: umockdev's preload library cannot reach it"), "\(output)")
        // On the trace's clock (the default), the message names the clock too.
        (status, output) = try await exec([trace, "--", "/bin/busybox", "true"], scratch: scratch)
        #expect(status != 0 && output.contains("/bin/busybox is statically linked: no dynamic loader reads LD_PRELOAD, so neither the simulated devices nor the trace's clock can reach it"), "\(output)")
        let script = scratch + "/static.sh"
        try "#!/bin/busybox sh\necho hi\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        (status, output) = try await exec([trace, "--", script], scratch: scratch)
        #expect(output.contains("/bin/busybox is statically linked"), "\(output)")
        // A dynamically linked program passes the same check.
        (status, output) = try await exec([trace, "--end", "600", "--", "/bin/sh", "-c", "echo fine"], scratch: scratch)
        #expect(status == 0 && output.contains("] fine"), "\(output)")
        try expectNothingLeft(scratch)
    }

    /// Live devices that deliver faster than they are served (a `sim:` device not paced) still have readings to
    /// write when a program that reads nothing ends: the run stops its feeds before the testbed, exits 0, keeps the
    /// recording, and leaves nothing behind.
    @Test func aLiveRunWhoseProgramEndsFirstEndsCleanly() async throws {
        let (scratch, _) = try prepare()
        let script = packageRoot + "/traces/lobby-lookaround.motion.json"
        let recording = scratch + "/live.jsonl"
        let (status, output) = try await exec(
            ["--live", "sim:\(script)#touch", "--live", "sim:\(script)#gyro", "--record", recording, "--end", "600", "--", "/bin/true"], scratch: scratch)
        #expect(status == 0, "\(output)")
        #expect(output.contains("the program ended: exit status 0") && output.contains("readings into \(recording)"), "\(output)")
        #expect(FileManager.default.fileExists(atPath: recording))
        try expectNothingLeft(scratch)
    }

    /// Ctrl-C stops the program and the testbed and removes the scratch folder; the command exits with 130.
    @Test func ctrlCLeavesNothingBehind() async throws {
        let (scratch, trace) = try prepare()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: halExecutable)
        // On the machine's clock: on the trace's, the program's 300 s sleep would be over at once.
        process.arguments = ["exec", trace, "--clock", "wall", "--end", "300", "--", "/bin/sh", "-c", "echo pid $$; exec sleep 300"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch]) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let collected = Locked<String>("")
        let closed = Locked(false)
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { closed.withLock { $0 = true } }
            collected.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        let started = try await waitUntil { collected.withLock { $0.contains("] pid ") } }
        try #require(started, "the program did not start: \(collected.withLock { $0 })")
        let output = collected.withLock { $0 }
        let pid = try #require(output.split(separator: "\n").first { $0.contains("] pid ") }.flatMap { Int32($0.split(separator: " ").last!) })
        #expect(try !FileManager.default.contentsOfDirectory(atPath: scratch).filter { $0.hasPrefix("hal-exec.") }.isEmpty)
        kill(process.processIdentifier, SIGINT)
        let ended = try await waitUntil { !process.isRunning }
        try #require(ended, "hal exec did not stop on SIGINT")
        // Everything it wrote is read once the pipe is closed (its last lines may still be in flight when it ends;
        // Process closed this side's write end when it started the command).
        let drained = try await waitUntil { closed.withLock { $0 } }
        pipe.fileHandleForReading.readabilityHandler = nil
        #expect(drained, "the output pipe never closed")
        #expect(process.terminationStatus == 130, "\(collected.withLock { $0 })")
        #expect(collected.withLock { $0 }.contains("interrupted at"), "\(collected.withLock { $0 })")
        #expect(!isAlive(pid), "the program outlived the command")
        // No umockdev host of this run is left: its command line names the scratch folder.
        let (_, hosts) = try await runProcess("/usr/bin/pgrep", ["-af", scratch], timeout: 10)
        #expect(hosts.isEmpty, "left running: \(hosts)")
        try expectNothingLeft(scratch)
    }
}
