public import HAL

/// One thing a ``CapturingSpeaker`` was asked to play.
public struct CapturedSound: Sendable, Hashable {
    /// The clip's name, or the spoken text and voice.
    public var item: PlaybackItem
    /// When it was asked for, on the clock.
    public var requested: Timestamp
    /// When sound started, on the clock.
    public var start: Timestamp
    /// When it ended (or was stopped).
    public var end: Timestamp
    /// The audio's own length.
    public var duration: Duration
    /// The audio's loudness as played (after volume and the guard).
    public var loudness: Loudness
    /// The gain the loudness guard applied, dB, when it changed the item.
    public var gain: Double?
}

/// A ``CapturingSpeaker``'s state, apart from the speaker's clock type: the runner asks for the next event time on
/// every record, and a type nested in the generic speaker had its metadata looked up at run time on each call.
private struct CapturingSpeakerState: ~Copyable {
    struct Scheduled: Sendable {
        var capture: Int
        var startEmitted = false
    }

    var captures: [CapturedSound] = []
    var scheduled: [Scheduled] = []
    var pausedAt: Timestamp?
    var volume = 1.0
    var listeners: [Int: AsyncThrowingStream<PlaybackEvent, any Error>.Continuation] = [:]
    var nextListener = 0
    var timer: Task<Void, Never>?
    var requests = 0
    /// The runner's time, once it drives the speaker (`advance(to:)`).
    var driven: Timestamp?
    /// Events emitted while driven, not yet handed back.
    var outbox: [PlaybackEvent] = []
}

/// A speaker for tests (`capture:`): nothing is played; each clip or utterance is recorded as a
/// ``Capture`` (what, start and end on the clock, duration, loudness), and its playback events come
/// out when the clock reaches them, as a real speaker's would.
///
/// How long a sound lasts and how loud it is comes from a ``SoundMeasure``: ``EstimatedSound`` here, which needs
/// no audio library, or the `Audio` module's `MeasuredPlayback`, which reads clip files, synthesises speech and
/// measures loudness by EBU R 128.
///
/// - Items queue: each starts when the one before ends, or after the `SpeakerLatency` delay if nothing is
///   playing (at once by default). Each `started` event says when the item was requested.
/// - `pause` holds the item playing and everything after it; `resume` shifts them by the pause. A pause asked for
///   while the first item waits out the latency holds it too: it starts that much later. Pausing when nothing is
///   queued does nothing.
/// - `stop` ends the current item now (`stopped`) and drops the items that had not started.
/// - Events are delivered by a task sleeping on the injected clock, so with a `VirtualClock` they
///   come out as the test advances it. As a `PlaybackEventSource` the speaker can be recorded
///   into a trace's `speaker` channel; replaying that channel gives the same events.
/// - As a `VirtualTimeSpeaker` a runner can drive it instead: once ``advance(to:)`` is called, the runner's
///   times replace the clock and the events come back from that call, in order.
public final class CapturingSpeaker<C: Clock>: Speaker, PlaybackEventSource, VirtualTimeSpeaker where C.Instant == Timestamp, C.Duration == Duration {
    /// The device.
    public let info: DeviceInfo
    /// The gain rule each item passes through, if any.
    public let loudnessGuard: LoudnessGuard?
    /// The delay from a request to the first sample.
    public let latency: SpeakerLatency
    /// How each sound's length and loudness are found.
    public let measure: any SoundMeasure
    private let clock: C
    private let state = Locked(CapturingSpeakerState())
    /// One thing the speaker was asked to play (``CapturedSound``).
    public typealias Capture = CapturedSound

    /// A capturing speaker on `clock`, whose sound starts `latency` after each request when nothing is playing,
    /// and whose sounds' lengths and loudness come from `measure`.
    public init(
        info: DeviceInfo, clock: C, loudnessGuard: LoudnessGuard? = nil, latency: SpeakerLatency = .none,
        measure: any SoundMeasure
    ) {
        self.info = info
        self.clock = clock
        self.loudnessGuard = loudnessGuard
        self.latency = latency
        self.measure = measure
    }

    deinit { state.withLock { $0.timer?.cancel() } }

    /// Everything asked for so far, in order.
    public var captures: [Capture] { state.withLock { $0.captures } }

    public func play(_ clip: AudioClip) async throws { try performNow(.play(clip)) }

    public func speak(_ utterance: Utterance) async throws { try performNow(.speak(utterance)) }

    public func pause() async throws { try performNow(.pause) }

    public func resume() async throws { try performNow(.resume) }

    public func stop() async throws { try performNow(.stop) }

    public func setVolume(_ volume: Double) async throws { try performNow(.setVolume(volume)) }

