public import AppCore
import FoundationEssentials
public import HAL
public import Replay
public import TraceFormat

/// Runs any `AppLogic` against inputs, scripted commands, a fault plan and a speaker, and returns what it
/// did: the event log, the expectations' results and, when asked, a recording.
///
/// This is what `hal run` and `hal test` call, and what a project's own tests call in-process.
///
/// **Replay** (``run(onEvents:)``) runs on a virtual clock, so the same inputs give the same events at any pacing. The
/// merge order is:
/// 1. records in trace order: by timestamp, then the channel's place in the merged header (the inputs in the order
///    given, each trace's channels in header order), then the record's place in its file;
/// 2. the fault plan applied to that sequence (`FaultInjector`);
/// 3. scripted commands, and the speaker going away if the plan says so, delivered before any record that arrives at
///    the same or a later time (commands first at a tie, in the order the scenario lists them at one time);
/// 4. after the last record, the commands still due, then the app's timers up to the end time.
///
/// Each record is delivered at its arrival (`TraceReplay.arrivals`: its timestamp, later under a latency
/// fault), or when the record before it was, if that is later; the app's timers due by then fire first. The
/// expectations see each input at the device's time and at its delivery, in the run's order (`EventTimeline`).
///
/// **Live** (``live(_:sources:speaker:screen:outputs:storage:clock:expectations:onDeviceError:onEvents:)``) runs on a clock that advances
/// by itself (the monotonic clock on a board): device readings in arrival order, with ticks so that timers fire.
public struct AppSession<Logic: AppLogic>: Sendable {
    /// The app, in its starting state.
    public var logic: Logic
    /// The inputs: one trace of every channel the app is fed (`Trace.merging(_:)` joins several).
    public var inputs: Trace
    /// User commands, at seconds after the first input.
    public var commands: [ScriptedCommand]
    /// Seconds after the first input up to which timers fire; the last input's or command's time when `nil`.
    public var end: Seconds?
    /// Faults injected into the inputs, and perhaps the speaker.
    public var faults: FaultPlan?
    /// Where the app's speaker requests go. In a replay, `nil` means ``outputs``' speaker, made for the replay: a
    /// simulated speaker on the replay's time that the runner drives (see `AppRunner`), as slow as the
    /// fault plan's `FaultPlan.speakerLatency` says, whose log shows when each sound started and ended. A
    /// live run with `nil` has no speaker.
    public var speaker: (any Speaker)?
    /// Where the app's videos are shown: ``outputs``' screen, made for each replay, when `nil`, showing frames on the
    /// replay's time, as slow to start as the fault plan's `FaultPlan.screenDelay` says.
    public var screen: (any VideoScreen)?
    /// The simulated speaker and screen a replay makes when ``speaker`` or ``screen`` is `nil`: test doubles with no
    /// audio or video library by default; `hal` hands its own, which read clip and video files.
    public var outputs: SimulatedOutputs
    /// Where the app keeps what outlasts a run; a fresh `InMemoryAppStorage` for each replay when `nil`, so
    /// that a replay gives the same events every time.
    public var storage: (any AppStorage)?
    /// How fast the inputs are delivered. The events do not depend on it.
    public var pacing: ReplayPacing
    /// The clock that paces a paced replay.
    public var pacingClock: any Clock<Duration>
    /// What must hold of the event log.
    public var expectations: [EventExpectation]
    /// Whether ``SessionResult/recording`` holds the inputs and the app's events as one trace.
    public var records: Bool
    /// The app's name in a recording's `app` channel.
    public var appName: String

    /// A session replaying `inputs` into `logic`.
    public init(
        _ logic: Logic, inputs: Trace, commands: [ScriptedCommand] = [], end: Seconds? = nil, faults: FaultPlan? = nil,
        speaker: (any Speaker)? = nil, screen: (any VideoScreen)? = nil, outputs: SimulatedOutputs = .doubles,
        storage: (any AppStorage)? = nil, pacing: ReplayPacing = .asFastAsPossible,
        pacingClock: any Clock<Duration> = ContinuousClock(), expectations: [EventExpectation] = [], records: Bool = false
    ) {
        self.outputs = outputs
        self.storage = storage
        self.screen = screen
        self.logic = logic
        self.inputs = inputs
        self.commands = commands
        self.end = end
        self.faults = faults
        self.speaker = speaker
        self.pacing = pacing
        self.pacingClock = pacingClock
        self.expectations = expectations
        self.records = records
        self.appName = Logic.name
    }

