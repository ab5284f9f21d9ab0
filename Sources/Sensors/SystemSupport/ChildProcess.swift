import CSystemCalls
import LibC
public import HAL

/// A program started with `posix_spawn(3)` in a process group of its own, its standard output and error on pipes
/// this process reads, so that it and everything it started can be stopped together.
///
/// `ChildProcess` is the thin layer other modules build on: it owns the process id and the pipes' read ends, and
/// nothing else. Waiting is ``wait()`` (blocking, `waitpid(2)`); reading is ``readLines(_:_:)`` on a thread.
public final class ChildProcess: Sendable {
    /// How a child ended.
    public enum Termination: Sendable, Hashable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)

        /// `exit status N` or `signal N (NAME)`.
        public var description: String {
            switch self {
            case .exited(let status): return "exit status \(status)"
            case .signaled(let signal): return "signal \(signal) (\(ChildProcess.signalName(signal)))"
            }
        }
    }

    /// The child's process id, which is also its process group's.
    public let pid: Int32
    /// The read end of the child's standard output.
    public let standardOutput: Int32
    /// The read end of the child's standard error.
    public let standardError: Int32
    /// How it ended, once reaped.
    private let ended = Locked<Termination?>(nil)

    /// Starts `executable` (a path; it is not looked up on `PATH`) with `arguments` (without `argv[0]`, which is the
    /// executable's path) and exactly `environment`. Standard input is `/dev/null`; no other descriptor of this
    /// process is inherited.
    public init(executable: String, arguments: [String], environment: [String: String]) throws(DeviceError) {
        var outputPipe: [Int32] = [-1, -1], errorPipe: [Int32] = [-1, -1]
        guard pipe(&outputPipe) == 0 else { throw Self.failure(executable, "pipe", errno) }
        guard pipe(&errorPipe) == 0 else {
            let code = errno
            close(outputPipe[0]); close(outputPipe[1])
            throw Self.failure(executable, "pipe", code)
        }
        // Not inherited by other children this process starts (the spawned child gets its copies through dup2).
        for descriptor in outputPipe + errorPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        // Nothing else of this process's: a descriptor left without close-on-exec (a test harness's socket to a
        // child it waits for, another pipe) would otherwise live as long as the child and everything it starts.
        hal_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A group of its own (so the whole tree can be signalled), default signal handling and no blocked signals,
        // whatever this process set for itself.
        var defaults = sigset_t(), none = sigset_t()
        sigfillset(&defaults)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: Int32 = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(outputPipe[1])
        close(errorPipe[1])
        guard status == 0 else {
            close(outputPipe[0]); close(errorPipe[0])
            throw Self.failure(executable, "cannot start it", status)
        }
        self.pid = pid
        standardOutput = outputPipe[0]
        standardError = errorPipe[0]
    }

    private static func failure(_ executable: String, _ what: String, _ code: Int32) -> DeviceError {
        DeviceError(.ioFailure, uri: executable, "\(what): \(describeErrno(code))")
    }

    /// Sends `signal` to the child's whole process group.
    public func signalGroup(_ signal: Int32) {
        kill(-pid, signal)
    }

    /// Ends the child's group: `SIGTERM`, then `SIGKILL` if the child has not ended within `grace` seconds; returns
    /// how it ended.
    @discardableResult public func terminate(grace: Double) -> Termination {
        signalGroup(SIGTERM)
        let deadline = MonotonicClock.now + .nanoseconds(Int64(grace * 1e9))
        while poll() == nil, MonotonicClock.now < deadline { usleep(5_000) }
        if poll() == nil { signalGroup(SIGKILL) }
        return wait()
    }

    /// Whether any process of the child's group is still alive (the child itself may have ended).
    public var groupIsAlive: Bool { kill(-pid, 0) == 0 }

    /// Blocks until the child ends, and says how.
    public func wait() -> Termination {
        reap(options: 0)!
    }

    /// How the child ended, or `nil` while it runs.
    public func poll() -> Termination? {
        reap(options: WNOHANG)
    }

    private func reap(options: Int32) -> Termination? {
        if let known = ended.withLock({ $0 }) { return known }
        var status: Int32 = 0
        var result: Int32
        repeat { result = waitpid(pid, &status, options) } while result < 0 && errno == EINTR
        if result == 0 { return nil }
        if result < 0 { return ended.withLock { $0 } ?? .exited(-1) }
        // WIFEXITED and friends are macros: the layout is the kernel's (status & 0x7f is the signal, 0 for an exit).
        let signal = status & 0x7f
        let termination: Termination = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
        ended.withLock { $0 = termination }
        return termination
    }

    /// Reads `descriptor` to its end in lines (without their newline or a carriage return before it), handing each
    /// to `body` as it arrives, then closes it. Blocks: call it on a thread of its own.
    public static func readLines(_ descriptor: Int32, _ body: (String) -> Void) {
        var reader = LineReader(descriptor: descriptor, maximumLine: .max)
        reading: while true {
            switch reader.next(timeout: 3600) {
            case .line(var line):
                if line.last == 13 { line.removeLast() }
                body(String(decoding: line, as: UTF8.self))
            case .timeout: continue
            case .endOfInput, .failure: break reading
            }
        }
        close(descriptor)
    }

    /// A signal's name, such as `SIGSEGV`, or `signal N` for one without a common name.
    public static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT",
            SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1", SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2",
            SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM", SIGSYS: "SIGSYS",
        ]
        return names[signal] ?? "signal \(signal)"
    }

    /// The path `name` runs as: itself when it holds a `/`, else the first executable file of that name on `path`
    /// (a `PATH` value), or `nil`.
    public static func resolve(_ name: String, path: String) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            var info = stat()
            if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
