import CVirtualClock
import Foundation
import LibC
import TestSupport
import Testing

/// libhal-clock.so, the preload library of `hal exec --clock trace`, with real programs (Python's time, select,
/// threading and asyncio; C programs with threads, poll, condition variables and timerfd; a shell and its children)
/// driven by a minimal scheduler written here over CVirtualClock's primitives: wait until every thread of the program
/// waits, move the time to the earliest deadline, release that waiter, again. Each program's virtual times are exact,
/// each run is the same as the last, and a run of minutes of virtual time takes a blink (the 60 s guard would stop a
/// program that ran on the wall clock).
///
/// Serialized: each run polls the program's threads in /proc, and they share the machine's two cores.
@Suite(.serialized) struct ClockPreloadTests {
    /// libhal-clock.so, built beside the test binary (`swift build` builds the `hal-clock` product).
    private static let library = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("libhal-clock.so").path

    /// Where the virtual clock starts: 1000 s of monotonic time, and 2023-11-14 22:13:20 UTC of real time.
    private static let start: Int64 = 1_000_000_000_000
    private static let realtimeOffset: Int64 = 1_700_000_000_000_000_000 - start

    /// What a program did on the virtual clock.
    private struct VirtualRun: Sendable {
        var status: Int32
        var output: String
        /// Virtual nanoseconds from the start to the end of the run.
        var elapsed: Int64
        /// Why the scheduler gave up, when it did.
        var failure: String?
    }