    /// Replays the inputs into the app. `onEvents` gets each batch of events as the app emits them, with the log's
    /// zero (the first input's time).
    ///
    /// Before anything runs, the expectations' and commands' names are checked against what the run declares
    /// (``checkNames()``): a name the run can never produce throws `AppConfigError`.
    public func run(onEvents: ([AppEvent], _ start: Timestamp) -> Void = { _, _ in }) async throws -> SessionResult {
        try checkNames()
        var options = ReplayOptions(faults: faults)
        options.pacing = pacing
        let replay = try TraceReplay(trace: inputs, options: options)
        // The run's zero is the inputs' first record as recorded, whatever the faults do to it: fault windows, commands,
        // `end`, `between` and the event log all count from it (docs/apps.md).
        let start = replay.origin ?? .zero
        func time(_ seconds: Seconds) -> Timestamp { start.adding(seconds) }
        var scripted = commands.enumerated()
            .sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
            .map { AppInput.command(AppCommand(timestamp: time($0.element.at), action: $0.element.action, arguments: $0.element.with ?? [:])) }
        if let gone = faults?.speakerDisconnect {
            let input = AppInput.speakerFailed(time(gone), reason: "the speaker disconnected (fault plan)")
            scripted.insert(input, at: scripted.firstIndex { $0.timestamp > input.timestamp } ?? scripted.endIndex)
        }
        let runner = AppRunner(
            logic: logic, speaker: speaker ?? outputs.speaker(faults?.speakerLatency ?? .none),
            screen: screen ?? outputs.screen(faults?.screenDelay ?? .zero), storage: storage ?? InMemoryAppStorage.forReplay())
        var run = ReplayRun(runner: runner, expectations: expectations, channels: inputs.header.channels.map(\.id), start: start, records: records)
        var next = 0
        if run.runner.runsSynchronously && pacing.factor == nil {
            run.emit(run.runner.syncStart(at: start), to: onEvents)
            try replay.forEach(arriving: { record, arrival in
                while next < scripted.count, scripted[next].timestamp <= arrival {
                    run.syncFeed(scripted[next], arrival: scripted[next].timestamp, to: onEvents)
                    next += 1
                }
                run.syncFeed(record, arrival: arrival, to: onEvents)
            })
        } else {
            run.emit(await run.runner.start(at: start), to: onEvents)
            try await replay.run(pacingClock: pacingClock) { record, arrival in
                while next < scripted.count, scripted[next].timestamp <= arrival {
                    await run.feed(scripted[next], arrival: scripted[next].timestamp, to: onEvents)
                    next += 1
                }
                await run.feed(record, arrival: arrival, to: onEvents)
            }
        }
        let last = end.map(time) ?? max(inputs.end ?? start, scripted.last?.timestamp ?? start)
        for input in scripted[next...] where input.timestamp <= last { await run.feed(input, arrival: input.timestamp, to: onEvents) }
        run.emit(await run.runner.advance(to: last), to: onEvents)
        let events = run.events
        let checked = run.observesInputs ? EventTimeline(events: events, inputs: run.observed) : EventTimeline(events)
        return SessionResult(
            app: appName, start: start, events: events, expectations: expectations.map { $0.check(checked, start: start) },
            recording: try run.received.map { try Self.recording(of: inputs.header, received: $0, events: events, app: appName) })
    }

