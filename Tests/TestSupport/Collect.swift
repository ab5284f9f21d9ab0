/// Reads a device's stream until `count` readings came or `seconds` passed, and returns what came.
///
/// The deadline only bounds a wait for the readings a test knows are coming (``stateTimeout`` by default): a shorter
/// one let a loaded machine decide how many came. A test that means "nothing more comes" gives its own `seconds`.
///
/// `whileOpen` runs after the readings came and before the stream is let go, so it sees the device as the
/// stream left it (a device's teardown, such as libiio disabling the scan elements when its buffer closes,
/// starts only when the stream ends).
public func collect<Element: Sendable>(
    _ stream: AsyncThrowingStream<Element, any Error>, count: Int, seconds: Double = stateTimeout,
    whileOpen: () throws -> Void = {}
) async throws -> [Element] {
    let reading = Task {
        var taken: [Element] = []
        for try await element in stream {
            taken.append(element)
            if taken.count == count { break }
        }
        return taken
    }
    let deadline = Task {
        try await Task.sleep(for: .seconds(seconds))
        reading.cancel()
    }
    defer { deadline.cancel() }
    let taken = try await reading.value
    try withExtendedLifetime(stream) { try whileOpen() }
    return taken
}
