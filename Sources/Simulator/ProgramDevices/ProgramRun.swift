import Dispatch
import FoundationEssentials
public import HAL
import LibC
public import SystemSupport
public import TraceFormat

/// Runs an unmodified program, in any language, on simulated devices fed from a trace: what `hal exec` does.
///
/// The run makes a scratch folder and has each device (``ServedDevice``) write its files. `hal-testbed`, a small C
/// program built beside `hal`, builds umockdev's testbed from them (Debian's umockdev) and answers the nodes' ioctls
/// and reads from its threads. The program then starts with umockdev's preload library, which gives it the
/// testbed's emulated sysfs devices and `/dev` nodes, in a clean environment plus what the devices need. From the start, each device is fed at the trace's times divided by
/// the rate. The run ends when the program exits, when the inputs end (unless an end is given), when the end
/// passes, or when it is stopped (``ProgramStop``): the program's process group then gets `SIGTERM` and, after
/// the grace period, `SIGKILL`. Nothing outlives the run: the folder is removed and every process is ended.
public struct ProgramRun: Sendable {
    /// How to run the program.
    public struct Options: Sendable {
        /// The program and its arguments. A name without `/` is looked up on `PATH`.
        public var program: [String]
        /// How many trace seconds pass in a second: 1 is real time.
        public var rate: Double
        /// Trace seconds after the first input at which the program is stopped; `nil` stops it when the inputs end.
        public var end: Seconds?
        /// Seconds between `SIGTERM` and `SIGKILL` when the program is stopped.
        public var grace: Double
        /// Variables added to the program's environment (after the devices' own).
        public var environment: [String: String]
        /// The program's working directory; the caller's when `nil`.
        public var directory: String?
        /// Device types asked for channels, by channel id; other channels get their kind's defaults.
        public var devices: [String: [String]]
        /// Whether the program's default ALSA device captures what it plays (``SpeakerCapture``).
        public var speaker: Bool
        /// How output lines become events; none become events when `nil`.
        public var patterns: OutputPatterns?
        /// The live devices' readings, for the channels they carry (`hal exec --live`); their records in the inputs are
        /// not used. A live run's times are the machine's monotonic clock, which live readings carry.
        public var live: LiveReadings?
        /// The program's clock: the trace's (``TraceClock``), or the machine's, fed at `rate`. `nil` chooses: the
        /// trace's when every input is recorded or scripted, the machine's with live devices or a camera (which
        /// hal-testbed serves on the machine's clock).
        public var clock: ProgramClock?

        /// Options for `program`, on the clock the inputs allow, stopped when they end, with a 2 s grace period.
        public init(
            program: [String], rate: Double = 1, end: Seconds? = nil, grace: Double = 2, environment: [String: String] = [:],
            directory: String? = nil, devices: [String: [String]] = [:], speaker: Bool = true, patterns: OutputPatterns? = nil,
            live: LiveReadings? = nil, clock: ProgramClock? = nil
        ) {
            self.live = live
            self.clock = clock
            self.program = program
            self.rate = rate
            self.end = end
            self.grace = grace
            self.environment = environment
            self.directory = directory
            self.devices = devices
            self.speaker = speaker
            self.patterns = patterns
        }
    }

    /// Why the program stopped running.
    public enum Ending: String, Sendable, Hashable {
        /// It exited (or crashed) on its own.
        case exited
        /// Its inputs ended, and it was stopped.
        case inputsEnded = "inputs ended"
        /// The end passed, and it was stopped.
        case endPassed = "end passed"
        /// The run was interrupted (Ctrl-C), and it was stopped.
        case interrupted
        /// On the trace's clock, the program computed for the guard's wall seconds without waiting, so its time
        /// could not move, and it was stopped.
        case spinning = "spinning without waiting"
    }

    /// One line the program wrote.
    public struct OutputLine: Sendable, Hashable {
        /// When it arrived, in the trace's time.
        public var time: Timestamp
        /// When it arrived, in trace seconds after the run's start.
        public var seconds: Double
        /// Which stream.
        public var stream: OutputStreamName
        /// The line, without its newline.
        public var text: String
    }