    /// What the run declares: the inputs' channels with the attributes their events carry (the kind's, or those of
    /// the channel's first record where the kind does not name them), and the app's `AppLogic.vocabulary`.
    public var declarations: RunDeclarations {
        var firstReadings: [Int: Reading] = [:]
        let unnamed = Set(inputs.header.channels.indices.filter { inputs.header.channels[$0].kind.kindDescription.attributes.names == nil })
        if !unnamed.isEmpty {
            for record in inputs.records where unnamed.contains(record.channel) && firstReadings[record.channel] == nil {
                firstReadings[record.channel] = record.reading
                if firstReadings.count == unnamed.count { break }
            }
        }
        let channels = inputs.header.channels.enumerated().map { index, channel -> (id: String, attributes: [String]?) in
            let attributes = channel.kind.kindDescription.attributes.names ?? firstReadings[index].map { $0.attributes.keys.sorted() }
            return (channel.id, attributes)
        }
        // Which attributes are numbers: as the kind says, or as the channel's first reading shows.
        var numbers: [String: Set<String>] = [:]
        for (index, channel) in inputs.header.channels.enumerated() {
            if let known = channel.kind.kindDescription.attributes.numbers {
                numbers[channel.id] = known
            } else if let first = firstReadings[index] {
                numbers[channel.id] = Set(first.attributes.filter { if case .int = $0.value { true } else if case .double = $0.value { true } else { false } }.keys)
            }
        }
        return RunDeclarations(channels: channels, vocabulary: Logic.vocabulary, numbers: numbers)
    }

    /// Refuses expectations and commands that name what the run can never produce: an input channel it lacks, an
    /// attribute a channel's events never carry, an event or a command the app never emits or takes. Errors name the
    /// field (`expect[2].each.event`) and the names it could have meant.
    public func checkNames() throws(AppConfigError) {
        let run = declarations
        for (index, command) in commands.enumerated() {
            try run.checkCommand(command.action, field: "commands[\(index)].action")
        }
        for (index, expectation) in expectations.enumerated() {
            try expectation.checkNames(field: "expect[\(index)]", against: run)
        }
    }

    /// The inputs as the app received them and the events as one trace, the events in an `app` channel. Under a
    /// fault plan the inputs are the faulty device's (dropped ones gone, duplicates twice, a jitter's or a spike's
    /// values), each at its device time; where an input reached the app later than that (a latency, or a reordered
    /// or jittered record waiting for one delivered ahead of it), a `deliveries` channel has an `input.delivered`
    /// event at the delivery, naming the input's `channel` and its `device` time in nanoseconds. Frames recorded
    /// from files are copied in, so that the trace keeps them wherever it is written.
    static func recording(
        of header: TraceHeader, received: [(record: TraceRecord, delivered: Timestamp)], events: [AppEvent], app: String
    ) throws -> Trace {
        var channels = header.channels
        channels.append(TraceChannel(id: "app", kind: .app, source: "app:\(app)", name: app, backend: "apps"))
        let appChannel = channels.count - 1
        let late = received.filter { $0.delivered != $0.record.timestamp }
        let deliveryChannel = channels.count
        if !late.isEmpty {
            channels.append(TraceChannel(id: Self.deliveriesChannel, kind: .app, source: "hal:deliveries", name: "inputs as delivered", backend: "apps"))
        }
        var records = try received.map { item -> TraceRecord in
            let record = item.record
            guard case .frame(var frame) = record.reading, case .file(let path) = frame.storage else { return record }
            guard let data = FileManager.default.contents(atPath: path) else { throw TraceError(.io, file: path, line: 0, "cannot read the frame file") }
            frame.storage = .bytes([UInt8](data))
            return TraceRecord(channel: record.channel, reading: .frame(frame))
        }
        records += events.map { TraceRecord(channel: appChannel, reading: .appEvent($0)) }
        records += late.map { item in
            TraceRecord(channel: deliveryChannel, reading: .appEvent(AppEvent(
                timestamp: item.delivered, name: "input.delivered",
                attributes: ["channel": .string(header.channels[item.record.channel].id), "device": .int(item.record.timestamp.nanoseconds)])))
        }
        records = records.enumerated()
            .sorted { ($0.element.timestamp, $0.element.channel, $0.offset) < ($1.element.timestamp, $1.element.channel, $1.offset) }
            .map(\.element)
        return Trace(header: TraceHeader(channels: channels, metadata: ["recorded-by": "hal run \(app)"]), records: records)
    }

