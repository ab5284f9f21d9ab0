public import HAL

/// Drives an ``AppLogic``: fires its timers in time order before each later input, hands it the
/// input, and carries out its speaker requests on the ``HAL/Speaker``.
///
/// Timers fire at their own deadlines, never at the time they happen to be noticed, so a trace
/// gives the same events whether it is replayed as fast as possible, at ×N, or live.
/// A speaker that fails is reported once as a `speaker.failed` event and not used again; the app goes on.
public struct AppRunner<Logic: AppLogic>: Sendable {
    /// The app's state.
    public private(set) var logic: Logic
    /// Where speaker requests go, if anywhere.
    public let speaker: (any Speaker)?
    private var speakerFailed = false
    private var lastTime: Timestamp?

    /// Creates a runner.
    public init(logic: Logic, speaker: (any Speaker)? = nil) {
        self.logic = logic
        self.speaker = speaker
    }

    /// Starts the app at `time`.
    public mutating func start(at time: Timestamp) async -> [AppEvent] {
        var output = AppOutput()
        logic.start(at: time, output: &output)
        lastTime = time
        return await carryOut(output)
    }

    /// Fires the timers due up to the input's time, then delivers the input.
    ///
    /// An input older than the last one (a late or reordered reading) is restamped with the last time before
    /// it is delivered, so the app never sees time go back and its events stay in time order.
    public mutating func feed(_ input: AppInput) async -> [AppEvent] {
        var input = input
        let time = max(input.timestamp, lastTime ?? input.timestamp)
        input.timestamp = time
        var events = await advance(to: time)
        var output = AppOutput()
        logic.handle(input, output: &output)
        events += await carryOut(output)
        return events
    }

    /// Fires every timer due at or before `time`, each at its own deadline.
    public mutating func advance(to time: Timestamp) async -> [AppEvent] {
        var events: [AppEvent] = []
        while let deadline = logic.nextDeadline, deadline <= time {
            var output = AppOutput()
            logic.advance(to: deadline, output: &output)
            events += await carryOut(output)
        }
        lastTime = max(time, lastTime ?? time)
        return events
    }

    /// Starts the app at `start`, feeds it every input, then fires the timers due up to `end`.
    ///
    /// `onEvents` gets each batch of events as it is emitted. Errors of the input sequence end the run.
    public mutating func run<Inputs: AsyncSequence>(
        _ inputs: Inputs, start: Timestamp, end: Timestamp? = nil,
        onEvents: ([AppEvent]) async throws -> Void
    ) async throws where Inputs.Element == AppInput {
        try await onEvents(await self.start(at: start))
        for try await input in inputs {
            try await onEvents(await feed(input))
        }
        if let end { try await onEvents(await advance(to: end)) }
    }

    private mutating func carryOut(_ output: AppOutput) async -> [AppEvent] {
        var events = output.events
        guard let speaker, !speakerFailed else { return events }
        for request in output.requests {
            do {
                switch request {
                case .play(let clip): try await speaker.play(clip)
                case .speak(let utterance): try await speaker.speak(utterance)
                case .pause: try await speaker.pause()
                case .resume: try await speaker.resume()
                case .stop: try await speaker.stop()
                }
            } catch {
                speakerFailed = true
                let time = events.last?.timestamp ?? lastTime ?? .zero
                events.append(AppEvent(timestamp: time, name: "speaker.failed", attributes: ["error": .string("\(error)")]))
                break
            }
        }
        return events
    }
}