    /// What the run did.
    public struct Result: Sendable {
        /// How the program ended.
        public var termination: ChildProcess.Termination
        /// Why.
        public var ending: Ending
        /// Whether it had to be killed after the grace period.
        public var killed: Bool
        /// The trace's first input's time: the run's zero.
        public var start: Timestamp
        /// When the run ended, in the trace's time.
        public var ended: Timestamp
        /// Trace seconds the program ran.
        public var seconds: Double { start.duration(to: ended).seconds }
        /// The clock it ran on.
        public var clock: ProgramClock
        /// Its output lines, in arrival order.
        public var output: [OutputLine]
        /// The events: from output lines and from the devices, in time order.
        public var events: [AppEvent]
        /// A line per device: what it was.
        public var devices: [String]
        /// A line per device: what it delivered.
        public var delivered: [String]
        /// Channels no device carried, as `id (kind)`.
        public var unserved: [String]

        /// The ending in words: `exited with status 0`, `crashed: signal 11 (SIGSEGV)`, `inputs ended at 612.0 s;
        /// stopped with SIGTERM: exit status 0`.
        public var summary: String {
            switch ending {
            case .exited:
                if case .signaled = termination { return "the program crashed: \(termination)" }
                return "the program ended: \(termination)"
            case .inputsEnded, .endPassed, .interrupted, .spinning:
                let when = printfFormat("%.1f s", seconds)
                return "\(ending.rawValue) at \(when); the program was stopped with \(killed ? "SIGKILL after the grace period" : "SIGTERM"): \(termination)"
            }
        }
    }

    /// The merged inputs.
    public let inputs: Trace
    /// How to run.
    public let options: Options
    /// The device types.
    public let types: ServedDeviceTypes

    /// A run of `options.program` on devices made by `types` (``ServedDeviceTypes/standard(frameFolder:)`` when
    /// `nil`) for `inputs`' channels.
    public init(inputs: Trace, options: Options, types: ServedDeviceTypes? = nil) {
        self.inputs = inputs
        self.options = options
        self.types = types ?? .standard(frameFolder: inputs.path.map { TracePath.folder(ofTraceAt: $0) })
    }

