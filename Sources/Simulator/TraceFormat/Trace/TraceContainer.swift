import HAL
import SystemPackage

/// A trace file format besides JSON Lines, plugged in by registration, as kinds are: the JSON Lines format needs no
/// C library, and a container that does (MCAP, with its compression libraries) is registered by the program that
/// links it. `hal` registers MCAP (`TraceMCAP`'s `MCAPTraceContainer`).
public protocol TraceContainer: Sendable {
    /// The container's name, for messages: `MCAP`.
    var name: String { get }
    /// Whether the existing file at `path` is in this container (by its first bytes, say).
    func holds(path: String) -> Bool
    /// Whether a file to be written at `path` should be in this container (by its name).
    func writes(path: String) -> Bool
    /// The header of the trace in the file at `path`, read without its records.
    func header(path: String) throws(TraceError) -> TraceHeader
    /// The trace in the file at `path`, from `offset` after its first record when given, with the names the
    /// trace's frames had as files, by record index. `progress` hears the share of the file read so far (0...1).
    func load(path: String, from offset: Duration?, progress: (Double) -> Void) throws(TraceError) -> (trace: Trace, framePaths: [Int: String])
    /// A writer of a new file at `path`, reading frames stored as files from the folder of `frameFolderOf`.
    func makeWriter(
        path: String, header: TraceHeader, durability: TraceWriter.Durability, frameFolderOf: String?
    ) throws(TraceError) -> any TraceSink
}

/// The registered trace containers. A file no container claims is JSON Lines.
public enum TraceContainers {
    private static let registered = Locked<[any TraceContainer]>([])

    /// Adds `container`, replacing one of the same name.
    public static func register(_ container: any TraceContainer) {
        registered.withLock { containers in
            containers.removeAll { $0.name == container.name }
            containers.append(container)
        }
    }

    /// Every registered container, in the order registered.
    public static var all: [any TraceContainer] { registered.withLock { $0 } }

    /// The container that holds the existing file at `path`, or `nil` for JSON Lines.
    public static func container(holding path: String) -> (any TraceContainer)? {
        all.first { $0.holds(path: path) }
    }

    /// The container a new file at `path` is written in, or `nil` for JSON Lines.
    public static func container(writing path: String) -> (any TraceContainer)? {
        all.first { $0.writes(path: path) }
    }
}

extension TraceContainers {
    /// A container this package has but a program may not have registered: its magic bytes, its file suffix, and
    /// what to register.
    struct Known {
        var name: String
        var magic: [UInt8]
        var suffix: String
        var registration: String
    }

    /// The containers of the package's own modules, so that a file in one that is not registered is refused by name
    /// instead of being read or written as JSON Lines.
    static let known = [
        Known(name: "MCAP", magic: [0x89, 0x4D, 0x43, 0x41, 0x50, 0x30, 0x0D, 0x0A], suffix: ".mcap",
              registration: "TraceContainers.register(MCAPTraceContainer()) (the TraceMCAP module)"),
    ]

    /// Refuses to read the file at `path` when it is in a known container that is not registered.
    static func refuseUnregistered(reading path: String) throws(TraceError) {
        guard let first = try? FileDescriptor.open(FilePath(path), .readOnly) else { return }
        defer { try? first.close() }
        var bytes = [UInt8](repeating: 0, count: 8)
        let count = (try? bytes.withUnsafeMutableBytes { try first.read(into: $0) }) ?? 0
        for container in known where count == container.magic.count && bytes == container.magic {
            throw TraceError(.badContainer, file: path, line: 0,
                "an \(container.name) file, and no \(container.name) container is registered: call \(container.registration) first")
        }
    }

    /// Refuses to write the file at `path` when its name asks for a known container that is not registered.
    static func refuseUnregistered(writing path: String) throws(TraceError) {
        for container in known where path.hasSuffix(container.suffix) {
            throw TraceError(.badContainer, file: path, line: 0,
                "a \(container.suffix) name asks for \(container.name), and no \(container.name) container is registered: call \(container.registration) first")
        }
    }
}
