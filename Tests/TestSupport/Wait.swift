import Foundation

/// How long a test waits for a state before it gives up, in seconds.
///
/// A test waits for a state, not for a time: this limit only ends a wait for something that is not coming (a bug),
/// so it is long enough that a loaded two-core machine, however slow, always gets there first. A test whose result
/// depended on a shorter wait would fail by chance.
public let stateTimeout: Double = 60

/// Waits until `condition` holds, looking every `interval`, for at most `seconds`; returns whether it held.
///
/// The test asserts the result (`let came = try await waitUntil { … }` then `try #require(came, "…")`), so a state
/// that never comes fails it with its own message instead of hanging it.
public func waitUntil(
    seconds: Double = stateTimeout, every interval: Duration = .milliseconds(5), _ condition: () throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + .nanoseconds(Int64(seconds * 1e9))
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try await Task.sleep(for: interval)
    }
}

/// ``waitUntil(seconds:every:_:)`` for a synchronous test: the calling thread sleeps between looks.
public func blockUntil(
    seconds: Double = stateTimeout, every interval: Double = 0.005, _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = ContinuousClock.now + .nanoseconds(Int64(seconds * 1e9))
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        Thread.sleep(forTimeInterval: interval)
    }
}

/// How many whole records a JSON Lines trace being written holds so far: its newlines, less the header's. A line
/// still being written is not counted, so the number only grows.
public func wholeRecords(inTrace path: String) -> Int {
    guard let data = FileManager.default.contents(atPath: path) else { return 0 }
    return max(0, data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) } - 1)
}
