import HAL

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
