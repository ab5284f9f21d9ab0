/// Reads a device's stream until `count` readings came or `seconds` passed, and returns what came.
///
/// `whileOpen` runs after the readings came and before the stream is let go, so it sees the device as the
/// stream left it (a device's teardown, such as libiio disabling the scan elements when its buffer closes,
/// starts only when the stream ends).
public func collect<Element: Sendable>(
    _ stream: AsyncThrowingStream<Element, any Error>, count: Int, seconds: Double = 10,
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