    /// Runs the program. `onOutput` gets each line as it arrives, `onReport` the run's progress lines (devices
    /// made, the program started, its ending). Cancelling the task stops the program as `stop` does. Errors are
    /// ``ProgramError``s that say what to install or fix.
    public func run(
        stop: ProgramStop = ProgramStop(), onOutput: @escaping @Sendable (OutputLine) -> Void = { _ in }, onReport: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> Result {
        try await withTaskCancellationHandler {
            try await execute(stop: stop, onOutput: onOutput, onReport: onReport)
        } onCancel: {
            stop.stop()
        }
    }

    private func execute(
        stop: ProgramStop, onOutput: @escaping @Sendable (OutputLine) -> Void, onReport: @escaping @Sendable (String) -> Void
    ) async throws -> Result {
        guard !options.program.isEmpty else { throw ProgramError("give a program to run") }
        guard options.rate > 0, options.rate.isFinite else { throw ProgramError("the rate must be a positive number, not \(options.rate)") }
        let environment = ProcessInfo.processInfo.environment
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let testbed = try TestbedHost.executable(environment: environment)
        let preload = try TestbedHost.preloadLibrary(environment: environment)
        guard let program = ChildProcess.resolve(options.program[0], path: path) else {
            throw ProgramError("program '\(options.program[0])' not found\(options.program[0].contains("/") ? " (or not executable)" : " on PATH")")
        }
        let recordedOrigin = inputs.records.first?.timestamp ?? .zero
        let (devices, unserved) = try types.devices(for: inputs, requested: options.devices)
        let hasCamera = devices.contains { $0 is V4L2ServedDevice }
        let onTraceClock = (options.clock ?? (options.live == nil && !hasCamera ? .trace : .wall)) == .trace
        try PreloadReach.check(program, clock: onTraceClock)
        if onTraceClock {
            if options.live != nil { throw ProgramError("live devices run on the machine's clock: use --clock wall with --live") }
            if let camera = devices.first(where: { $0 is V4L2ServedDevice }) {
                throw ProgramError("\(camera.summary): a camera is served on the machine's clock only for now; run with --clock wall")
            }
        }
        let speaker = options.speaker ? SpeakerCapture() : nil
        let allDevices: [any ServedDevice] = devices + (speaker.map { [$0] } ?? [])

        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        var plan = TestbedPlan(folder: scratch.devices, origin: recordedOrigin, rate: options.rate)
        plan.liveChannels = options.live?.channels ?? []
        // libhal-clock.so goes before umockdev's preload on either clock: it owns the program's time on the trace's, and
        // answers opens of device nodes that exist nowhere on both (nodes.c).
        let halPreload = try TestbedHost.clockLibrary(environment: environment)
        let traceClock = onTraceClock ? try TraceClock(folder: scratch.path, origin: recordedOrigin, library: halPreload) : nil
        if let traceClock {
            plan.clockEnvironment = traceClock.environment(preloads: nil)
            // Every channel is written by the run at its time on the trace's clock, as a live one is, rather than by
            // umockdev's scripts on the machine's clock.
            plan.liveChannels = Set(inputs.header.channels.indices)
        }
        var prepared: [any ServedDevice] = []
        defer { for device in prepared { device.finish() } }
        for device in allDevices {
            prepared.append(device)
            try device.prepare(&plan)
        }
        for device in allDevices { onReport("device: " + device.summary) }
        if !unserved.isEmpty { onReport("not served: " + unserved.joined(separator: ", ")) }

        // hal-testbed hosts the testbed: it builds it, answers the nodes' ioctls and scripts from its threads, and
        // says where it is. The program then starts as this process's own child with the preload and the testbed's
        // folder, so its exit status is its own, and it may end before the scripts do.
        let ready = scratch.path + "/testbed"
        // The run's clock starts as the host starts: the scripts' clocks start while it loads them, a little later,
        // so what umockdev serves is never early.
        let clock = ContinuousClock()
        let start = clock.now
        // A recorded run's zero is its first record's time; a live run's is now, on the clock live readings carry.
        let origin = options.live != nil ? MonotonicClock.now : recordedOrigin
        let host = try ChildProcess(
            executable: testbed, arguments: [ready] + plan.umockdevArguments, environment: ["PATH": "/usr/bin:/bin", "TMPDIR": scratch.temporary])
        defer { TestbedHost.stop(host) }
        DetachedThread.start(name: "testbed output") { ChildProcess.readLines(host.standardOutput) { _ in } }
        let hostErrors = Locked<[String]>([])
        DetachedThread.start(name: "testbed errors") { ChildProcess.readLines(host.standardError) { line in hostErrors.withLock { $0.append(line) } } }
        let root = try await scratch.testbedRoot(at: ready, while: { host.poll() == nil }) {
            hostErrors.withLock { $0.suffix(5).joined(separator: "; ") }
        }
        /// Makes the folders above `path` (absolute, inside the testbed) that are not there yet.
        func makeFolders(above path: String) {
            var folder = root
            for part in path.split(separator: "/").dropLast() {
                folder += "/" + part
                _ = mkdir(folder, 0o755)
            }
        }
        for (node, target) in plan.links.sorted(by: { $0.key < $1.key }) {
            makeFolders(above: node)
            guard symlink(target, root + node) == 0 else { throw ProgramError("cannot link \(node) in the testbed: \(describeErrno(errno))") }
        }
        for (path, text) in plan.files.sorted(by: { $0.key < $1.key }) {
            makeFolders(above: path)
            guard FileManager.default.createFile(atPath: root + path, contents: Data(text.utf8)) else {
                throw ProgramError("cannot write \(path) in the testbed")
            }
        }
        var childEnvironment = [
            "PATH": path, "HOME": environment["HOME"] ?? "/", "LANG": "C.UTF-8", "TMPDIR": scratch.temporary, "PYTHONUNBUFFERED": "1",
            "LD_PRELOAD": halPreload + ":" + preload, "UMOCKDEV_DIR": root,
        ]
        if let traceClock { for (key, value) in traceClock.environment(preloads: preload) { childEnvironment[key] = value } }
        for (key, value) in plan.environment { childEnvironment[key] = value }
        for (key, value) in options.environment { childEnvironment[key] = value }
        // env -C starts the program in its directory and replaces itself with it: the child is the program.
        let child = try ChildProcess(
            executable: "/usr/bin/env", arguments: ["-C", options.directory ?? FileManager.default.currentDirectoryPath, program] + options.program.dropFirst(),
            environment: childEnvironment)
        let context = FeedContext(start: start, origin: origin, rate: options.rate, live: options.live, clock: traceClock, testbedRoot: root)
        onReport("started \(options.program.joined(separator: " ")) (pid \(child.pid)) " + (onTraceClock ? "on the trace's clock" : "at rate \(options.rate)"))

        let output = Locked<[OutputLine]>([])
        let events = Locked<[AppEvent]>([])
        let readersDone = ReadersDone()
        for (descriptor, stream) in [(child.standardOutput, OutputStreamName.stdout), (child.standardError, .stderr)] {
            let patterns = options.patterns
            let take = { @Sendable (text: String) in
                let time = context.traceTime(of: ContinuousClock().now)
                let line = OutputLine(time: time, seconds: origin.duration(to: time).seconds, stream: stream, text: text)
                output.withLock { $0.append(line) }
                if let event = patterns?.event(for: text, stream: stream, at: line.time) { events.withLock { $0.append(event) } }
                onOutput(line)
            }
            if let traceClock {
                // On the trace's clock, a line is stamped with the time it was written at: time does not move while
                // the pipe holds bytes or a line is being taken.
                let reader = OutputPipeReader(descriptor: descriptor)
                traceClock.addIdleCheck(reader.isIdle)
                DetachedThread.start(name: "program \(stream.rawValue)") {
                    reader.read(take)
                    readersDone.finish()
                }
            } else {
                DetachedThread.start(name: "program \(stream.rawValue)") {
                    ChildProcess.readLines(descriptor, take)
                    readersDone.finish()
                }
            }
        }

        let (endings, continuation) = AsyncStream<Ending>.makeStream()
        // One thread reaps the program; the rest of the run reads what it found, and never calls waitpid(2) again.
        let exited = Locked<ChildProcess.Termination?>(nil)
        DetachedThread.start(name: "program wait") {
            let termination = child.wait()
            exited.withLock { $0 = termination }
            continuation.yield(.exited)
        }
        let interrupted = Locked(false)
        stop.onStop {
            interrupted.withLock { $0 = true }
            continuation.yield(.interrupted)
        }
        traceClock?.expectFeeds(allDevices.count)
        let feeding = Task {
            await withTaskGroup(of: Void.self) { group in
                for device in allDevices {
                    let start = traceClock.map { TraceClock.FeedStart(clock: $0) }
                    group.addTask {
                        defer { start?.fire() }
                        do { try await TraceClock.FeedStart.$current.withValue(start) { try await device.feed(context) } } catch is CancellationError {} catch {
                            onReport("device: \(device.summary): \(error)")
                        }
                    }
                }
            }
            if traceClock == nil, options.end == nil, !Task.isCancelled { continuation.yield(.inputsEnded) }
        }
        let endTime = options.end.map { origin + .nanoseconds($0.nanoseconds) }
        // On the trace's clock, the wall seconds a program may go without letting time move: the end's (60 without
        // one), and at least 10, so that a machine too busy to run it for a moment is not taken for a spin.
        let guardSeconds = max(options.end?.double ?? 60, 10)
        let timer = Task {
            guard traceClock == nil, let endTime else { return }
            try await context.wait(until: endTime)
            continuation.yield(.endPassed)
        }
        // On the trace's clock, the scheduler moves time and says how the run ends.
        let driven = Locked<TraceClock.Outcome?>(nil)
        // hal-testbed answers the program's ioctls from its own threads: time must not move while it does.
        let roots = plan.clockedProcesses + [host.pid, child.pid]
        // The program's end, seen at once: reaped, or a zombie the reaper has not reaped yet, so that time never moves
        // past the moment it exited, and a program that died of the end's SIGTERM is not reported as killed after the
        // grace period because its reaper was late.
        let pid = child.pid
        let hasEnded = { @Sendable in exited.withLock { $0 != nil } || TraceClock.hasEnded(pid) }
        if let traceClock {
            let exitedNow = { @Sendable in hasEnded() || interrupted.withLock { $0 } }
            DetachedThread.start(name: "trace clock") {
                let outcome = traceClock.drive(
                    roots: { roots }, until: endTime, inputsEnd: inputs.end, guardSeconds: guardSeconds, stopped: exitedNow)
                driven.withLock { $0 = outcome }
                switch outcome {
                case .inputsEnded: continuation.yield(.inputsEnded)
                case .endPassed: continuation.yield(.endPassed)
                case .spinning: continuation.yield(.spinning)
                case .stopped: break
                }
            }
        }
        var first: Ending?
        for await ending in endings {
            first = ending
            break
        }
        // The wait ends without an ending when the task is cancelled: that is an interruption too.
        let ending = first ?? .interrupted
        // A stop for the end or for the inputs' end is reported at that time in the trace, not at the moment the run
        // got to it, which depends on the machine.
        let ended: Timestamp
        switch (ending, traceClock == nil ? nil : driven.withLock { $0 }) {
        case (.inputsEnded, .inputsEnded(let time)?), (.endPassed, .endPassed(let time)?), (.spinning, .spinning(let time)?): ended = time
        case (.endPassed, _): ended = endTime!
        case (.inputsEnded, _) where options.live == nil: ended = inputs.end ?? origin
        default: ended = context.traceTime(of: clock.now)
        }
        if ending == .spinning {
            onReport("the program ran \(printfFormat("%.0f", guardSeconds)) s of wall time without waiting, so the trace's time could not move past \(printfFormat("%.3f", origin.duration(to: ended).seconds)) s (it last waited for \(traceClock?.describeBusy() ?? "?")); a program that computes without waiting runs with --clock wall")
        }
        feeding.cancel()
        timer.cancel()
        var killed = false
        func hasExited() -> Bool { exited.withLock { $0 != nil } }
        if ending != .exited {
            child.signalGroup(SIGTERM)
            // On the trace's clock, the program's own waits while it shuts down go on in the trace's time, and so does
            // the grace period: it is over when the program waits for nothing due within it. The wall-clock deadline
            // stays as a guard for a program that spins while it shuts down.
            let graceOver = Locked(false)
            if let traceClock {
                let until = ended + .nanoseconds(Int64((options.grace * 1e9).rounded()))
                DetachedThread.start(name: "trace clock, stopping") {
                    if !traceClock.drain(roots: { roots }, until: until, stopped: hasEnded) { graceOver.withLock { $0 = true } }
                }
            }
            let deadline = clock.now + .nanoseconds(Int64(options.grace * 1e9) + (traceClock == nil ? 0 : Int64(guardSeconds * 1e9)))
            while !hasEnded(), !graceOver.withLock({ $0 }), clock.now < deadline { try? await clock.sleep(for: .milliseconds(10)) }
            if !hasEnded() {
                killed = true
                child.signalGroup(SIGKILL)
            }
        }
        while !hasExited() { try? await clock.sleep(for: .milliseconds(2)) }
        let termination = exited.withLock { $0 }!
        // What the program started may still hold its pipes: end the whole group before waiting for the readers.
        child.signalGroup(SIGKILL)
        await readersDone.wait(count: 2)
        // The feeds stop (they were cancelled) before the testbed goes: a live feed still writing into a node whose
        // host has ended would get EPIPE.
        await feeding.value
        for device in prepared { device.finish() }
        prepared = []
        var lines = output.withLock { $0 }
        var all = events.withLock { $0 }
        if traceClock != nil {
            // Lines of the two streams read at one trace time: stdout's first, each stream's in its order, and the
            // events made from them in that order.
            lines = lines.enumerated().sorted { ($0.element.time, $0.element.stream == .stdout ? 0 : 1, $0.offset) < ($1.element.time, $1.element.stream == .stdout ? 0 : 1, $1.offset) }.map(\.element)
            all = lines.compactMap { options.patterns?.event(for: $0.text, stream: $0.stream, at: $0.time) }
        }
        for device in allDevices { all += device.events() }
        // Stable: events at one time keep the order they were made in (stdout's lines before stderr's on the trace's
        // clock, where the two are read at one time).
        all = all.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }.map(\.element)
        let result = Result(
            termination: termination, ending: ending, killed: killed, start: origin, ended: ended, clock: onTraceClock ? .trace : .wall,
            output: lines, events: all, devices: allDevices.map(\.summary), delivered: allDevices.map(\.delivered), unserved: unserved)
        onReport(result.summary)
        for line in result.delivered { onReport("delivered: " + line) }
        return result
    }
}

