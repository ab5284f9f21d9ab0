import Foundation
import LibC
import SystemSupport
import TestSupport
import Testing

/// Unmodified programs on the trace's clock (`hal exec --clock trace`): their clocks read the trace's time, which moves
/// only while they wait, so a run is the same on any machine and under any load, and as fast as the program allows.
///
/// Serialized: the runs share the machine's two cores with the load some of them make on purpose.
@Suite(.serialized) struct TraceClockTests {
    private let walk = packageRoot + "/traces/ubc/main-mall-tour.walk.json"

    /// Runs `hal exec ARGUMENTS` with the test's scratch folder as `TMPDIR`.
    private func exec(_ arguments: [String], scratch: String) async throws -> (status: Int32, output: String) {
        try await runProcess(halExecutable, ["exec"] + arguments, environment: ["TMPDIR": scratch], timeout: 300)
    }

    /// `hal exec`'s output without what the machine decides: the lines that name the program's process id and gpsd's
    /// port, and the number of the pseudo-terminal gpsd reads (`/dev/pts/N`, which gpsd reports).
    private func log(_ output: String) -> String {
        output.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("(pid ") && !$0.hasPrefix("hal exec: device: gpsd 127.0.0.1:") }.joined(separator: "\n")
            .replacing(/\/dev\/pts\/[0-9]+/, with: "/dev/pts/N")
    }

    /// The program's lines whose first word is `name`.
    private func printed(_ lines: [Substring], named name: String) -> [Substring] {
        lines.filter { $0.hasPrefix("[") && $0.split(separator: " ").dropFirst(1).first { !$0.hasSuffix("]") } == Substring(name) }
    }

    /// Runs `body` while two busy processes keep both cores loaded, and stops them after. They are started with
    /// `ChildProcess`, so they inherit none of this process's descriptors (a harness's socket to a child it waits for
    /// would otherwise stay open as long as they run) and no blocked signals (so SIGKILL and SIGTERM end them).
    private func besideALoad<T>(_ body: () async throws -> T) async throws -> T {
        let loads = try (0..<2).map { _ in
            try ChildProcess(executable: "/bin/sh", arguments: ["-c", "while :; do :; done"], environment: [:])
        }
        defer {
            for load in loads {
                load.signalGroup(SIGKILL)
                _ = load.wait()
                close(load.standardOutput)
                close(load.standardError)
            }
        }
        return try await body()
    }

    /// Runs `hal exec ARGUMENTS` once alone and 19 times beside a load on both cores, expects each run's log to be
    /// the first's, and returns the first run's output (for the caller's checks of its values).
    private func sameRunTwentyTimes(_ arguments: [String], scratch: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let first = try await exec(arguments, scratch: scratch)
        #expect(first.status == 0, "\(first.output)", sourceLocation: sourceLocation)
        let expected = log(first.output)
        try await besideALoad {
            for run in 2...20 {
                let again = try await exec(arguments, scratch: scratch)
                #expect(log(again.output) == expected, "run \(run) differs:\n\(again.output)\nfrom the first:\n\(first.output)", sourceLocation: sourceLocation)
            }
        }
        return first.output
    }

    /// A Python program with three asyncio timers and a reader of the serial GPS, with `select` and `time.sleep`
    /// timeouts besides: every line is at its trace time, and 20 runs beside a load on both cores give the same log.
    @Test func aPythonProgramGivesTheSameRunTwentyTimesBesideALoad() async throws {
        let scratch = try makeScratchFolder()
        let program = scratch + "/timers.py"
        try """
            import asyncio, os, select, termios, time, tty
            gps = os.open(os.environ["HAL_DEVICE_GPS"], os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
            tty.setraw(gps)
            start = time.monotonic()
            def now():
                return f"{time.monotonic() - start:.3f}"
            # A select that times out, and a sleep, before the loop starts.
            select.select([], [], [], 2.5)
            time.sleep(0.25)
            print("waited", now(), flush=True)
            async def tick(name, period, count):
                for _ in range(count):
                    await asyncio.sleep(period)
                    print(name, now(), flush=True)
            pending = b""
            def readable():
                global pending
                pending += os.read(gps, 4096)
                while b"\\n" in pending:
                    line, pending = pending.split(b"\\n", 1)
                    if b"RMC" in line[:6]:
                        print("fix", line.split(b",")[1].decode(), now(), flush=True)
            async def main():
                asyncio.get_running_loop().add_reader(gps, readable)
                await asyncio.gather(tick("a", 0.3, 20), tick("b", 0.5, 12), tick("c", 0.7, 9))
            asyncio.run(main())
            """.write(toFile: program, atomically: true, encoding: .utf8)
        let arguments = [walk, "--clock", "trace", "--device", "gps=nmea", "--no-speaker", "--end", "12", "--", "/usr/bin/python3", program]
        let output = try await sameRunTwentyTimes(arguments, scratch: scratch)
        let lines = output.split(separator: "\n")
        // The select's 2.5 s and the sleep's 0.25 s; the three fixes that came meanwhile, read at once; then each fix
        // at its second, and each timer at its period after the last (asyncio rounds its epoll timeout up to the
        // millisecond, so a 0.3 s sleep from 3.950 wakes at 4.251, as it would on a machine whose clock moves).
        #expect(Array(lines.prefix { !$0.contains("] a ") }.filter { $0.hasPrefix("[") }) == [
            "[    2.750] waited 2.750", "[    2.750] fix 170000.000 2.750", "[    2.750] fix 170001.000 2.750",
            "[    2.750] fix 170002.000 2.750", "[    3.000] fix 170003.000 3.000",
        ], "\(output)")
        #expect(lines.contains("[    3.050] a 3.050") && lines.contains("[    3.251] b 3.251") && lines.contains("[    3.451] c 3.451"), "\(output)")
        #expect(lines.contains("[    9.000] fix 170009.000 9.000"), "\(output)")
        #expect(printed(lines, named: "a").count == 20 && printed(lines, named: "b").count == 12 && printed(lines, named: "c").count == 9, "\(output)")
        #expect(output.contains("the program ended: exit status 0"), "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// A program that computes without waiting cannot let the trace's time move: it is stopped by the wall-clock
    /// guard (the end's seconds of wall time), with a message that says why and what to do.
    @Test func aProgramThatNeverWaitsIsStoppedByTheGuard() async throws {
        let scratch = try makeScratchFolder()
        let (status, output) = try await exec(
            [walk, "--clock", "trace", "--device", "gps=nmea", "--no-speaker", "--end", "1", "--", "/usr/bin/python3", "-c", "while True: pass"],
            scratch: scratch)
        #expect(status == 0, "\(output)")
        #expect(output.contains("spinning without waiting at 0.0 s"), "\(output)")
        #expect(output.contains("without waiting, so the trace's time could not move past 0.000 s") && output.contains("--clock wall"), "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// What the trace's clock cannot own is refused before the program starts, naming why and offering the machine's
    /// clock: a statically linked program, a Go program (here a dynamically linked program carrying Go's build-info
    /// marker), a 32-bit or set-user-ID program (which no preload reaches on either clock), and live devices.
    @Test func whatCannotBeOwnedIsRefused() async throws {
        let scratch = try makeScratchFolder()
        var (status, output) = try await exec([walk, "--clock", "trace", "--", "/bin/busybox", "true"], scratch: scratch)
        #expect(status != 0 && output.contains("/bin/busybox is statically linked") && output.contains("--clock wall"), "\(output)")
        let goLike = scratch + "/go-like"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: "/bin/true"))
        bytes.append(contentsOf: [0xff] + Array(" Go buildinf:".utf8) + [8, 2])
        try bytes.write(to: URL(fileURLWithPath: goLike))
        chmod(goLike, 0o755)
        (status, output) = try await exec([walk, "--clock", "trace", "--", goLike], scratch: scratch)
        #expect(status != 0 && output.contains("\(goLike) is a Go program") && output.contains("--clock wall"), "\(output)")
        // A 32-bit program (here /bin/true marked 32-bit: refused before anything loads it) and a set-user-ID one.
        var narrow = try Data(contentsOf: URL(fileURLWithPath: "/bin/true"))
        narrow[4] = 1
        try narrow.write(to: URL(fileURLWithPath: scratch + "/narrow"))
        chmod(scratch + "/narrow", 0o755)
        (status, output) = try await exec([walk, "--clock", "trace", "--", scratch + "/narrow"], scratch: scratch)
        #expect(status != 0 && output.contains("/narrow is a 32-bit program"), "\(output)")
        try FileManager.default.copyItem(atPath: "/bin/true", toPath: scratch + "/setuid")
        chmod(scratch + "/setuid", 0o4755)
        (status, output) = try await exec([walk, "--clock", "wall", "--", scratch + "/setuid"], scratch: scratch)
        #expect(status != 0 && output.contains("/setuid is set-user-ID or set-group-ID"), "\(output)")
        // On the machine's clock it runs.
        (status, output) = try await exec([walk, "--clock", "wall", "--end", "0", "--", goLike], scratch: scratch)
        #expect(status == 0, "\(output)")
        (status, output) = try await exec(["--live", "sim:\(packageRoot)/traces/lobby-lookaround.motion.json#touch", "--record", scratch + "/r.jsonl", "--clock", "trace", "--", "/bin/true"], scratch: scratch)
        #expect(status != 0 && output.contains("use --clock wall with --live"), "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// `gpspipe -w` through the simulated gpsd, which shares the program's clock: gpsd's own reports (VERSION,
    /// DEVICES with the time the receiver was activated, WATCH) and a TPV report a second for each of the walk's fixes,
    /// the same in 20 runs.
    @Test func gpspipeGivesTheSameReportsTwentyTimes() async throws {
        let scratch = try makeScratchFolder()
        let output = try await sameRunTwentyTimes([walk, "--device", "gps=gpsd", "--no-speaker", "--end", "30", "--", "/bin/sh", "-c", "gpspipe -w -n 16 $HAL_GPSD"], scratch: scratch)
        let reports = output.split(separator: "\n").filter { $0.contains("\"class\":\"TPV\"") }
        // gpsd reads the receiver from its first second and reports each fix at that fix's second (the walk's fixes
        // start at 17:00:00 UTC); its own clock stands at the trace's (2026-01-01 at the walk's first fix).
        #expect(reports.count == 7 && reports.allSatisfy { $0.contains("\"lat\":49.2") }, "\(output)")
        #expect(log(output).contains("[    3.000] {\"class\":\"TPV\",\"device\":\"/dev/pts/N\",\"mode\":3,\"time\":\"2026-09-08T17:00:03.000Z\""), "\(output)")
        #expect(output.contains("\"activated\":\"2026-01-01T00:00:01.000Z\""), "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// gpsd's own Python client (`gps.gps`) through the simulated gpsd: each fix's time and position, the same in 20
    /// runs.
    @Test func gpsdsPythonClientGetsTheSameFixesTwentyTimes() async throws {
        let scratch = try makeScratchFolder()
        let client = scratch + "/client.py"
        try """
            import gps, os
            session = gps.gps(host="127.0.0.1", port=os.environ["HAL_GPSD_PORT"], mode=gps.WATCH_ENABLE)
            fixes = 0
            while fixes < 8:
                report = session.next()
                if report["class"] == "TPV" and "lat" in report:
                    print("fix", report["time"], f"{report['lat']:.6f}", f"{report['lon']:.6f}", flush=True)
                    fixes += 1
            """.write(toFile: client, atomically: true, encoding: .utf8)
        let output = try await sameRunTwentyTimes([walk, "--device", "gps=gpsd", "--no-speaker", "--end", "30", "--", "/usr/bin/python3", client], scratch: scratch)
        let fixes = output.split(separator: "\n").filter { $0.contains("] fix ") }
        #expect(fixes.count == 8, "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// `evtest` on the simulated touchscreen: the device's description and both taps of the campus guide's trace,
    /// each event at its time, the same in 20 runs.
    @Test func evtestGivesTheSameEventsTwentyTimes() async throws {
        let scratch = try makeScratchFolder()
        let taps = packageRoot + "/Examples/CampusGuidePython/taps.jsonl"
        let output = try await sameRunTwentyTimes([taps, "--no-speaker", "--end", "260", "--", "evtest", "/dev/input/event0"], scratch: scratch)
        #expect(output.contains("Input device name: \"HAL simulated touchscreen\""), "\(output)")
        // The press at 120 s of the trace is the run's zero; the second tap comes 130 s later. Events are stamped on the
        // program's CLOCK_MONOTONIC, 1 s at the first record.
        #expect(output.contains("[    0.000] Event: time 1.000000, type 1 (EV_KEY), code 330 (BTN_TOUCH), value 1"), "\(output)")
        #expect(output.contains("[  130.000] Event: time 131.000000, type 1 (EV_KEY), code 330 (BTN_TOUCH), value 1"), "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// `iio_readdev` with a buffer of 16 scans reads 64 scans of the lobby look-around's IMU at 100 Hz: the last one
    /// is read at 0.63 s of the trace, and the bytes are the same in 20 runs.
    @Test func iioReaddevReadsTheSameScansTwentyTimes() async throws {
        let scratch = try makeScratchFolder()
        let buffer = scratch + "/buffer.bin"
        let output = try await sameRunTwentyTimes(
            [packageRoot + "/traces/lobby-lookaround.jsonl", "--no-speaker", "--end", "2", "--", "/bin/sh", "-c",
             "iio_readdev -b 16 -s 64 iio:device0 > \(buffer); wc -c < \(buffer); sha256sum < \(buffer)"], scratch: scratch)
        #expect(output.contains("[    0.630] 1536"), "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// `delivered:` says how many fixes the program read, not only how many were written: none for a program that
    /// never opens the serial GPS; one for `head -c 300`, which ends at 1 s having read the first fix whole and the
    /// second in part; all six of the first 5 s for a reader that keeps reading.
    @Test func deliveredCountsTheFixesTheProgramRead() async throws {
        let scratch = try makeScratchFolder()
        func delivered(_ command: String) async throws -> String {
            let run = try await exec([walk, "--device", "gps=nmea", "--no-speaker", "--end", "5", "--", "/bin/sh", "-c", command], scratch: scratch)
            #expect(run.status == 0, "\(run.output)")
            return run.output.split(separator: "\n").first { $0.hasPrefix("hal exec: delivered: serial GPS:") }.map(String.init) ?? run.output
        }
        #expect(try await delivered("sleep 10") == "hal exec: delivered: serial GPS: 6 fixes written as NMEA, 0 read by the program")
        #expect(try await delivered("stty raw < $HAL_DEVICE_GPS; head -c 300 $HAL_DEVICE_GPS | wc -c")
            == "hal exec: delivered: serial GPS: 2 fixes written as NMEA, 1 read by the program")
        let all = try await delivered("stty raw < $HAL_DEVICE_GPS; cat $HAL_DEVICE_GPS | wc -c")
        #expect(all == "hal exec: delivered: serial GPS: 6 fixes written as NMEA, 6 read by the program")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// `delivered:` says what the program read of the input devices too: none of the touchscreen's events for a
    /// program that never opens it; 3 events and no whole frame for `head -c 72` (three 24-byte events); every event
    /// for evtest; and of the IMU's buffer, the 4 scans a reader took (accel_x alone, 2 bytes a scan) of the many
    /// written while it kept the buffer enabled.
    @Test func deliveredCountsTheEventsAndScansTheProgramRead() async throws {
        let scratch = try makeScratchFolder()
        let taps = packageRoot + "/Examples/CampusGuidePython/taps.jsonl"
        func delivered(_ trace: String, _ end: String, _ command: String, _ prefix: String) async throws -> String {
            let run = try await exec([trace, "--no-speaker", "--end", end, "--", "/bin/sh", "-c", command], scratch: scratch)
            return run.output.split(separator: "\n").first { $0.hasPrefix("hal exec: delivered: " + prefix) }.map(String.init) ?? run.output
        }
        let touch = "touchscreen /dev/input/event0: 21 events in 4 frames on the trace's clock"
        #expect(try await delivered(taps, "260", "sleep 300", "touchscreen") == "hal exec: delivered: \(touch), 0 events (0 frames) read by the program")
        #expect(try await delivered(taps, "260", "head -c 72 /dev/input/event0 > /dev/null; sleep 300", "touchscreen")
            == "hal exec: delivered: \(touch), 3 events (0 frames) read by the program")
        #expect(try await delivered(taps, "260", "evtest /dev/input/event0 > /dev/null", "touchscreen")
            == "hal exec: delivered: \(touch), 21 events (4 frames) read by the program")
        let reader = scratch + "/reader.py"
        try """
            import os, time
            folder = "/sys/bus/iio/devices/iio:device0/"
            open(folder + "scan_elements/in_accel_x_en", "w").write("1")
            open(folder + "buffer/enable", "w").write("1")
            node = os.open("/dev/iio:device0", os.O_RDONLY)
            taken = b""
            while len(taken) < 8: taken += os.read(node, 8 - len(taken))
            time.sleep(1)
            """.write(toFile: reader, atomically: true, encoding: .utf8)
        let buffer = try await delivered(packageRoot + "/traces/lobby-lookaround.jsonl", "2", "/usr/bin/python3 \(reader)", "iio:device0")
        let written = buffer.firstMatch(of: /, ([0-9]+) scans into the enabled buffer, 4 read by the program$/).flatMap { Int($0.1) }
        #expect(written.map { $0 > 90 } == true, "\(buffer)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// A program that closes its standard output (or sends it to /dev/null with `exec`) lets time move: the ended
    /// pipe has nothing more for hal to take. Its reader used to ask the closed descriptor, and time stood still until
    /// the spin guard stopped the program.
    @Test func aProgramThatClosesItsOutputStillMovesTime() async throws {
        let scratch = try makeScratchFolder()
        var run = try await exec([walk, "--device", "gps=nmea", "--no-speaker", "--end", "3", "--", "/bin/sh", "-c", "exec >&-; sleep 2; echo slept >&2"], scratch: scratch)
        #expect(run.status == 0 && run.output.contains("[    2.000] stderr: slept"), "\(run.output)")
        run = try await exec(
            [walk, "--device", "gps=nmea", "--no-speaker", "--end", "5", "--", "/bin/sh", "-c", "stty raw < $HAL_DEVICE_GPS; exec cat $HAL_DEVICE_GPS > /dev/null"],
            scratch: scratch)
        #expect(run.output.contains("serial GPS: 6 fixes written as NMEA, 6 read by the program"), "\(run.output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// `aplay` waits for its clip as on a sound card, in the trace's time: a shell that plays a 0.5 s tone prints
    /// its next line when aplay's last write returned, 0.427 s later (the clip less the 73 ms that the speaker's FIFO
    /// and alsa-lib's buffer still hold then), with the clip's start and end in the log; the same in 20 runs.
    @Test func aplayTakesAsLongAsItsClipTwentyTimes() async throws {
        let scratch = try makeScratchFolder()
        let tone = scratch + "/tone.wav"
        let made = try await runProcess(halExecutable, ["play", "tone:440,0.5", "--out", tone], timeout: 60)
        #expect(made.status == 0, "\(made.output)")
        let output = try await sameRunTwentyTimes(
            [walk, "--device", "gps=nmea", "--end", "10", "--", "/bin/sh", "-c", "aplay -q \(tone); echo played; sleep 1; echo slept"],
            scratch: scratch)
        #expect(output.contains("[    0.427] played") && output.contains("[    1.427] slept"), "\(output)")
        #expect(output.contains("    0.000 speaker.started") && output.contains("    0.500 speaker.stopped"), "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// A C program with two threads: one waits on a condition variable with a 250 ms timeout, the other polls the
    /// simulated serial GPS and reads its sentences. Each line is at its exact time, the same in 20 runs.
    @Test func aCProgramWithAConditionAndAPollGivesTheSameRunTwentyTimes() async throws {
        let scratch = try makeScratchFolder()
        let source = scratch + "/two.c", program = scratch + "/two"
        try """
            #include <fcntl.h>
            #include <poll.h>
            #include <pthread.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            #include <time.h>
            #include <unistd.h>
            static struct timespec start;
            static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
            static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
            static long ms(void) {
                struct timespec now;
                clock_gettime(CLOCK_MONOTONIC, &now);
                return (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
            }
            static void *ticks(void *unused) {
                pthread_mutex_lock(&lock);
                for (int n = 1; n <= 12; n++) {
                    struct timespec until;
                    clock_gettime(CLOCK_REALTIME, &until);
                    until.tv_nsec += 250000000;
                    if (until.tv_nsec >= 1000000000) { until.tv_sec++; until.tv_nsec -= 1000000000; }
                    pthread_cond_timedwait(&never, &lock, &until);
                    printf("tick %d %ld\\n", n, ms());
                    fflush(stdout);
                }
                pthread_mutex_unlock(&lock);
                return unused;
            }
            int main(void) {
                clock_gettime(CLOCK_MONOTONIC, &start);
                pthread_t thread;
                pthread_create(&thread, NULL, ticks, NULL);
                int gps = open(getenv("HAL_DEVICE_GPS"), O_RDONLY | O_NOCTTY);
                char line[4096];
                size_t used = 0;
                int fixes = 0;
                while (fixes < 3) {
                    struct pollfd descriptor = {.fd = gps, .events = POLLIN};
                    if (poll(&descriptor, 1, 5000) <= 0) break;
                    ssize_t got = read(gps, line + used, sizeof line - used - 1);
                    if (got <= 0) break;
                    used += (size_t)got;
                    line[used] = 0;
                    char *end;
                    while ((end = strchr(line, '\\n')) != NULL) {
                        *end = 0;
                        if (strstr(line, "RMC") != NULL) {
                            pthread_mutex_lock(&lock);
                            printf("fix %.16s %ld\\n", line, ms());
                            fflush(stdout);
                            pthread_mutex_unlock(&lock);
                            fixes++;
                        }
                        used -= (size_t)(end + 1 - line);
                        memmove(line, end + 1, used + 1);
                    }
                }
                pthread_join(thread, NULL);
                return 0;
            }
            """.write(toFile: source, atomically: true, encoding: .utf8)
        let compiled = try await runProcess("/usr/bin/cc", ["-O1", "-pthread", "-o", program, source], timeout: 120)
        #expect(compiled.status == 0, "\(compiled.output)")
        let output = try await sameRunTwentyTimes([walk, "--device", "gps=nmea", "--no-speaker", "--end", "10", "--", program], scratch: scratch)
        let lines = output.split(separator: "\n").filter { $0.hasPrefix("[") }
        #expect(lines.filter { $0.contains("] tick ") }.count == 12 && lines.contains("[    3.000] tick 12 3000"), "\(output)")
        #expect(lines.filter { $0.contains("] fix ") }.count == 3 && lines.contains { $0.hasPrefix("[    2.000] fix ") && $0.hasSuffix(" 2000") }, "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// A Python program whose two threads each run 40 short programs one after another: processes start and end all
    /// the time, each taking a slot of the clock as an ended one's is freed. The clock never loses a thread (one
    /// slot freed under a live thread stalled about one run in six before it was fixed), and the run ends at 0.400 s.
    @Test func programsStartedFromTwoThreadsNeverStallTheClock() async throws {
        let scratch = try makeScratchFolder()
        let program = scratch + "/spawn.py"
        try """
            import subprocess, threading, time
            start = time.monotonic()
            def work():
                for _ in range(40):
                    subprocess.run(["/bin/sleep", "0.01"])
            threads = [threading.Thread(target=work) for _ in range(2)]
            for thread in threads: thread.start()
            for thread in threads: thread.join()
            print("done", f"{time.monotonic() - start:.3f}", flush=True)
            """.write(toFile: program, atomically: true, encoding: .utf8)
        let output = try await sameRunTwentyTimes([walk, "--device", "gps=nmea", "--no-speaker", "--end", "30", "--", "/usr/bin/python3", program], scratch: scratch)
        #expect(output.contains("[    0.400] done 0.400"), "\(output)")
        try? FileManager.default.removeItem(atPath: scratch)
    }
}
