import LibC
public import HAL

/// A ``HAL/Speaker`` that plays into a ``PCMOutput`` (ALSA, a WAV file) on its own playback thread.
///
/// - **Queued, not mixed:** clips and utterances play one after another in the order asked.
/// - `play` reads the clip and `speak` synthesises the text before returning, so a bad file or an
///   unknown voice is the caller's error; the sound then starts when the queue reaches it.
/// - `pause` and `resume` hold and continue the current item; `stop` ends it and drops the queue;
///   `setVolume` applies from the next block of samples (about 20 ms).
/// - An optional ``HAL/LoudnessGuard`` sets each item's gain before it plays (a clip's own guard, if it has one, in
///   its place). A clip played from a point (``HAL/AudioClip/start``) takes the whole clip's gain, as
///   ``PreparedClips`` gives it, so a soundtrack after a seek is as loud as from the start.
/// - Events (started, paused, resumed, finished, stopped) carry times read from the injected clock. `started` is
///   when the item's first block was handed to the output, and says when the item was requested: on ALSA the
///   difference is the latency the board really has (the queue ahead, reading or synthesis, opening the device).
/// - A failing output (a device that went away) ends every events stream with its ``HAL/DeviceError``,
///   and later requests throw it.
public final class OutputSpeaker<C: Clock>: Speaker where C.Instant == Timestamp {
    /// The device.
    public let info: DeviceInfo
    /// The gain rule each item passes through, if any.
    public let loudnessGuard: LoudnessGuard?
    private let clock: C
    private let output: OutputBox
    private let state = Locked(State())
    /// Frames in one write: about 20 ms at 48 kHz. Pause, stop and volume apply between writes.
    public static var blockFrames: Int { 1024 }

    private struct Pending: Sendable {
        var item: PlaybackItem
        var audio: PCMAudio
        var requested: Timestamp
        /// The gain the loudness guard applied to `audio`, if one did.
        var gain: Double?
    }

    private struct State: ~Copyable {
        var queue: [Pending] = []
        var running = false
        var paused = false
        var stopRequested = false
        var volume = 1.0
        var failure: DeviceError?
        var listeners: [Int: AsyncThrowingStream<PlaybackEvent, any Error>.Continuation] = [:]
        var nextListener = 0
        var reports: [LoudnessGuard.Report] = []
    }

    /// Only the playback thread touches the output.
    private final class OutputBox: @unchecked Sendable {
        let output: any PCMOutput
        init(_ output: any PCMOutput) { self.output = output }
    }

    /// A speaker playing into `output`, with events on `clock`.
    public init(info: DeviceInfo, output: any PCMOutput, clock: C, loudnessGuard: LoudnessGuard? = nil) {
        self.info = info
        self.output = OutputBox(output)
        self.clock = clock
        self.loudnessGuard = loudnessGuard
    }

    /// What the loudness guard did to each item so far.
    public var guardReports: [LoudnessGuard.Report] { state.withLock { $0.reports } }

    public func play(_ clip: AudioClip) async throws {
        let requested = clock.now
        let item = PlaybackItem.clip(name: clip.name)
        guard let loudnessGuard = clip.loudnessGuard ?? loudnessGuard else {
            return try enqueue(Pending(item: item, audio: try clip.audio(), requested: requested), report: nil)
        }
        // PreparedClips measures the whole file, also for a clip played from a point.
        let prepared = try PreparedClips.prepare(clip, guard: loudnessGuard)
        try enqueue(Pending(item: item, audio: prepared.audio, requested: requested), report: prepared.report)
    }

    public func speak(_ utterance: Utterance) async throws {
        let requested = clock.now
        let audio = try SpeechSynthesizer.synthesize(utterance)
        let guarded = loudnessGuard?.apply(to: audio)
        try enqueue(
            Pending(item: .speech(text: utterance.text, voice: utterance.voice), audio: guarded?.audio ?? audio, requested: requested),
            report: guarded?.report)
    }

    public func pause() async throws { state.withLock { $0.paused = true } }

    public func resume() async throws { state.withLock { $0.paused = false } }