extension ServedDeviceTypes {
    /// The package's device types: `evdev`, `iio`, `nmea`, `gpsd` and `v4l2`; a camera's frames in files are relative
    /// to `frameFolder`.
    public static func standard(frameFolder: String? = nil) -> ServedDeviceTypes {
        ServedDeviceTypes([
            EvdevServedDevice.type, IIOServedDevice.type, GPSServedDevice.type(.nmea), GPSServedDevice.type(.gpsd),
            V4L2ServedDevice.type(frameFolder: frameFolder),
        ])
    }
}

/// Stops a ``ProgramRun`` from outside it: a Ctrl-C handler, a test.
public final class ProgramStop: Sendable {
    private let state = Locked<(stopped: Bool, handlers: [@Sendable () -> Void])>((false, []))

    /// A stop not yet asked for.
    public init() {}

    /// Asks the run to stop its program now.
    public func stop() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            state.stopped = true
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler() }
    }

    func onStop(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if !state.stopped { state.handlers.append(handler) }
            return state.stopped
        }
        if now { handler() }
    }
}

/// Reads a program's output pipe into lines on the trace's clock, and says when it is idle: the pipe is empty and no
/// line is being taken, so the time a line is stamped with is the time it was written at.
final class OutputPipeReader: Sendable {
    private let descriptor: Int32
    private let busy = Locked(true)
    /// Set once the pipe has ended and its descriptor is closed: a program that closes or redirects its output
    /// (`exec cmd > /dev/null`) has nothing more to be taken.
    private let ended = Locked(false)

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Whether every byte written so far has been taken.
    @Sendable func isIdle() -> Bool {
        // Under the lock, so that the descriptor is not closed (and its number reused) while it is asked.
        ended.withLock { ended in
            if ended { return true }
            guard !busy.withLock({ $0 }) else { return false }
            var pending: Int32 = 0
            return ioctl(descriptor, UInt(FIONREAD), &pending) == 0 && pending == 0 && !busy.withLock { $0 }
        }
    }

