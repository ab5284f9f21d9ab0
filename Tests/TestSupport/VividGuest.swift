import Foundation

/// Runs a command in a qemu guest with Debian's kernel and the vivid test-camera driver (see
/// `scripts/build-vivid-guest`): software emulation, the host's root shared read-only, and `scratch`
/// shared read-write as `/mnt`. The command runs in a chroot of the host's root, so it can run
/// binaries this package built. Returns the guest's exit status and its output (`nil` status when
/// the guest never reported one).
public enum VividGuest {
    /// Where `scripts/build-vivid-guest` puts the kernel and initramfs.
    public static let folder = packageRoot + "/.build/vivid-guest"

    /// Boots the guest, runs `command` (a shell command line) in it, and waits up to `timeout` seconds.
    public static func run(_ command: String, scratch: String, timeout: Double) async throws -> (status: Int32?, output: String, console: String) {
        try "#!/bin/sh\n\(command)\n".write(toFile: scratch + "/run.sh", atomically: true, encoding: .utf8)
        // At the ordinary priority. It ran at nice 19, so that timing-sensitive tests beside it went first; but the
        // suite runs one test at a time and its tests wait for states, not times, while a machine loaded on every core
        // (scripts/flake-hunt's hog, a build) left a guest at nice 19 almost no CPU, past any limit. `no_timer_check`:
        // on a loaded host the kernel's boot-time check of the IO-APIC timer can see too few ticks from a starved
        // emulator and panic ("IO-APIC + timer doesn't work"); the parameter skips that check, as it is meant to under
        // virtualisation (scripts/vivid-loop found it).
        let (_, console) = try await runProcess(
            "/usr/bin/qemu-system-x86_64",
            ["-accel", "tcg", "-cpu", "max", "-m", "1024", "-smp", "1", "-nographic", "-no-reboot", "-net", "none",
             "-kernel", folder + "/vmlinuz", "-initrd", folder + "/initrd.img", "-append", "console=ttyS0 panic=-1 quiet no_timer_check",
             "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
             "-virtfs", "local,path=\(scratch),mount_tag=scratch,security_model=none"],
            timeout: timeout)
        let status = (try? String(contentsOfFile: scratch + "/status", encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let output = (try? String(contentsOfFile: scratch + "/console.txt", encoding: .utf8)) ?? ""
        return (status, output, console)
    }
}
