package import HAL
import LibC

/// A device stream whose blocking I/O runs on a dedicated thread, never on the cooperative
/// pool: `body` reads until the stop flag is set (the consumer went away) or the device
/// ends, yielding readings as they come; a thrown error ends the stream with it. The thread
/// blocks `SIGPIPE`, so a vanished network peer is an error, not the end of the process.
package enum DeviceThread {
    package static func stream<Element: Sendable>(
        name: String, buffering: ReadingBuffering,
        _ body: @escaping @Sendable (StopFlag, (Element) -> Void) throws -> Void
    ) -> AsyncThrowingStream<Element, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Element.self, bufferingPolicy: buffering.asyncThrowingStreamPolicy(Element.self))
        let stop = StopFlag()
        continuation.onTermination = { _ in stop.set() }
        DetachedThread.start(name: name) {
            // A peer that went away (iiod, gpsd, a TCP receiver) must give EPIPE on this thread,
            // not a process-wide SIGPIPE from inside a C library's send().
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            do {
                try body(stop) { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        return stream
    }
}

/// A flag a stream's termination sets and its reading thread checks.
package final class StopFlag: Sendable {
    private let flag = Locked(false)
    package func set() { flag.withLock { $0 = true } }
    package var isSet: Bool { flag.withLock { $0 } }
}
