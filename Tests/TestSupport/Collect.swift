/// Reads a device's stream until `count` readings came or `seconds` passed, and returns what came.
public func collect<Element: Sendable>(
    _ stream: AsyncThrowingStream<Element, any Error>, count: Int, seconds: Double = 10
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
    return try await reading.value
}
