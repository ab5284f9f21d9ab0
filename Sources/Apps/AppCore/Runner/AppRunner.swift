public import HAL

/// Drives an ``AppLogic``: fires its timers in time order before each later input, hands it the
/// input, and carries out its speaker requests on the `Speaker`.
///
/// Timers fire at their own deadlines, never at the time they happen to be noticed, so a trace
/// gives the same events whether it is replayed as fast as possible, at ×N, or live.
/// A speaker that fails (a request throws, or a ``AppInput/speakerFailed(_:reason:)`` input says it went away) is
/// reported once as a `speaker.failed` event and not used again; the app is handed the failure and goes on. From
/// then on each clip or utterance the app asks for is logged as `speaker.skipped`, so a log never shows a sound as
/// heard when it was not.
///
/// What the speaker played is logged as `speaker.started`, `speaker.paused`, `speaker.resumed`, `speaker.finished` and
/// `speaker.stopped` (with `clip`, or `text` and `voice`), at the speaker's own times; `started` adds `latency`, the
/// seconds from the request, where the speaker knows it, and `gain`, the dB a loudness guard applied. Events come from playback readings the runner is fed (a live
/// speaker's feedback) or, for a `VirtualTimeSpeaker`, from the runner driving it: each request is made at the
/// time of the input that caused it, and each playback event is handed to the app at its own time, in order with the
/// app's timers, so a replay shows a slow speaker the same way at any rate.
///
/// A `VideoScreen` is driven the same way: the app's ``VideoRequest``s are made on it at their time, its frames
/// are handed to the app as frame readings on channel `video`, and what it did is logged as `screen.started` (with
/// `latency`), `screen.paused`, `screen.resumed`, `screen.finished` and `screen.stopped` and handed on as playback
/// readings on channel `video`. A video's soundtrack goes to the speaker with it: it starts with the first frame,
/// pauses and resumes with the frames, starts again from the new position after a seek, and stops when the video
/// is closed or ends. A video that cannot be opened or shown further (or a runner with no screen) is logged as
/// `screen.failed`, naming the file, and handed to the app as `stopped`. Only the open video's own playback events
/// move its soundtrack: the `stopped` of a video that another replaced does not.
public struct AppRunner<Logic: AppLogic>: Sendable {
    /// The app's state.
    public private(set) var logic: Logic
    /// Where speaker requests go, if anywhere.
    public let speaker: (any Speaker)?
    private let virtualSpeaker: (any VirtualTimeSpeaker)?
    /// Where videos are shown, if anywhere.
    public let screen: (any VideoScreen)?
    /// Where the app's stored files go, if anywhere.
    public var storage: (any AppStorage)? { stored.storage }
    /// The storage, and whether it failed.
    private var stored: RunnerStorage
    private var speakerFailed = false
    private var lastTime: Timestamp?
    /// The driven devices' outputs not yet handed to the app, oldest first, each with the event logged before it is
    /// handed on (none for a frame), and whether a delivery is under way.
    private var deviceQueue: [(input: AppInput, logged: AppEvent?)] = []
    private var delivering = false
    /// Requests for a live speaker, each with its time, not yet made.
    private var liveRequests: [(request: SpeakerRequest, time: Timestamp)] = []
    /// The open video's soundtrack, kept with its frames.
    private var soundtrack = SoundtrackSync()
    /// ``nextDeviceTime`` as last asked, or `nil` when a call to the speaker or the screen may have moved it. The
    /// driven devices are driven only by the runner (``VirtualTimeSpeaker``, `VideoScreen`), so their next time moves
    /// only with its calls; asking for it on every input was a lock per device and a seventh of a replay's time.
    private var knownDeviceTime: Timestamp?? = nil

    /// Creates a runner. With `storage`, the app restores from it before it starts, and its stored files go to it.
    ///
    /// A `VirtualTimeSpeaker` is driven in the inputs' time unless `drivesSpeaker` is false: a live session,
    /// whose speaker runs on its own clock and whose events come back as inputs, passes false.
    public init(
        logic: Logic, speaker: (any Speaker)? = nil, screen: (any VideoScreen)? = nil, storage: (any AppStorage)? = nil,
        drivesSpeaker: Bool = true
    ) {
        self.logic = logic
        self.speaker = speaker
        self.screen = screen
        self.stored = RunnerStorage(storage: storage)
        self.virtualSpeaker = drivesSpeaker ? speaker as? any VirtualTimeSpeaker : nil
    }

    /// Starts the app at `time`.
    ///
    /// A storage the app cannot restore from is logged as `storage.failed`, and the app starts empty; nothing is
    /// written to that storage in the run (each write the app asks for is logged as `storage.skipped`), so what is
    /// there stays for repair.
    public mutating func start(at time: Timestamp) async -> [AppEvent] {
        let events = syncStart(at: time)
        return await events + performLiveRequests()
    }

    /// ``start(at:)`` without suspending, for a runner that ``runsSynchronously``.
    public mutating func syncStart(at time: Timestamp) -> [AppEvent] {
        var output = AppOutput()
        stored.restore(&logic, at: time, output: &output)
        logic.start(at: time, output: &output)
        lastTime = time
        return carryOut(output, at: time)
    }

