public import HAL

/// Merges live device streams into one stream of ``AppInput``s, with ticks from a clock so that
/// an app's timers fire when no device has anything to say. The stream ends when every device has ended.
///
/// For live devices only: the order of readings from different devices is their arrival order.
/// Replays are fed in trace order instead, which is what makes them deterministic.
public enum LiveInputs {
    /// The merged stream. Each source is named by the channel its readings carry in ``AppInput/reading(_:channel:)``
    /// (a feedback stream's readings carry `speaker`). A device whose stream fails is reported to `onDeviceError` and dropped;
    /// the others go on. The stream ends when every device has ended, or the consuming task is cancelled.
    /// `feedback` streams (a speaker's playback events) are merged too, but do not keep the stream going; one that
    /// fails (the speaker went away) becomes a ``AppInput/speakerFailed(_:reason:)`` input at the clock's time.
    public static func merge<C: Clock>(
        _ sources: [(channel: String, readings: AsyncThrowingStream<Reading, any Error>)], feedback: [AsyncThrowingStream<Reading, any Error>] = [],
        clock: C, tick: Duration = .milliseconds(100),
        onDeviceError: @escaping @Sendable (any Error) -> Void = { _ in }
    ) -> AsyncStream<AppInput> where C.Instant == Timestamp, C.Duration == Duration {
        let (stream, continuation) = AsyncStream.makeStream(of: AppInput.self)
        let task = Task {
            let ticker = Task {
                while !Task.isCancelled {
                    do { try await clock.sleep(for: tick) } catch { return }
                    continuation.yield(.tick(clock.now))
                }
            }
            let listeners = feedback.map { stream in
                Task {
                    do {
                        for try await reading in stream { continuation.yield(.reading(reading, channel: "speaker")) }
                    } catch {
                        if !Task.isCancelled { continuation.yield(.speakerFailed(clock.now, reason: "\(error)")) }
                    }
                }
            }
            await withTaskGroup(of: Void.self) { group in
                for source in sources {
                    group.addTask {
                        do {
                            for try await reading in source.readings { continuation.yield(.reading(reading, channel: source.channel)) }
                        } catch {
                            onDeviceError(error)
                        }
                    }
                }
            }
            ticker.cancel()
            for listener in listeners { listener.cancel() }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