    /// The channel of a recording (``SessionResult/recording``) that says when each late input reached the app: an
    /// `input.delivered` event at the delivery, with the input's `channel` and its `device` time in nanoseconds.
    public static var deliveriesChannel: String { "deliveries" }
}

extension AppSession {
    /// Runs the app live: readings from `sources` as they arrive, each named by its channel, with what the speaker
    /// played fed back, on `clock` (the monotonic clock on a board). It ends when every source has ended or the
    /// task is cancelled; a source that fails is reported to `onDeviceError` and the others go on. Videos the app
    /// opens show on `screen` (`outputs`' screen when `nil`), driven by the inputs and the clock's ticks.
    public static func live<C: Clock>(
        _ logic: Logic, sources: [(channel: String, readings: AsyncThrowingStream<Reading, any Error>)],
        speaker: (any Speaker)? = nil, screen: (any VideoScreen)? = nil, outputs: SimulatedOutputs = .doubles,
        storage: (any AppStorage)? = nil, clock: C, expectations: [EventExpectation] = [],
        onDeviceError: @escaping @Sendable (any Error) -> Void = { _ in },
        onEvents: ([AppEvent], _ start: Timestamp) -> Void = { _, _ in }
    ) async throws -> SessionResult where C.Instant == Timestamp, C.Duration == Duration {
        // What the speaker played comes back to the app, so that it knows when a clip has ended.
        let feedback = speaker.map { [$0.events(buffering: .unbounded).anyReadings()] } ?? []
        let start = clock.now
        let inputs = LiveInputs.merge(sources, feedback: feedback, clock: clock, onDeviceError: onDeviceError)
        var runner = AppRunner(
            logic: logic, speaker: speaker, screen: screen ?? outputs.screen(.zero), storage: storage, drivesSpeaker: false)
        var events: [AppEvent] = []
        do {
            try await runner.run(inputs, start: start) { batch in
                onEvents(batch, start)
                events += batch
            }
        } catch is CancellationError {}
        return SessionResult(
            app: Logic.name, start: start, events: events, expectations: expectations.map { $0.check(events, start: start) },
            recording: nil)
    }
}

/// A user command at a time, as a scenario scripts it.
public typealias ScriptedCommand = AppScenario.ScriptedCommand

/// What a session did.
public struct SessionResult: Sendable {
    /// The app's name.
    public var app: String
    /// The time of the first input: the log's zero.
    public var start: Timestamp
    /// Every event the app emitted, in order.
    public var events: [AppEvent]
    /// Each expectation's result, in the order given.
    public var expectations: [EventExpectationResult]
    /// The inputs and the events as one trace, when the session was asked to record.
    public var recording: Trace?

    /// Creates a result: what a runner of another kind of scenario (a program's) reports in the same shape.
    public init(app: String, start: Timestamp, events: [AppEvent], expectations: [EventExpectationResult], recording: Trace? = nil) {
        self.app = app
        self.start = start
        self.events = events
        self.expectations = expectations
        self.recording = recording
    }

    /// Whether every expectation held.
    public var passed: Bool { expectations.allSatisfy(\.passed) }

    /// The event log's lines, as `hal run` prints them and golden logs hold them.
    public var logLines: [String] { events.map { EventLog.line($0, start: start) } }
}

/// A replay under way: the runner, the events so far, and the inputs an expectation names, kept as events. One value
/// the replay loop mutates, so that its state is not captured piecemeal by the loop's closures.
private struct ReplayRun<Logic: AppLogic> {
    var runner: AppRunner<Logic>
    /// The events so far, in the run's order.
    private(set) var events: [AppEvent] = []
    /// The inputs kept as events, each with the device's time, its delivery, and its place in the run.
    private(set) var observed: [(event: AppEvent, delivered: Timestamp, before: Int)] = []
    /// The inputs' channel ids, by index.
    let channels: [String]
    /// The log's zero.
    let start: Timestamp
    /// The inputs as the app received them, each with its delivery, when the session records; `nil` otherwise.
    private(set) var received: [(record: TraceRecord, delivered: Timestamp)]?
    /// The expectations' matchers that are about inputs.
    private let inputMatchers: [EventMatcher]
    /// Whether an expectation names each channel, by index; worked out once per channel.
    private let observedChannels: [Bool]
    /// Whether an expectation names each command, worked out as they come.
    private var observedCommands: [String: Bool] = [:]

