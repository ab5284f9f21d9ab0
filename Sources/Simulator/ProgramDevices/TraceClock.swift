import CVirtualClock
import Foundation
public import HAL
import LibC
import SystemSupport

/// How a program under `hal exec` keeps time.
public enum ProgramClock: String, Sendable, Hashable, Codable, CaseIterable {
    /// The trace's time: the program's clocks read it, and it moves only while every thread of the program waits, to
    /// the next deadline or record (``TraceClock``). The same trace gives the same run, as fast as the program allows.
    case trace
    /// The machine's clock: the devices are fed in real time (divided by the rate).
    case wall
}

/// The simulated world's one clock under `--clock trace`: what the program's clocks read, and the scheduler that
/// moves it.
///
/// The program runs with `libhal-clock.so` preloaded, which owns its clocks (`clock_gettime`, `gettimeofday`, `time`)
/// and its waits (sleeps, `poll`, `select`, `epoll_wait`, timed condition and semaphore waits, blocking reads and
/// writes on pipes, sockets and devices, `waitpid`, timerfds), through a region of shared memory
/// (`CVirtualClock/hal_clock.h`). Time moves only when the program is quiescent: every thread of every one of its
/// processes (and of the daemons the devices start, such as gpsd) is in an owned wait and has looked at what it
/// waits for since the last change, and every device has handed over what it delivered. The scheduler then moves time
/// to the earliest of the program's deadlines and the devices' next records, and wakes that one waiter or lets that
/// one device deliver: one wake-up at a time, so a trace gives the same run on any machine and under any load.
///
/// The program's `CLOCK_MONOTONIC` reads ``monotonicBase`` at the trace's first record, and `CLOCK_REALTIME` the
/// trace's own time there when it is a UTC time (after 2000), else ``defaultRealtimeStart``.
public final class TraceClock: @unchecked Sendable {
    /// The program's `CLOCK_MONOTONIC` at the trace's first record: 1 s, as a machine that has just started.
    public static let monotonicBase: Int64 = 1_000_000_000
    /// `CLOCK_REALTIME` at the first record of a trace whose times are not UTC: 2026-01-01T00:00:00Z.
    public static let defaultRealtimeStart: Int64 = 1_767_225_600_000_000_000

    /// The trace time of the first record.
    public let origin: Timestamp
    /// The region's file, which the program finds through `HAL_CLOCK_FILE`.
    public let file: String
    /// The preload library.
    public let library: String
    private let handle: OpaquePointer
    private let state = Locked(State())
    private let scanning = Locked(())

    private struct State {
        var participants: [Int: Participant.Status] = [:]
        var keys: [Int: Int] = [:]
        var settles: [Int: @Sendable () -> Bool] = [:]
        var idles: [@Sendable () -> Bool] = []
        var nextID = 0
        var stopped = false
        /// Device feeds started that have not yet taken their participant (or ended without one).
        var unstartedFeeds = 0
    }

    /// Makes the clock's region in `folder`, at the trace's first record `origin`; `library` is `libhal-clock.so`.
    public init(folder: String, origin: Timestamp, library: String) throws {
        self.origin = origin
        self.library = library
        file = folder + "/clock"
        let realtimeStart = origin.nanoseconds >= 946_684_800_000_000_000 ? origin.nanoseconds : Self.defaultRealtimeStart
        guard let made = hal_clock_create(file, Self.monotonicBase, realtimeStart - Self.monotonicBase) else {
            throw ProgramError("cannot make the trace clock's file \(file): \(describeErrno(errno))")
        }
        handle = made
    }

    deinit { hal_clock_destroy(handle) }

    /// What the program's environment needs: the preload (before umockdev's, `preloads`) and the region's file.
    public func environment(preloads: String?) -> [String: String] {
        ["LD_PRELOAD": [library, preloads].compactMap { $0 }.joined(separator: ":"), "HAL_CLOCK_FILE": file]
    }

