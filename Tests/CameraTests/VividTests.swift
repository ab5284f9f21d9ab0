import Foundation
import Testing
import TestSupport

/// V4L2 against the real kernel driver vivid: `VividChecks` runs inside a qemu guest booted once for the
/// suite (Debian's kernel under software emulation, `scripts/build-vivid-guest`), and each test asserts
/// that its check passed there. The guest also proves the host side is not lying: a missing status or a
/// missing line fails.
@Suite struct VividTests {
    static let checks = [
        "formats", "negotiation", "stream-YUYV", "stream-NV12", "stream-GREY", "stream-RGB3", "stream-BGR3", "hal-camera",
        "dropped-buffers", "error-buffer", "disconnect",
    ]

    /// The guest's run: its exit status and output, computed once.
    static let guest = Task { () async throws -> (status: Int32?, output: String) in
        let scratch = try makeScratchFolder()
        let binary = URL(fileURLWithPath: halExecutable).deletingLastPathComponent().appendingPathComponent("VividChecks").path
        // The list first: the last check disconnects the device.
        let command = "cd '\(packageRoot)' && '\(halExecutable)' camera list && '\(binary)'"
        // The limit only ends a guest that hangs: a run takes about a minute, several on a loaded machine.
        let run = try await VividGuest.run(command, scratch: scratch, timeout: 1800)
        return (run.status, run.output.isEmpty ? run.console : run.output)
    }

    @Test func theGuestRanEveryCheck() async throws {
        let (status, output) = try await Self.guest.value
        #expect(status == 0, "the guest's checks exited \(String(describing: status)):\n\(output)")
        let reported = output.split(separator: "\n").filter { $0.hasPrefix("PASS ") || $0.hasPrefix("FAIL ") }.count
        #expect(reported == Self.checks.count, "\(output)")
    }

    @Test func halCameraListShowsVividsFormatsSizesAndRates() async throws {
        let (_, output) = try await Self.guest.value
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.contains("v4l2:/dev/video0  vivid"), "\(output)")
        let yuyv = lines.first { $0.hasPrefix("    YUYV ") } ?? ""
        #expect(yuyv.contains("640x360@1/2/4/5/10/12.5/15/25/30/40"), "\(yuyv)")
        #expect(lines.contains { $0.hasPrefix("    NV12 ") } && lines.contains { $0.hasPrefix("    GREY ") })
    }

    @Test(arguments: checks)
    func passesInTheGuest(check: String) async throws {
        let (_, output) = try await Self.guest.value
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.contains("PASS \(check)"), "\(lines.first { $0.hasPrefix("FAIL \(check)") } ?? "no line for \(check)")\n\(output)")
    }
}