    /// Inputs are kept as events only when an expectation names them: a motion channel at 100 Hz is not made into
    /// events for a check about taps.
    var observesInputs: Bool { !inputMatchers.isEmpty }

    init(runner: AppRunner<Logic>, expectations: [EventExpectation], channels: [String], start: Timestamp, records: Bool) {
        self.runner = runner
        received = records ? [] : nil
        self.channels = channels
        self.start = start
        let matchers = expectations.flatMap(\.matchers).filter(\.isAboutInputs)
        inputMatchers = matchers
        observedChannels = channels.map { id in !matchers.isEmpty && matchers.contains { $0.matches(name: "input:\(id)") } }
    }

    mutating func emit(_ batch: [AppEvent], to onEvents: ([AppEvent], _ start: Timestamp) -> Void) {
        onEvents(batch, start)
        events += batch
    }

    private mutating func observe(_ input: AppInput, channel: Int?, at delivery: Timestamp) {
        guard observesInputs else { return }
        let named: Bool
        if let channel {
            named = observedChannels[channel]
        } else if let name = AppInputObservations.name(of: input) {
            named = observedCommands[name] ?? inputMatchers.contains { $0.matches(name: name) }
            observedCommands[name] = named
        } else {
            named = false
        }
        if named, let event = AppInputObservations.event(for: input) { observed.append((event, delivery, events.count)) }
    }

    /// Fires the timers due before the delivery, then delivers the input, so that it stands after them in the run.
    /// For a runner that never waits (a simulated speaker, or none) when nothing paces the replay.
    /// Returns the delivery.
    @discardableResult
    mutating func syncFeed(_ input: AppInput, channel: Int? = nil, arrival: Timestamp, to onEvents: ([AppEvent], _ start: Timestamp) -> Void) -> Timestamp {
        let delivery = max(arrival, runner.now ?? arrival)
        emit(runner.syncAdvance(to: delivery), to: onEvents)
        observe(input, channel: channel, at: delivery)
        emit(runner.syncFeed(input, deliveredAt: delivery), to: onEvents)
        return delivery
    }

    /// ``syncFeed(_:channel:arrival:to:)`` for a runner that may wait, or a paced replay.
    @discardableResult
    mutating func feed(_ input: AppInput, channel: Int? = nil, arrival: Timestamp, to onEvents: ([AppEvent], _ start: Timestamp) -> Void) async -> Timestamp {
        let delivery = max(arrival, runner.now ?? arrival)
        emit(await runner.advance(to: delivery), to: onEvents)
        observe(input, channel: channel, at: delivery)
        emit(await runner.feed(input, deliveredAt: delivery), to: onEvents)
        return delivery
    }

    /// Delivers a record of the inputs (``syncFeed(_:channel:arrival:to:)``), kept for the recording when there is one.
    mutating func syncFeed(_ record: TraceRecord, arrival: Timestamp, to onEvents: ([AppEvent], _ start: Timestamp) -> Void) {
        let delivery = syncFeed(.reading(record.reading, channel: channels[record.channel]), channel: record.channel, arrival: arrival, to: onEvents)
        received?.append((record, delivery))
    }

    /// ``syncFeed(_:arrival:to:)`` for a runner that may wait, or a paced replay.
    mutating func feed(_ record: TraceRecord, arrival: Timestamp, to onEvents: ([AppEvent], _ start: Timestamp) -> Void) async {
        let delivery = await feed(.reading(record.reading, channel: channels[record.channel]), channel: record.channel, arrival: arrival, to: onEvents)
        received?.append((record, delivery))
    }
}