    /// Reads lines until the end of the pipe, handing each to `body`, then closes it.
    func read(_ body: (String) -> Void) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            busy.withLock { $0 = false }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, -1) < 0, errno == EINTR { continue }
            busy.withLock { $0 = true }
            let count = chunk.withUnsafeMutableBytes { LibC.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            pending += chunk[0..<count]
            while let newline = pending.firstIndex(of: 10) {
                var line = Array(pending[..<newline])
                pending.removeFirst(newline + 1)
                if line.last == 13 { line.removeLast() }
                body(String(decoding: line, as: UTF8.self))
            }
        }
        if !pending.isEmpty { body(String(decoding: pending, as: UTF8.self)) }
        ended.withLock { ended in
            close(descriptor)
            ended = true
        }
        busy.withLock { $0 = false }
    }
}

/// Counts reader threads that finished, for an async wait.
private final class ReadersDone: Sendable {
    private let count = Locked(0)

    func finish() { count.withLock { $0 += 1 } }

    func wait(count wanted: Int) async {
        while count.withLock({ $0 }) < wanted { try? await Task.sleep(for: .milliseconds(5)) }
    }
}

/// The run's scratch folder: the devices' files, and the `TMPDIR` under which umockdev makes its testbed.
///
/// umockdev's preload reaches a node's ioctl handler through a Unix socket under the testbed
/// (`…/umockdev.XXXXXX/ioctl/dev/input/event0`), and a socket's path holds at most 107 bytes: the folder is made in
/// `$TMPDIR` when that leaves room, and in `/tmp` otherwise.
final class ScratchFolder: Sendable {
    let path: String
    var devices: String { path + "/d" }
    var temporary: String { path + "/t" }