    /// Whether the child process `pid` has ended: it is a zombie waiting to be reaped (seen without reaping it), or
    /// it was reaped already (or is no child of this process).
    public static func hasEnded(_ pid: Int32) -> Bool {
        var info = siginfo_t()
        // With WNOHANG and no child to report, Linux leaves the record zeroed.
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return true }
        return info.si_signo == SIGCHLD
    }

    /// The trace time now.
    public var now: Timestamp { Timestamp(nanoseconds: origin.nanoseconds + (hal_clock_now(handle) - Self.monotonicBase)) }

    // MARK: Devices

    /// A device's feed as the scheduler sees it: waiting for a record's time, delivering it, or done.
    public final class Participant: Sendable {
        enum Status {
            case active
            case waiting(Timestamp, CheckedContinuation<Void, any Error>?, (@Sendable () -> Void)?)
            case done
        }

        let id: Int
        /// Orders devices whose records fall at one time: the lowest channel index first.
        let key: Int
        private let clock: TraceClock

        fileprivate init(clock: TraceClock, id: Int, key: Int) {
            self.clock = clock
            self.id = id
            self.key = key
        }

        /// Hands back what the device delivered and suspends until the trace's time reaches `time` and it is this
        /// device's turn.
        public func wait(until time: Timestamp) async throws {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let stopped = clock.state.withLock { state -> Bool in
                        guard !state.stopped else { return true }
                        state.participants[id] = .waiting(time, continuation, nil)
                        return false
                    }
                    if stopped { continuation.resume(throwing: CancellationError()) }
                }
            } onCancel: {
                finish()
            }
        }

        /// ``wait(until:)`` for a device's own thread: blocks it.
        public func waitBlocking(until time: Timestamp) throws {
            let gate = Locked<Bool?>(nil)
            let stopped = clock.state.withLock { state -> Bool in
                guard !state.stopped else { return true }
                state.participants[id] = .waiting(time, nil, { gate.withLock { $0 = true } })
                return false
            }
            if stopped { throw CancellationError() }
            while gate.withLock({ $0 }) == nil {
                if clock.state.withLock({ $0.stopped }) { throw CancellationError() }
                usleep(100)
            }
        }

        /// The device has delivered everything: the scheduler no longer waits for it.
        public func finish() {
            let continuation = clock.state.withLock { state -> CheckedContinuation<Void, any Error>? in
                defer { state.participants[id] = .done }
                if case .waiting(_, let continuation, _) = state.participants[id] { return continuation }
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// A new participant for a device's feed; `key` orders it among devices at one time (its lowest channel index).
    /// `settled`, when given, says that the device's last delivery has reached the program (a terminal's input queue
    /// has it): after each delivery the scheduler waits for it, or for the program to react, before it lets the
    /// program look again.
    public func participant(key: Int, settled: (@Sendable () -> Bool)? = nil) -> Participant {
        let participant = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.participants[id] = .active
            state.keys[id] = key
            state.settles[id] = settled
            return Participant(clock: self, id: id, key: key)
        }
        FeedStart.current?.fire()
        return participant
    }

    /// `count` device feeds are about to start: time does not move until each has taken its participant or ended
    /// (``FeedStart``), so a feed that a busy machine starts late still delivers its first record at its time.
    public func expectFeeds(_ count: Int) {
        state.withLock { $0.unstartedFeeds += count }
    }

    /// One device feed's start, as the scheduler waits for it: run the feed with it as ``current`` (a task-local
    /// value), and ``fire()`` it when the feed ends; the feed's first participant fires it before.
    public final class FeedStart: Sendable {
        /// The start of the feed this task runs.
        @TaskLocal public static var current: FeedStart?
        private let clock: TraceClock
        private let fired = Locked(false)

        /// One of the feeds `clock` expects.
        public init(clock: TraceClock) {
            self.clock = clock
        }

        /// The feed has its participant, or has ended: once only.
        public func fire() {
            guard !fired.withLock({ fired in defer { fired = true }; return fired }) else { return }
            clock.state.withLock { $0.unstartedFeeds = max(0, $0.unstartedFeeds - 1) }
        }
    }

    /// Adds a condition on this side that must hold before time moves: the program's output has all been read,
    /// the speaker's FIFO is empty.
    public func addIdleCheck(_ check: @escaping @Sendable () -> Bool) {
        state.withLock { $0.idles.append(check) }
    }

    // MARK: The scheduler

    /// Why ``drive(roots:until:inputsEnd:guardSeconds:stopped:)`` returned.
    public enum Outcome: Sendable, Equatable {
        /// Every device delivered everything, and the program waits for nothing before the inputs' end (or has no
        /// deadline at all): at that trace time.
        case inputsEnded(Timestamp)
        /// The next thing due is after `end`: at `end`.
        case endPassed(Timestamp)
        /// The program ran for the guard's wall seconds without waiting, at this trace time.
        case spinning(Timestamp)
        /// `stopped` said so (the program exited, the run was interrupted).
        case stopped
    }

    /// Moves time while the program runs: waits until it is quiescent, then wakes the earliest waiter or device, one
    /// at a time, until the end, the inputs' end, a spin, or `stopped`. `roots` are the processes to watch (the
    /// program and the devices' daemons), with their descendants. Blocks its thread.
    public func drive(
        roots: @Sendable () -> [Int32], until end: Timestamp?, inputsEnd: Timestamp?, guardSeconds: Double, stopped: @Sendable () -> Bool
    ) -> Outcome {
        defer { stopDevices() }
        while true {
            guard waitForQuiescence(roots: roots, guardSeconds: guardSeconds, stopped: stopped) else {
                return stopped() ? .stopped : .spinning(now)
            }
            // A program that ended while it was looked at is quiescent (its threads are gone) but over: time must not
            // move past its end.
            if stopped() { return .stopped }
            // A feed not yet started, or a device between taking its participant and asking for its next record, may
            // have a record due before anything else: wait for it.
            if state.withLock({ state in state.unstartedFeeds > 0 || state.participants.values.contains { if case .active = $0 { true } else { false } } }) {
                usleep(50)
                continue
            }
            var deadline: Int64 = 0
            var slot: Int32 = 0
            let program = hal_clock_next_deadline(handle, &deadline, &slot) == 1
                ? Timestamp(nanoseconds: origin.nanoseconds + (deadline - Self.monotonicBase)) : nil
            let (device, devicesDone) = nextDevice()
            // A record due at the same time as a program's timeout comes first, as data ready before a timer.
            let next = device.map { device in program.map { min($0, device.time) } ?? device.time } ?? program
            guard let next else {
                if !devicesDone {
                    // A device is between two records: wait for it to ask for the next.
                    usleep(50)
                    continue
                }
                // The program waits for nothing that will come.
                if let end {
                    setNow(max(end, now))
                    return .endPassed(end)
                }
                return .inputsEnded(max(inputsEnd ?? now, now))
            }
            if let end, next > end {
                setNow(max(end, now))
                return .endPassed(end)
            }
            if end == nil, devicesDone, next > max(inputsEnd ?? now, now) { return .inputsEnded(max(inputsEnd ?? now, now)) }
            setNow(next)
            if let device, device.time == next {
                let begun = hal_clock_waits_begun(handle)
                resume(device.id)
                waitForDevice(device.id, stopped: stopped)
                waitForSettling(device.id, begun: begun)
                hal_clock_touch(handle)
            } else {
                hal_clock_release(handle, slot)
            }
        }
    }

    private func setNow(_ time: Timestamp) {
        hal_clock_set_now(handle, Self.monotonicBase + (time.nanoseconds - origin.nanoseconds))
    }

    /// The earliest waiting device (ties: the lowest key), and whether every device is done.
    private func nextDevice() -> (device: (id: Int, time: Timestamp, key: Int)?, done: Bool) {
        state.withLock { state in
            var best: (id: Int, time: Timestamp, key: Int)?
            var done = true
            for (id, status) in state.participants {
                switch status {
                case .done: continue
                case .active: done = false
                case .waiting(let time, _, _):
                    done = false
                    let key = state.keys[id] ?? id
                    if best == nil || (time, key) < (best!.time, best!.key) { best = (id, time, key) }
                }
            }
            return (best, done)
        }
    }

    private func resume(_ id: Int) {
        let waiting = state.withLock { state -> Participant.Status? in
            defer { state.participants[id] = .active }
            return state.participants[id]
        }
        if case .waiting(_, let continuation, let wake) = waiting {
            continuation?.resume()
            wake?()
        }
    }

    /// Waits until the device has handed over its delivery: it waits for its next record, or is done.
    private func waitForDevice(_ id: Int, stopped: () -> Bool) {
        while !stopped() {
            let active = state.withLock { state -> Bool in
                if case .active = state.participants[id] { return true }
                return false
            }
            if !active { return }
            usleep(50)
        }
    }

    /// Waits until the device's delivery has settled, or a reader took it already (a thread began a wait since
    /// `begun`: it read the delivery and waits for more), or 100 ms passed (a reader that took it and computes). A
    /// program that merely runs has not reacted: `hal-testbed` relaying the delivery into a node's terminal runs too,
    /// and a reader that looks before the terminal holds the bytes finds nothing.
    private func waitForSettling(_ id: Int, begun: UInt64) {
        guard let settled = state.withLock({ $0.settles[id] }) else { return }
        let start = MonotonicClock.now
        while !settled() {
            if hal_clock_waits_begun(handle) != begun { return }
            if start.duration(to: MonotonicClock.now) > .milliseconds(100) { return }
            usleep(20)
        }
    }

    private func isQuiescent(_ pids: [Int32]) -> Bool {
        var threads: Int32 = 0
        var busy: Int32 = 0
        // One look at a time: the scan keeps its lists in the clock's handle (the run's driver and, while the program
        // shuts down, its drain may look at once).
        guard scanning.withLock({ _ in hal_clock_quiescent(handle, pids, Int32(pids.count), &threads, &busy) }) == 1 else {
            lastBusy.withLock { $0 = busy }
            return false
        }
        let idles = state.withLock { $0.idles }
        for (index, idle) in idles.enumerated() where !idle() {
            lastBusy.withLock { $0 = -1000 - Int32(index) }
            return false
        }
        return true
    }

    /// The thread that kept the program from being quiescent at the last look (-1000 - N: this side's idle check N).
    private let lastBusy = Locked<Int32>(0)
    private let debug = ProcessInfo.processInfo.environment["HAL_CLOCK_DEBUG"] != nil

    /// What kept time from moving at the scheduler's last look, in words: `thread 1234 (python3) in state R, system
    /// call running`.
    public func describeBusy() -> String {
        let tid = lastBusy.withLock { $0 }
        if tid <= -1000 { return "this side's check \(-1000 - tid)" }
        guard tid > 0 else { return "a process starting or ending" }
        let name = (try? String(contentsOfFile: "/proc/\(tid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        let stat = (try? String(contentsOfFile: "/proc/\(tid)/stat", encoding: .utf8)) ?? ""
        let state = stat.split(separator: ")").last?.split(separator: " ").first.map(String.init) ?? "?"
        let call = (try? String(contentsOfFile: "/proc/\(tid)/syscall", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
        return "thread \(tid) (\(name)) in state \(state), system call \(call)"
    }

    /// After the run's end, while the program shuts down: wakes its waiters in deadline order, with no device, until
    /// `stopped` (it exited; returns true) or until the program waits for nothing due by `until`, the end of its grace
    /// period (returns false, with the time at `until`). Blocks its thread.
    public func drain(roots: @Sendable () -> [Int32], until: Timestamp, stopped: @Sendable () -> Bool) -> Bool {
        var patience = Self.firstPatience
        while !stopped() {
            let changes = hal_clock_changes(handle)
            guard isQuiescent(roots()) else {
                patience = awaitChange(since: changes, patience: patience)
                continue
            }
            var deadline: Int64 = 0
            var slot: Int32 = 0
            let limit = Self.monotonicBase + (until.nanoseconds - origin.nanoseconds)
            guard hal_clock_next_deadline(handle, &deadline, &slot) == 1, deadline <= limit else {
                hal_clock_set_now(handle, max(limit, hal_clock_now(handle)))
                return stopped()
            }
            hal_clock_set_now(handle, max(deadline, hal_clock_now(handle)))
            hal_clock_release(handle, slot)
        }
        return true
    }

    /// Waits until the program is quiescent and no device is delivering; false when it was not for `guardSeconds` of
    /// wall time, or `stopped` said so.
    private func waitForQuiescence(roots: () -> [Int32], guardSeconds: Double, stopped: () -> Bool) -> Bool {
        let start = MonotonicClock.now
        var spins = 0
        var patience = Self.firstPatience
        while true {
            if stopped() { return false }
            let changes = hal_clock_changes(handle)
            if isQuiescent(roots()) { return true }
            spins += 1
            if spins % 64 == 0 {
                let waited = start.duration(to: MonotonicClock.now)
                if waited > .nanoseconds(Int64(guardSeconds * 1e9)) { return false }
                if debug, waited > .seconds(1), spins % 1024 == 0 { FileHandle.standardError.write(Data("hal clock: at \(now), waiting for \(describeBusy())\n".utf8)) }
            }
            patience = awaitChange(since: changes, patience: patience)
        }
    }

    /// How long the scheduler first blocks for a change in the program before it looks again anyway (ns): a thread
    /// that blocks in a call the preload does not see (glibc's own reads) tells nothing.
    private static let firstPatience: Int64 = 20_000
    /// The longest it blocks so.
    private static let lastPatience: Int64 = 2_000_000

    /// Blocks until the program changed since `changes` (a thread began or ended a wait), or for `patience`; returns
    /// the next patience: the first again after a change, twice as long after none.
    private func awaitChange(since changes: UInt32, patience: Int64) -> Int64 {
        hal_clock_await_change(handle, changes, patience) == 1 ? Self.firstPatience : min(patience * 2, Self.lastPatience)
    }

    /// Ends every device's wait: the run is over.
    private func stopDevices() {
        let waiting = state.withLock { state -> [Participant.Status] in
            state.stopped = true
            let waiting = state.participants.values.filter { if case .waiting = $0 { true } else { false } }
            for (id, status) in state.participants { if case .waiting = status { state.participants[id] = .done } }
            return waiting
        }
        for status in waiting {
            if case .waiting(_, let continuation, _) = status { continuation?.resume(throwing: CancellationError()) }
        }
    }
}