    /// Whether the runner never waits, so that its `sync` methods (``syncStart(at:)``, ``syncFeed(_:deliveredAt:)``,
    /// ``syncAdvance(to:)``) can drive it: it has no speaker, or one it drives in virtual time. A replay's simulated
    /// speaker is one; a live speaker (`alsa:`) is not, and the runner awaits each request to it.
    public var runsSynchronously: Bool { speaker == nil || virtualSpeaker != nil }

    /// When the app was last handed something: an input, a timer or a device's output. `nil` before ``start(at:)``.
    public var now: Timestamp? { lastTime }

    /// Fires the timers due up to the input's delivery, then delivers the input.
    ///
    /// The app is handed the input stamped with its delivery time, so the events it emits while handling it are at
    /// that time, never at another channel's. The delivery is `deliveredAt` (an input that a fault made late arrives
    /// after its timestamp), or the input's own timestamp when `nil`; one older than ``now`` (a reordered or jittered
    /// reading) is delivered at ``now``, so the app never sees time go back and its events stay in time order. The
    /// input's own timestamp reaches the app too, as ``InputDelivery/deviceTime`` in
    /// ``AppLogic/handle(_:delivery:output:)``.
    public mutating func feed(_ input: AppInput, deliveredAt arrival: Timestamp? = nil) async -> [AppEvent] {
        let events = syncFeed(input, deliveredAt: arrival)
        return await events + performLiveRequests()
    }

    /// ``feed(_:deliveredAt:)`` without suspending, for a runner that ``runsSynchronously``.
    public mutating func syncFeed(_ input: AppInput, deliveredAt arrival: Timestamp? = nil) -> [AppEvent] {
        var input = input
        let time = max(arrival ?? input.timestamp, lastTime ?? arrival ?? input.timestamp)
        let delivery = InputDelivery(deviceTime: input.timestamp, deliveredAt: time)
        input.timestamp = time
        var events = syncAdvance(to: time)
        if case .speakerFailed(_, let reason) = input {
            return events + loseSpeaker(at: time, reason: reason)
        }
        if case .reading(.playback(let playback), _) = input {
            soundtrack.ended(playback)
            events.append(DeviceEvents.logged(playback))
        }
        var output = AppOutput()
        logic.handle(input, delivery: delivery, output: &output)
        events += carryOut(output, at: time)
        return events
    }

    /// Fires every timer due at or before `time`, each at its own deadline.
    public mutating func advance(to time: Timestamp) async -> [AppEvent] {
        let events = syncAdvance(to: time)
        return await events + performLiveRequests()
    }

    /// ``advance(to:)`` without suspending, for a runner that ``runsSynchronously``.
    public mutating func syncAdvance(to time: Timestamp) -> [AppEvent] {
        var events: [AppEvent] = []
        while true {
            let timer = logic.nextDeadline.flatMap { $0 <= time ? $0 : nil }
            let device = nextDeviceTime.flatMap { $0 <= time ? $0 : nil }
            if let device, device <= timer ?? device {
                // The devices' events first at a tie: a timer then sees the sound and the video as they are.
                events += deliverDevices(upTo: device)
            } else if let timer {
                var output = AppOutput()
                logic.advance(to: timer, output: &output)
                events += carryOut(output, at: timer)
            } else {
                break
            }
        }
        lastTime = max(time, lastTime ?? time)
        return events
    }

    /// When the driven speaker or the screen has its next output.
    private var nextDeviceTime: Timestamp? {
        mutating get {
            if let knownDeviceTime { return knownDeviceTime }
            let speakerTime = speakerFailed ? nil : virtualSpeaker?.nextEventTime
            let time = screen?.nextEventTime.map { min($0, speakerTime ?? $0) } ?? speakerTime
            knownDeviceTime = .some(time)
            return time
        }
    }

    /// Forgets ``nextDeviceTime``: the runner has just called the speaker or the screen.
    private mutating func devicesMoved() {
        knownDeviceTime = nil
    }