    /// Runs a program on a fresh virtual clock with a minimal scheduler: whenever every thread of the program (and
    /// of its children) waits, the time moves to the earliest deadline and that waiter is released. Waits for states,
    /// never for a time; a program still running after 60 s of wall time (one that spins, or one that the preload
    /// does not own) is killed, and so is one that waits with no deadline (nothing would ever wake it).
    private func runOnVirtualClock(_ executable: String, _ arguments: [String]) async throws -> VirtualRun {
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let library = Self.library
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    let path = scratch + "/clock"
                    guard let clock = hal_clock_create(path, Self.start, Self.realtimeOffset) else {
                        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                    }
                    defer { hal_clock_destroy(clock) }
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: executable)
                    process.arguments = arguments
                    var environment = ProcessInfo.processInfo.environment
                    environment["LD_PRELOAD"] = library
                    environment["HAL_CLOCK_FILE"] = path
                    process.environment = environment
                    let pipe = Pipe()
                    process.standardOutput = pipe
                    process.standardError = pipe
                    let output = Collected()
                    let reader = DispatchGroup()
                    reader.enter()
                    DispatchQueue.global().async {
                        output.data = pipe.fileHandleForReading.readDataToEndOfFile()
                        reader.leave()
                    }
                    try process.run()
                    var root = process.processIdentifier
                    let guardTime = ContinuousClock.now + .seconds(60)
                    var failure: String?
                    while process.isRunning {
                        if ContinuousClock.now > guardTime {
                            failure = "still running after 60 s of wall time"
                            kill(root, SIGKILL)
                            break
                        }
                        var threads: Int32 = 0
                        var busy: pid_t = 0
                        guard hal_clock_quiescent(clock, &root, 1, &threads, &busy) != 0, threads > 0 else {
                            usleep(200)
                            continue
                        }
                        var deadline: Int64 = 0
                        var slot: Int32 = 0
                        guard hal_clock_next_deadline(clock, &deadline, &slot) != 0 else {
                            failure = "every thread waits with no deadline at \(hal_clock_now(clock) - Self.start) ns"
                            kill(root, SIGKILL)
                            break
                        }
                        hal_clock_set_now(clock, deadline)
                        hal_clock_release(clock, slot)
                    }
                    process.waitUntilExit()
                    reader.wait()
                    return VirtualRun(
                        status: process.terminationStatus, output: String(decoding: output.data, as: UTF8.self),
                        elapsed: hal_clock_now(clock) - Self.start, failure: failure)
                })
            }
        }
    }

    /// The bytes a reader thread collected, handed over after it is done (the dispatch group orders the accesses).
    private final class Collected: @unchecked Sendable {
        var data = Data()
    }

    /// Runs a program on the virtual clock and records an issue when the scheduler gave up or it failed.
    private func checkedRun(_ executable: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> VirtualRun {
        let run = try await runOnVirtualClock(executable, arguments)
        #expect(run.failure == nil, "\(run.failure ?? ""): \(run.output)", sourceLocation: sourceLocation)
        #expect(run.status == 0, "\(run.output)", sourceLocation: sourceLocation)
        return run
    }

    /// Compiles a C program with the system's compiler into `folder`; nil (with an issue recorded) when it cannot.
    private func compile(_ source: String, named name: String, in folder: String, flags: [String] = []) throws -> String? {
        guard let compiler = ["/usr/bin/cc", "/usr/bin/gcc"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            Issue.record("no C compiler (/usr/bin/cc): the C programs are not tested")
            return nil
        }
        try source.write(toFile: folder + "/\(name).c", atomically: true, encoding: .utf8)
        let (status, output) = try runProcess(compiler, flags + ["-O1", "-pthread", "-o", folder + "/" + name, folder + "/\(name).c"], timeout: 120)
        guard status == 0 else {
            Issue.record("\(compiler) \(flags.joined(separator: " ")) \(name).c failed: \(output)")
            return nil
        }
        return folder + "/" + name
    }

    @Test func theLibraryNeedsTheCLibraryAlone() throws {
        // A Swift runtime beneath it would be loaded into every program, and found only where the toolchain is.
        let elf = try #require(FileManager.default.contents(atPath: Self.library), "\(Self.library) is not built")
        let (status, output) = try runProcess("/usr/bin/readelf", ["-d", Self.library], timeout: 60)
        try #require(status == 0, "\(output)")
        let needed = output.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(needed.count == 1 && needed[0].contains("[libc.so.6]"), "\(needed)")
        #expect(!elf.isEmpty)
    }

    @Test func sixHundredSleepsOfASecondTakeExactlySixHundredSeconds() async throws {
        let script = """
            import time
            m, t = time.monotonic_ns(), time.time_ns()
            for _ in range(600):
                time.sleep(1)
            print(m, t, time.monotonic_ns() - m, time.time_ns() - t)
            """
        let run = try await checkedRun("/usr/bin/python3", ["-c", script])
        #expect(run.output == "\(Self.start) \(Self.start + Self.realtimeOffset) 600000000000 600000000000\n")
        #expect(run.elapsed == 600_000_000_000)
    }

    @Test func selectAndAnEventTimeOutExactly() async throws {
        let script = """
            import select, threading, time
            m = time.monotonic_ns()
            select.select([], [], [], 2.5)
            print(time.monotonic_ns() - m)
            m = time.monotonic_ns()
            print(threading.Event().wait(1.5), time.monotonic_ns() - m)
            """
        let run = try await checkedRun("/usr/bin/python3", ["-c", script])
        #expect(run.output == "2500000000\nFalse 1500000000\n")
    }

    /// A wait on descriptors also waits on its thread's bell (a FIFO named bell-TID), which the scheduler rings after
    /// each change. A program that closes every descriptor and opens another at the bell's number keeps its own: the
    /// next wait makes a new bell, and a byte written to the program's pipe is the program's to read (a wait that took
    /// the pipe for its bell would empty it).
    @Test func aWaitKeepsItsBellApartFromTheProgramsDescriptors() async throws {
        let script = """
            import os, select, threading, time
            def bells():
                found = []
                for name in os.listdir("/proc/self/fd"):
                    try:
                        if os.readlink(f"/proc/self/fd/{name}").endswith(f"/bell-{threading.get_native_id()}"):
                            found.append(int(name))
                    except OSError:
                        pass
                return found
            m = time.monotonic_ns()
            select.select([], [], [], 0.25)
            first = bells()
            os.closerange(3, 4096)
            r, w = os.pipe()
            select.select([r], [], [], 0.5)
            os.write(w, b"x")
            ready = select.select([r], [], [], 1.0)[0] == [r]
            print(len(first), r <= first[0], len(bells()), ready, os.read(r, 1), time.monotonic_ns() - m)
            """
        let run = try await checkedRun("/usr/bin/python3", ["-c", script])
        #expect(run.output == "1 True 1 True b'x' 750000000\n", "\(run.output)")
        #expect(run.elapsed == 750_000_000)
    }

    @Test func asyncioTimersGiveTheSameOutputEveryRun() async throws {
        // Three tasks sleeping 0.3, 0.5 and 0.7 s in loops, each line with the loop's time. asyncio rounds each
        // epoll timeout up to the millisecond, so a wake-up may come up to 1 ms after its timer per step.
        let script = """
            import asyncio
            async def tick(name, period):
                loop = asyncio.get_running_loop()
                start, n = loop.time(), 0
                while True:
                    await asyncio.sleep(period)
                    n += 1
                    elapsed = loop.time() - start
                    if elapsed > 2.9:
                        break
                    print(f"{name} {period} {n} {elapsed:.3f}")
            async def main():
                await asyncio.gather(tick("a", 0.3), tick("b", 0.5), tick("c", 0.7))
            asyncio.run(main())
            """
        var outputs: Set<String> = []
        for _ in 0..<20 {
            let run = try await checkedRun("/usr/bin/python3", ["-c", script])
            outputs.insert(run.output)
        }
        #expect(outputs.count == 1, "\(outputs.count) different outputs in 20 runs: \(outputs)")
        let lines = try #require(outputs.first).split(separator: "\n").map { $0.split(separator: " ") }
        #expect(lines.map { String($0[0]) }.filter { $0 == "a" }.count == 9)
        #expect(lines.map { String($0[0]) }.filter { $0 == "b" }.count == 5)
        #expect(lines.map { String($0[0]) }.filter { $0 == "c" }.count == 4)
        for line in lines {
            let (period, n, elapsed) = (Double(line[1])!, Double(line[2])!, Double(line[3])!)
            #expect(elapsed >= n * period - 0.0005 && elapsed <= n * (period + 0.001) + 0.0005, "\(line.joined(separator: " "))")
        }
        #expect(lines.map { Double($0[3])! } == lines.map { Double($0[3])! }.sorted(), "lines out of time order")
    }

    @Test func aShellAndItsChildrenShareTheClock() async throws {
        // sh forks sleep twice, one in the background; date reads CLOCK_REALTIME.
        let run = try await checkedRun("/bin/sh", ["-c", "date +%s; sleep 2 & sleep 3; wait; date +%s; sleep 0.5"])
        let seconds = (Self.start + Self.realtimeOffset) / 1_000_000_000
        #expect(run.output == "\(seconds)\n\(seconds + 3)\n")
        #expect(run.elapsed == 3_500_000_000)
    }

    /// Two threads: one in pthread_cond_timedwait for 1 s (a monotonic condition variable), five times; one in poll
    /// on a pipe nobody writes with a 700 ms timeout, seven times. Each line is printed when its wait times out.
    private static let twoThreads = """
        #include <errno.h>
        #include <poll.h>
        #include <pthread.h>
        #include <stdio.h>
        #include <time.h>
        #include <unistd.h>
        static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER, out = PTHREAD_MUTEX_INITIALIZER;
        static pthread_cond_t condition;
        static struct timespec start;
        static void say(const char *what, int n) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            pthread_mutex_lock(&out);
            printf("%s %d %ld\\n", what, n, (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000);
            pthread_mutex_unlock(&out);
        }
        static void *waiter(void *unused) {
            for (int n = 1; n <= 5; n++) {
                struct timespec until;
                clock_gettime(CLOCK_MONOTONIC, &until);
                until.tv_sec += 1;
                pthread_mutex_lock(&lock);
                int result = 0;
                while (result == 0) result = pthread_cond_timedwait(&condition, &lock, &until);
                pthread_mutex_unlock(&lock);
                if (result == ETIMEDOUT) say("cond", n);
            }
            return unused;
        }
        static void *poller(void *unused) {
            int fds[2];
            if (pipe(fds) != 0) return NULL;
            for (int n = 1; n <= 7; n++) {
                struct pollfd p = {fds[0], POLLIN, 0};
                if (poll(&p, 1, 700) == 0) say("poll", n);
            }
            return unused;
        }
        int main(void) {
            setvbuf(stdout, NULL, _IOLBF, 0);
            pthread_condattr_t attributes;
            pthread_condattr_init(&attributes);
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
            pthread_cond_init(&condition, &attributes);
            clock_gettime(CLOCK_MONOTONIC, &start);
            pthread_t a, b;
            pthread_create(&a, NULL, waiter, NULL);
            pthread_create(&b, NULL, poller, NULL);
            pthread_join(a, NULL);
            pthread_join(b, NULL);
            return 0;
        }
        """

    @Test func aConditionAndAPollInTwoThreadsGiveTheSameOutputEveryRun() async throws {
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        guard let program = try compile(Self.twoThreads, named: "two-threads", in: scratch) else { return }
        let expected = [
            "poll 1 700", "cond 1 1000", "poll 2 1400", "cond 2 2000", "poll 3 2100", "poll 4 2800", "cond 3 3000", "poll 5 3500",
            "cond 4 4000", "poll 6 4200", "poll 7 4900", "cond 5 5000",
        ].map { $0 + "\n" }.joined()
        for attempt in 1...20 {
            let run = try await checkedRun(program, [])
            #expect(run.output == expected, "run \(attempt)")
            #expect(run.elapsed == 5_000_000_000, "run \(attempt)")
        }
    }

    /// A periodic timerfd (first expiry after 1 s, then every 250 ms) read through epoll four times, then read once
    /// with a blocking read.
    private static let timer = """
        #include <stdint.h>
        #include <stdio.h>
        #include <sys/epoll.h>
        #include <sys/timerfd.h>
        #include <time.h>
        #include <unistd.h>
        static struct timespec start;
        static long elapsed(void) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            return (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        }
        int main(void) {
            clock_gettime(CLOCK_MONOTONIC, &start);
            int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
            struct itimerspec value = {.it_interval = {0, 250000000}, .it_value = {1, 0}};
            timerfd_settime(timer, 0, &value, NULL);
            int instance = epoll_create1(0);
            struct epoll_event event = {.events = EPOLLIN};
            epoll_ctl(instance, EPOLL_CTL_ADD, timer, &event);
            uint64_t count;
            for (int i = 0; i < 4; i++) {
                struct epoll_event got;
                int ready = epoll_wait(instance, &got, 1, -1);
                if (read(timer, &count, sizeof count) != sizeof count) return 1;
                printf("epoll %d %llu %ld\\n", ready, (unsigned long long)count, elapsed());
            }
            if (read(timer, &count, sizeof count) != sizeof count) return 1;
            printf("read %llu %ld\\n", (unsigned long long)count, elapsed());
            return 0;
        }
        """

    @Test func aTimerfdTicksOnTheVirtualClock() async throws {
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        guard let program = try compile(Self.timer, named: "timer", in: scratch) else { return }
        let run = try await checkedRun(program, [])
        #expect(run.output == "epoll 1 1 1000\nepoll 1 1 1250\nepoll 1 1 1500\nepoll 1 1 1750\nread 1 2000\n")
    }

    /// Timed takes of a mutex and a semaphore on the virtual clock, each to the millisecond: a mutex held by another
    /// thread times out after 750 ms (`pthread_mutex_timedlock`, a REALTIME deadline) and is taken once the holder
    /// lets go after 1 s (`pthread_mutex_clocklock`, MONOTONIC); a semaphore nobody posts times out after 1.5 s
    /// (`sem_timedwait`) and 250 ms (`sem_clockwait`), and one posted by a thread after a 2 s sleep is taken then.
    @Test func mutexAndSemaphoreTimedWaitsEndOnTheVirtualClock() async throws {
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        guard let program = try compile(Self.takes, named: "takes", in: scratch) else { return }
        let run = try await checkedRun(program, [])
        #expect(run.output == """
            timedlock 110 750
            clocklock 0 1000
            timedwait 110 2500
            clockwait 110 2750
            posted 0 4750

            """, "\(run.output)")
    }

    private static let takes = """
        #include <errno.h>
        #include <pthread.h>
        #include <semaphore.h>
        #include <stdio.h>
        #include <time.h>
        #include <unistd.h>
        static struct timespec start;
        static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
        static sem_t never, later;
        static long ms(void) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            return (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        }
        static struct timespec in(clockid_t clock, long milliseconds) {
            struct timespec at;
            clock_gettime(clock, &at);
            at.tv_sec += milliseconds / 1000;
            at.tv_nsec += (milliseconds % 1000) * 1000000;
            if (at.tv_nsec >= 1000000000) { at.tv_sec += 1; at.tv_nsec -= 1000000000; }
            return at;
        }
        static void *holder(void *unused) {
            pthread_mutex_lock(&held);
            sleep(1);
            pthread_mutex_unlock(&held);
            return unused;
        }
        static void *poster(void *unused) {
            sleep(2);
            sem_post(&later);
            return unused;
        }
        int main(void) {
            clock_gettime(CLOCK_MONOTONIC, &start);
            sem_init(&never, 0, 0);
            sem_init(&later, 0, 0);
            pthread_t a, b;
            pthread_create(&a, NULL, holder, NULL);
            while (pthread_mutex_trylock(&held) == 0) { pthread_mutex_unlock(&held); usleep(0); }
            struct timespec until = in(CLOCK_REALTIME, 750);
            int result = pthread_mutex_timedlock(&held, &until);
            printf("timedlock %d %ld\\n", result, ms());
            until = in(CLOCK_MONOTONIC, 5000);
            int taken = pthread_mutex_clocklock(&held, CLOCK_MONOTONIC, &until);
            printf("clocklock %d %ld\\n", taken, ms());
            pthread_mutex_unlock(&held);
            pthread_join(a, NULL);
            until = in(CLOCK_REALTIME, 1500);
            result = sem_timedwait(&never, &until) == 0 ? 0 : errno;
            printf("timedwait %d %ld\\n", result, ms());
            until = in(CLOCK_MONOTONIC, 250);
            result = sem_clockwait(&never, CLOCK_MONOTONIC, &until) == 0 ? 0 : errno;
            printf("clockwait %d %ld\\n", result, ms());
            pthread_create(&b, NULL, poster, NULL);
            until = in(CLOCK_MONOTONIC, 5000);
            result = sem_clockwait(&later, CLOCK_MONOTONIC, &until) == 0 ? 0 : errno;
            printf("posted %d %ld\\n", result, ms());
            pthread_join(b, NULL);
            return 0;
        }
        """

    /// Two threads each start 150 short-lived processes, one after another, and wait for each: a process that ends
    /// leaves its slot to be freed by the scheduler, while new ones claim slots at the same moments. No thread is
    /// ever lost (a claimed slot freed under a live thread stalled the clock about one run in three of the campus
    /// guide), and the time is the children's sleeps exactly.
    private static let forks = """
        #include <pthread.h>
        #include <stdio.h>
        #include <sys/wait.h>
        #include <time.h>
        #include <unistd.h>
        static void *forker(void *unused) {
            for (int i = 0; i < 150; i++) {
                pid_t child = fork();
                if (child == 0) {
                    usleep(1000 + i);
                    _exit(0);
                }
                int status;
                waitpid(child, &status, 0);
            }
            return unused;
        }
        int main(void) {
            struct timespec start, end;
            clock_gettime(CLOCK_MONOTONIC, &start);
            pthread_t a, b;
            pthread_create(&a, NULL, forker, NULL);
            pthread_create(&b, NULL, forker, NULL);
            pthread_join(a, NULL);
            pthread_join(b, NULL);
            clock_gettime(CLOCK_MONOTONIC, &end);
            printf("%ld\\n", (end.tv_sec - start.tv_sec) * 1000000 + (end.tv_nsec - start.tv_nsec) / 1000);
            return 0;
        }
        """

    @Test func slotsOfEndedProcessesAreTakenAgainWithoutLosingAThread() async throws {
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        guard let program = try compile(Self.forks, named: "forks", in: scratch) else { return }
        for attempt in 1...3 {
            let run = try await checkedRun(program, [])
            // 150 sleeps of 1000 + i microseconds each, the two threads side by side.
            #expect(run.output == "\(150 * 1000 + (0..<150).reduce(0, +))\n", "run \(attempt)")
        }
    }
}