    init() throws {
        var base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        // "/hal-exec.XXXXXX" + "/t" + "/umockdev.XXXXXX" + "/ioctl/dev/iio:device10" and room to spare.
        if base.utf8.count + 16 + 2 + 16 + 24 > 107 { base = "/tmp" }
        var template = Array((base + "/hal-exec.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw ProgramError("cannot make a scratch folder in \(base): \(describeErrno(errno))")
        }
        path = String(cString: made)
        for folder in [path + "/d", path + "/t"] where mkdir(folder, 0o700) != 0 {
            throw ProgramError("cannot make \(folder): \(describeErrno(errno))")
        }
    }

    /// The testbed's root, once `hal-testbed` has made it and written it into `file`, waiting while `running` holds;
    /// `errors` says what it said when it did not.
    func testbedRoot(at file: String, while running: @Sendable () -> Bool, errors: @Sendable () -> String) async throws -> String {
        while true {
            if let bytes = FileManager.default.contents(atPath: file), !bytes.isEmpty { return String(decoding: bytes, as: UTF8.self) }
            guard running() else { throw ProgramError("hal-testbed could not make umockdev's testbed: \(errors())") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Where the testbed host and umockdev's preload library are, and stopping the host.
enum TestbedHost {
    /// `hal-testbed`: `$HAL_TESTBED` (when set and not empty), else beside this program (built there first when this program runs from a
    /// SwiftPM build folder without it, as after `swift run hal`), else on `PATH`.
    static func executable(environment: [String: String]) throws -> String {
        if let path = environment["HAL_TESTBED"], !path.isEmpty {
            guard access(path, X_OK) == 0 else { throw ProgramError("HAL_TESTBED=\(path) is not an executable file") }
            return path
        }
        let folder = runningProgramFolder() ?? "."
        if access(folder + "/hal-testbed", X_OK) == 0 { return folder + "/hal-testbed" }
        if let found = ChildProcess.resolve("hal-testbed", path: environment["PATH"] ?? "") { return found }
        try HelperBuild.build(product: "hal-testbed", into: folder, environment: environment)
        if access(folder + "/hal-testbed", X_OK) == 0 { return folder + "/hal-testbed" }
        throw ProgramError("hal-testbed is not beside \(folder) nor on PATH; build it with `swift build --product hal-testbed`")
    }

    /// `libhal-clock.so`, which puts a program on the trace's clock and answers opens of device nodes that exist
    /// nowhere: `$HAL_CLOCK_PRELOAD` (when set and not empty), else beside this program
    /// (built there first when this program runs from a SwiftPM build folder without it).
    static func clockLibrary(environment: [String: String]) throws -> String {
        if let path = environment["HAL_CLOCK_PRELOAD"], !path.isEmpty {
            guard access(path, R_OK) == 0 else { throw ProgramError("HAL_CLOCK_PRELOAD=\(path) is not a readable file") }
            return path
        }
        let folder = runningProgramFolder() ?? "."
        if access(folder + "/libhal-clock.so", R_OK) != 0 {
            try HelperBuild.build(product: "hal-clock", into: folder, environment: environment)
        }
        guard access(folder + "/libhal-clock.so", R_OK) == 0 else {
            throw ProgramError("libhal-clock.so is not beside \(folder); build it with `swift build --product hal-clock`")
        }
        return folder + "/libhal-clock.so"
    }

    /// umockdev's preload library: `$HAL_UMOCKDEV_PRELOAD`, else `libumockdev-preload.so.0` from the loader's
    /// folders, which the loader finds by name.
    static func preloadLibrary(environment: [String: String]) throws -> String {
        let name = "libumockdev-preload.so.0"
        if let path = environment["HAL_UMOCKDEV_PRELOAD"] {
            guard access(path, R_OK) == 0 else {
                throw ProgramError("HAL_UMOCKDEV_PRELOAD=\(path): umockdev's preload library is not there; install Debian's umockdev")
            }
            return path
        }
        let folders = (environment["LD_LIBRARY_PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"]
        guard folders.contains(where: { access($0 + "/" + name, R_OK) == 0 }) else {
            throw ProgramError("umockdev's preload library (\(name)) is not installed; install Debian's umockdev (scripts/install-deps)")
        }
        return name
    }

    /// Stops the host with SIGTERM, so that it removes its testbed, and kills it if it has not ended a second later.
    static func stop(_ host: ChildProcess) {
        host.terminate(grace: 1)
    }
}

/// Builds a helper product `hal exec` needs (`hal-testbed`, `hal-clock`) beside `hal` when `hal` runs from a SwiftPM
/// build folder (`ROOT/.build[/TRIPLE]/CONFIGURATION`, with `ROOT/Package.swift`) and the helper is missing there:
/// `swift run hal` builds `hal` alone. Anywhere else (an installed `hal`) it does nothing.
enum HelperBuild {
    /// Runs `swift build -c CONFIGURATION --product PRODUCT` in the package, saying so on standard error first; throws
    /// with swift's output when it fails.
    static func build(product: String, into folder: String, environment: [String: String]) throws {
        let configuration = String(folder.split(separator: "/").last ?? "")
        guard configuration == "debug" || configuration == "release" else { return }
        var buildPath = folder
        for _ in 0..<2 {
            buildPath = String(buildPath[..<(buildPath.lastIndex(of: "/") ?? buildPath.startIndex)])
            let root = String(buildPath[..<(buildPath.lastIndex(of: "/") ?? buildPath.startIndex)])
            guard access(root + "/Package.swift", R_OK) == 0 else { continue }
            guard let swift = ChildProcess.resolve("swift", path: environment["PATH"] ?? "") else { return }
            let notice = Array("hal exec: building \(product) beside hal (swift build -c \(configuration) --product \(product)), once\n".utf8)
            _ = notice.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            let child = try ChildProcess(
                executable: swift, arguments: ["build", "-c", configuration, "--product", product, "--package-path", root, "--build-path", buildPath],
                environment: environment)
            let errors = Locked<[String]>([])
            let read = DispatchSemaphore(value: 0)
            DetachedThread.start(name: "swift build errors") {
                ChildProcess.readLines(child.standardError) { line in errors.withLock { $0.append(line) } }
                read.signal()
            }
            var lines: [String] = []
            ChildProcess.readLines(child.standardOutput) { lines.append($0) }
            read.wait()
            let ending = child.wait()
            guard ending == .exited(0) else {
                let output = (lines + errors.withLock { $0 }).suffix(40).joined(separator: "\n")
                throw ProgramError("building \(product) beside hal failed (swift build -c \(configuration) --product \(product): \(ending)):\n\(output)")
            }
            return
        }
    }
}