    public func stop() async throws {
        state.withLock { state in
            state.queue.removeAll()
            if state.running { state.stopRequested = true }
            state.paused = false
        }
    }

    public func setVolume(_ volume: Double) async throws {
        state.withLock { $0.volume = min(max(volume, 0), 1) }
    }

    public func events(buffering: ReadingBuffering) -> AsyncThrowingStream<PlaybackEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: PlaybackEvent.self, bufferingPolicy: buffering.asyncThrowingStreamPolicy(PlaybackEvent.self))
        let (key, failure) = state.withLock { state -> (Int, DeviceError?) in
            state.nextListener += 1
            if state.failure == nil { state.listeners[state.nextListener] = continuation }
            return (state.nextListener, state.failure)
        }
        if let failure { continuation.finish(throwing: failure) }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: key) }
        }
        return stream
    }

    /// Ends a WAV file output (a no-op for others); call when done playing.
    public func closeFile() {
        (output.output as? WAVOutput)?.close()
    }

    /// Waits until everything queued has played (or failed).
    public func waitUntilIdle() async {
        while state.withLock({ $0.running || !$0.queue.isEmpty }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Queues an item whose audio has been through the guard that `report` describes, if any.
    private func enqueue(_ pending: Pending, report: LoudnessGuard.Report?) throws(DeviceError) {
        var prepared = pending
        if let report {
            prepared.gain = report.appliedGain
            state.withLock { $0.reports.append(report) }
        }
        let startThread = try state.withLock { state throws(DeviceError) -> Bool in
            if let failure = state.failure { throw failure }
            state.queue.append(prepared)
            if state.running { return false }
            state.running = true
            return true
        }
        if startThread {
            DetachedThread.start(name: "speaker \(info.uri)") { [self] in playQueue() }
        }
    }

    private func emit(_ phase: PlaybackPhase, _ item: PlaybackItem, requested: Timestamp? = nil, gain: Double? = nil) {
        let event = PlaybackEvent(timestamp: clock.now, phase: phase, item: item, requested: requested, gain: gain)
        state.withLock { state in
            for listener in state.listeners.values { listener.yield(event) }
        }
    }

    private func playQueue() {
        while let pending = state.withLock({ state -> Pending? in
            guard !state.queue.isEmpty else {
                state.running = false
                state.stopRequested = false
                return nil
            }
            state.stopRequested = false
            return state.queue.removeFirst()
        }) {
            do {
                try play(pending)
            } catch {
                let listeners = state.withLock { state in
                    state.failure = error
                    state.queue.removeAll()
                    state.running = false
                    defer { state.listeners.removeAll() }
                    return Array(state.listeners.values)
                }
                // Outside the lock: finishing a stream runs its termination handler, which takes the lock.
                for listener in listeners { listener.finish(throwing: error) }
                return
            }
        }
    }

    private func play(_ pending: Pending) throws(DeviceError) {
        let output = output.output
        let audio = pending.audio
        try output.start(sampleRate: audio.sampleRate, channelCount: audio.channelCount)
        emit(.started, pending.item, requested: pending.requested, gain: pending.gain)
        let block = Self.blockFrames * audio.channelCount
        var offset = 0
        var pausedNow = false
        while offset < audio.samples.count {
            var (stop, paused, volume) = state.withLock { ($0.stopRequested, $0.paused, $0.volume) }
            while paused && !stop {
                if !pausedNow {
                    pausedNow = true
                    emit(.paused, pending.item)
                }
                usleep(5_000)
                (stop, paused, volume) = state.withLock { ($0.stopRequested, $0.paused, $0.volume) }
            }
            if stop {
                output.abort()
                emit(.stopped, pending.item)
                return
            }
            if pausedNow {
                pausedNow = false
                emit(.resumed, pending.item)
            }
            let end = min(offset + block, audio.samples.count)
            if volume == 1 {
                try output.write(audio.samples[offset..<end])
            } else {
                let gain = Float(volume)
                try output.write(audio.samples[offset..<end].map { $0 * gain }[...])
            }
            offset = end
        }
        try output.finish()
        emit(.finished, pending.item)
    }
}