    /// Makes `request` at the speaker's time, at once. Every request, asynchronous or not, is made here.
    public func performNow(_ request: SpeakerRequest) throws {
        switch request {
        case .play(let clip):
            accept(.clip(name: clip.name), try measure.measure(clip, guard: clip.loudnessGuard ?? loudnessGuard))
        case .speak(let utterance):
            accept(.speech(text: utterance.text, voice: utterance.voice), try measure.measure(utterance, guard: loudnessGuard))
        case .pause:
            let now = currentTime
            update { state in
                guard state.pausedAt == nil, let first = state.scheduled.first else { return }
                state.pausedAt = now
                if first.startEmitted { state.emit(PlaybackEvent(timestamp: now, phase: .paused, item: state.captures[first.capture].item)) }
            }
        case .resume:
            let now = currentTime
            update { state in
                guard let pausedAt = state.pausedAt else { return }
                state.pausedAt = nil
                let held = pausedAt.duration(to: now)
                for entry in state.scheduled {
                    if state.captures[entry.capture].start >= pausedAt { state.captures[entry.capture].start = state.captures[entry.capture].start.advanced(by: held) }
                    state.captures[entry.capture].end = state.captures[entry.capture].end.advanced(by: held)
                }
                if let first = state.scheduled.first, first.startEmitted {
                    state.emit(PlaybackEvent(timestamp: now, phase: .resumed, item: state.captures[first.capture].item))
                }
            }
        case .stop:
            let now = currentTime
            update { state in
                state.pausedAt = nil
                if let first = state.scheduled.first, first.startEmitted {
                    state.captures[first.capture].end = now
                    state.emit(PlaybackEvent(timestamp: now, phase: .stopped, item: state.captures[first.capture].item))
                }
                let dropped = Set(state.scheduled.filter { !$0.startEmitted }.map(\.capture))
                state.captures = state.captures.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
                state.scheduled.removeAll()
            }
        case .setVolume(let volume):
            state.withLock { $0.volume = min(max(volume, 0), 1) }
        }
    }

    public func events(buffering: ReadingBuffering) -> AsyncThrowingStream<PlaybackEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: PlaybackEvent.self, bufferingPolicy: buffering.asyncThrowingStreamPolicy(PlaybackEvent.self))
        let key = state.withLock { state -> Int in
            state.nextListener += 1
            state.listeners[state.nextListener] = continuation
            return state.nextListener
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: key) }
        }
        return stream
    }

    /// The playback events, as a reading source (for recording into a trace).
    public func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<PlaybackEvent, any Error> {
        events(buffering: buffering)
    }

    public func advance(to time: Timestamp) -> [PlaybackEvent] {
        state.withLock { state in
            state.timer?.cancel()
            state.timer = nil
            let now = max(time, state.driven ?? time)
            state.driven = now
            state.deliver(upTo: now)
            defer { state.outbox.removeAll() }
            return state.outbox
        }
    }

    public var nextEventTime: Timestamp? {
        state.withLock { state in
            if !state.outbox.isEmpty { return state.driven }
            return state.pausedAt == nil ? state.nextEventTime : nil
        }
    }

    /// The runner's time once it drives the speaker, else the clock's.
    private var currentTime: Timestamp { state.withLock { $0.driven } ?? clock.now }

    private func accept(_ item: PlaybackItem, _ sound: MeasuredSound) {
        var loudness = sound.loudness
        let gain = sound.gain
        let duration = sound.duration
        let now = currentTime
        update { state in
            if state.volume < 1 { loudness = measure.loudness(of: sound, atVolume: state.volume) }
            let delay = latency.delay(ofRequest: state.requests)
            state.requests += 1
            let previousEnd = state.scheduled.last.map { state.captures[$0.capture].end } ?? now
            // While paused, the resume shifts the queue by the whole pause: count the latency from the pause, so
            // that the item starts after its request's latency or the item before, whichever is later.
            let start = max((state.pausedAt ?? now).advanced(by: delay), previousEnd)
            state.captures.append(CapturedSound(
                item: item, requested: now, start: start, end: start.advanced(by: duration), duration: duration,
                loudness: loudness, gain: gain))
            state.scheduled.append(CapturingSpeakerState.Scheduled(capture: state.captures.count - 1))
        }
    }

    /// Applies a change, emits what is due by now, and re-arms the timer for the next event.
    private func update(_ change: (inout CapturingSpeakerState) -> Void) {
        let clockNow = clock.now
        state.withLock { state in
            let now = state.driven ?? clockNow
            state.deliver(upTo: now)
            change(&state)
            state.deliver(upTo: now)
            state.timer?.cancel()
            state.timer = nil
            guard state.driven == nil, state.pausedAt == nil, let next = state.nextEventTime else { return }
            state.timer = Task { [weak self, clock] in
                do { try await clock.sleep(until: next, tolerance: nil) } catch { return }
                self?.update { _ in }
            }
        }
    }
}

extension CapturingSpeakerState {
    /// When the first queued item next starts or ends, if anything is queued.
    var nextEventTime: Timestamp? {
        guard let first = scheduled.first else { return nil }
        // One field read in place: the capture is not copied (its item holds strings) on every record's turn.
        return first.startEmitted ? captures[first.capture].end : captures[first.capture].start
    }

    /// Hands `event` to the listeners, and to the runner's outbox when one drives the speaker.
    mutating func emit(_ event: PlaybackEvent) {
        for listener in listeners.values { listener.yield(event) }
        if driven != nil { outbox.append(event) }
    }

    /// Emits the starts and ends due by `now`, in order.
    mutating func deliver(upTo now: Timestamp) {
        while let first = scheduled.first {
            let capture = captures[first.capture]
            if !first.startEmitted {
                guard capture.start <= now, pausedAt.map({ capture.start <= $0 }) ?? true else { return }
                emit(PlaybackEvent(timestamp: capture.start, phase: .started, item: capture.item, requested: capture.requested, gain: capture.gain))
                scheduled[0].startEmitted = true
            }
            guard pausedAt == nil, capture.end <= now else { return }
            emit(PlaybackEvent(timestamp: capture.end, phase: .finished, item: capture.item))
            scheduled.removeFirst()
        }
    }
}