    /// Hands the app the driven speaker's and the screen's outputs due by `time`, in time order (the speaker's
    /// first at a tie): a playback event is logged, then delivered as a playback reading on channel `speaker` or
    /// `video`; a frame is delivered as a frame reading on channel `video`. Outputs that the app's answer to one of
    /// them causes join the end of the queue, after the ones already due.
    private mutating func deliverDevices(upTo time: Timestamp) -> [AppEvent] {
        let played = speakerFailed ? [] : virtualSpeaker?.advance(to: time) ?? []
        let shown = screen?.advance(to: time) ?? []
        devicesMoved()
        var (speakerIndex, screenIndex) = (0, 0)
        while speakerIndex < played.count || screenIndex < shown.count {
            if screenIndex == shown.count || (speakerIndex < played.count && played[speakerIndex].timestamp <= shown[screenIndex].timestamp) {
                let playback = played[speakerIndex]
                deviceQueue.append((.reading(.playback(playback), channel: "speaker"), DeviceEvents.logged(playback)))
                speakerIndex += 1
            } else {
                let output = shown[screenIndex]
                let input: AppInput = switch output {
                case .frame(let frame): .reading(.frame(frame), channel: "video")
                case .playback(let event), .failed(let event, _): .reading(.playback(event), channel: "video")
                }
                deviceQueue.append((input, DeviceEvents.logged(output)))
                screenIndex += 1
            }
        }
        guard !delivering else { return [] }
        delivering = true
        defer { delivering = false }
        var events: [AppEvent] = []
        while !deviceQueue.isEmpty {
            let (input, logged) = deviceQueue.removeFirst()
            var followed: [SpeakerRequest] = []
            if case .reading(.playback(let playback), let channel) = input {
                if channel == "speaker", speakerFailed { continue }
                if channel == "video" { followed = soundtrack.followed(playback) } else { soundtrack.ended(playback) }
            }
            if let logged { events.append(logged) }
            var output = AppOutput()
            logic.handle(input, delivery: InputDelivery(input), output: &output)
            output.requests = followed + output.requests
            events += carryOut(output, at: input.timestamp)
        }
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

    /// Carries out what the app asked for while handling something at `time`.
    private mutating func carryOut(_ output: AppOutput, at time: Timestamp) -> [AppEvent] {
        var events = output.events
        events += stored.write(output.stored, at: time)
        guard !output.requests.isEmpty || !output.videoRequests.isEmpty else { return events }
        // The driven devices take the requests at their time; what is due by then has been delivered.
        events += deliverDevices(upTo: time)
        var requests = output.requests
        for request in output.videoRequests {
            requests += show(request, at: time, events: &events)
        }
        for request in requests {
            if speakerFailed {
                events += DeviceEvents.skipped(request, at: time)
                continue
            }
            guard let virtualSpeaker else {
                // A live speaker is awaited once the app's answer is carried out (``performLiveRequests()``).
                if speaker != nil { liveRequests.append((request, time)) }
                continue
            }
            defer { devicesMoved() }
            do {
                try virtualSpeaker.performNow(request)
            } catch {
                events += loseSpeaker(at: time, reason: "\(error)")
                events += DeviceEvents.skipped(request, at: time)
            }
        }
        // What the requests did at once (a pause, a stop, a sound with no latency, a frame after a seek).
        events += deliverDevices(upTo: time)
        return events
    }

    /// Makes the requests waiting for a live speaker, in order. One that fails loses the speaker, and the rest are
    /// skipped.
    private mutating func performLiveRequests() async -> [AppEvent] {
        var events: [AppEvent] = []
        while !liveRequests.isEmpty {
            let (request, time) = liveRequests.removeFirst()
            guard !speakerFailed, let speaker else {
                events += DeviceEvents.skipped(request, at: time)
                continue
            }
            do {
                try await speaker.perform(request)
            } catch {
                events += loseSpeaker(at: time, reason: "\(error)")
                events += DeviceEvents.skipped(request, at: time)
            }
        }
        return events
    }

    /// Makes a video request on the screen at `time`; returns the speaker requests that keep the soundtrack with it.
    private mutating func show(_ request: VideoRequest, at time: Timestamp, events: inout [AppEvent]) -> [SpeakerRequest] {
        defer { devicesMoved() }
        if case .open(let clip) = request {
            let stopOld: [SpeakerRequest] = soundtrack.soundtrackOn ? [.stop] : []
            if soundtrack.isOpen, let screen {
                // The video this one replaces is closed, and what it last did logged, not handed to the app, which
                // asked for another.
                screen.close(at: time)
                events += screen.advance(to: time).compactMap(DeviceEvents.logged)
            }
            soundtrack.closed()
            do {
                guard let screen else { throw VideoUnavailable() }
                try screen.open(clip, at: time)
            } catch {
                screen?.close(at: time)
                // The app learns the video is gone, after the log says why; the video never started.
                let item = PlaybackItem.clip(name: clip.name)
                deviceQueue.append((.reading(.playback(PlaybackEvent(timestamp: time, phase: .stopped, item: item)), channel: "video"),
                                    DeviceEvents.screenFailed(item, error, at: time)))
                return stopOld
            }
            soundtrack.opened(clip)
            return stopOld
        }
        guard let screen else { return [] }
        return soundtrack.request(request, on: screen, at: time)
    }

    /// Marks the speaker gone, reports it once, and tells the app.
    private mutating func loseSpeaker(at time: Timestamp, reason: String) -> [AppEvent] {
        guard !speakerFailed else { return [] }
        speakerFailed = true
        devicesMoved()
        var output = AppOutput()
        output.emit("speaker.failed", at: time, ["error": .string(reason)])
        let failure = AppInput.speakerFailed(time, reason: reason)
        logic.handle(failure, delivery: InputDelivery(failure), output: &output)
        // The speaker is gone: what the app asks for in answer is skipped, not played.
        return output.events + output.requests.flatMap { DeviceEvents.skipped($0, at: time) }
    }
}

/// The error of a video request made to a runner that has no screen.
struct VideoUnavailable: Error, CustomStringConvertible {
    var description: String { "no screen to show videos on" }
}
