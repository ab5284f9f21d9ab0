public import HALTestDoubles
public import TraceFormat
public import HAL

/// A HAL device that replays one channel of a trace.
///
/// It conforms to the HAL protocol of its reading type: a gyroscope channel is a
/// ``HAL/MotionSensor``, a location channel a ``HAL/LocationProvider``, and so on.
/// Each call to ``readings(buffering:)`` replays the channel from the start with the
/// device's options, paced on its pacing clock.
public struct ReplayedChannel<Element: ReadingConvertible>: ReadingSource {
    /// The device as the trace's header describes it, with the `trace:` URI that opens it.
    public let info: DeviceInfo
    private let replay: TraceReplay
    private let pacingClock: any Clock<Duration>
    private let virtualClock: VirtualClock?

    /// Creates a replay device for the channel `id` of `trace`.
    ///
    /// Throws when the channel is missing or does not carry `Element`s.
    public init(
        trace: Trace, channel id: String, options: ReplayOptions = ReplayOptions(),
        uri: String? = nil, pacingClock: any Clock<Duration> = ContinuousClock(), virtualClock: VirtualClock? = nil
    ) throws(DeviceError) {
        let uri = uri ?? "trace:\(trace.path ?? "memory")#\(id)"
        guard let index = trace.header.channelIndex(of: id) else {
            throw DeviceError(.notFound, uri: uri, "the trace has no channel '\(id)'")
        }
        let channel = trace.header.channels[index]
        guard Self.carries(channel.kind) else {
            throw DeviceError(.wrongKind, uri: uri, "channel '\(id)' is \(channel.kind.rawValue), not \(Element.self)")
        }
        var options = options
        options.channels = [id]
        do {
            replay = try TraceReplay(trace: trace, options: options)
        } catch {
            throw DeviceError(.unsupported, uri: uri, error.description)
        }
        info = channel.deviceInfo(uri: uri)
        self.pacingClock = pacingClock
        self.virtualClock = virtualClock
    }

    /// Whether a channel of `kind` holds readings of this device's type.
    public static func carries(_ kind: DeviceKind) -> Bool {
        ObjectIdentifier(kind.readingType) == ObjectIdentifier(Element.self)
    }

    /// Replays the channel.
    public func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<Element, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Element.self, bufferingPolicy: buffering.asyncThrowingStreamPolicy(Element.self))
        let replay = replay
        let pacingClock = pacingClock
        let virtualClock = virtualClock
        let task = Task {
            do {
                try await Self.run(replay, pacingClock, virtualClock) { record in
                    if let element = Element(record.reading) { continuation.yield(element) }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private static func run<C: Clock>(
        _ replay: TraceReplay, _ clock: C, _ virtualClock: VirtualClock?, _ deliver: (TraceRecord) -> Void
    ) async throws where C.Duration == Duration {
        try await replay.run(pacingClock: clock, clock: virtualClock) { deliver($0) }
    }

    /// Every reading of the channel, synchronously and as fast as possible.
    public func allReadings() -> [Element] {
        var elements: [Element] = []
        replay.forEach { record in
            if let element = Element(record.reading) { elements.append(element) }
        }
        return elements
    }
}

extension ReplayedChannel: MotionSensor where Element == MotionSample {}
extension ReplayedChannel: AttitudeSensor where Element == AttitudeSample {}
extension ReplayedChannel: PointerInput where Element == PointerEvent {}
extension ReplayedChannel: KeyInput where Element == KeyEvent {}
extension ReplayedChannel: LocationProvider where Element == LocationFix {}
extension ReplayedChannel: Camera where Element == Frame {}
extension ReplayedChannel: ExpressionSensor where Element == ExpressionReading {}
extension ReplayedChannel: PlaybackEventSource where Element == PlaybackEvent {}
extension ReplayedChannel: AppEventSource where Element == AppEvent {}
extension ReplayedChannel: ScalarSensor where Element == ScalarSample {}

/// Opens the replay device of the right type for a trace channel's kind.
public func openReplayedChannel(
    trace: Trace, channel id: String, options: ReplayOptions = ReplayOptions(), uri: String? = nil,
    pacingClock: any Clock<Duration> = ContinuousClock()
) throws(DeviceError) -> any ReadingSource {
    let uri = uri ?? "trace:\(trace.path ?? "memory")#\(id)"
    guard let index = trace.header.channelIndex(of: id) else {
        let known = trace.header.channels.map(\.id).joined(separator: ", ")
        throw DeviceError(.notFound, uri: uri, "the trace has no channel '\(id)' (channels: \(known))")
    }
    func make<E: ReadingConvertible>(_: E.Type) throws(DeviceError) -> any ReadingSource {
        try ReplayedChannel<E>(trace: trace, channel: id, options: options, uri: uri, pacingClock: pacingClock)
    }
    return try make(trace.header.channels[index].kind.readingType)
}
