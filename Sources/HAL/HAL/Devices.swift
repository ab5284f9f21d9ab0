/// Anything the HAL can open: a sensor, an input, a camera, a speaker.
public protocol Device: Sendable {
    /// What the device is and how to name it.
    var info: DeviceInfo { get }
}

/// How a reading stream holds readings its consumer has not taken yet.
public enum ReadingBuffering: Sendable, Hashable {
    /// Keep everything: nothing is lost, memory grows while the consumer is behind.
    case unbounded
    /// Keep the newest `n` readings and drop older ones (right for a live view).
    case newest(Int)
    /// Keep the oldest `n` readings and drop newer ones.
    case oldest(Int)
}

/// A device that delivers a stream of timestamped readings.
///
/// The stream ends when the device has no more to give (a trace is over) and
/// throws a ``DeviceError`` when the device fails or goes away. Ending iteration
/// or cancelling the consuming task tears the stream down and releases the device's
/// resources for that stream.
public protocol ReadingSource<Element>: Device {
    /// The reading type.
    associatedtype Element: ReadingConvertible

    /// Starts delivering readings.
    func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<Element, any Error>
}

extension ReadingSource {
    /// The readings wrapped as ``Reading`` values, for code that handles every kind alike
    /// (a recorder, a printer).
    public func anyReadings(buffering: ReadingBuffering = .unbounded) -> AsyncThrowingStream<Reading, any Error> {
        readings(buffering: buffering).anyReadings(buffering: buffering)
    }
}

extension AsyncThrowingStream where Element: ReadingConvertible, Failure == any Error {
    /// The stream's values wrapped as ``Reading``s, such as a speaker's playback events fed to code that
    /// takes readings. Ending iteration cancels the forwarding and this stream.
    public func anyReadings(buffering: ReadingBuffering = .unbounded) -> AsyncThrowingStream<Reading, any Error> {
        AsyncThrowingStream<Reading, any Error>(bufferingPolicy: buffering.asyncThrowingStreamPolicy(Reading.self)) { continuation in
            let task = Task {
                do {
                    for try await element in self { continuation.yield(element.reading) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

extension ReadingBuffering {
    /// The matching buffering policy of `AsyncThrowingStream`.
    public func asyncThrowingStreamPolicy<Element>(
        _ element: Element.Type
    ) -> AsyncThrowingStream<Element, any Error>.Continuation.BufferingPolicy {
        switch self {
        case .unbounded: .unbounded
        case .newest(let count): .bufferingNewest(count)
        case .oldest(let count): .bufferingOldest(count)
        }
    }
}

/// A gyroscope, accelerometer or magnetometer.
public protocol MotionSensor: ReadingSource where Element == MotionSample {}

/// A source of attitude: a fusion filter, a device that fuses on board, or ground truth.
public protocol AttitudeSensor: ReadingSource where Element == AttitudeSample {}

/// A touchscreen, touchpad, mouse or gesture script: swipes and taps.
public protocol PointerInput: ReadingSource where Element == PointerEvent {}

/// Keys and buttons.
public protocol KeyInput: ReadingSource where Element == KeyEvent {}

/// A source of location fixes: a GPS receiver, gpsd, a file, a simulated walk.
public protocol LocationProvider: ReadingSource where Element == LocationFix {}

/// A source of camera frames.
public protocol Camera: ReadingSource where Element == Frame {}

/// A source of facial-expression readings: a camera with a classifier, or a script.
public protocol ExpressionSensor: ReadingSource where Element == ExpressionReading {}

/// A source of recorded playback events (a speaker channel of a trace).
public protocol PlaybackEventSource: ReadingSource where Element == PlaybackEvent {}

/// A source of recorded app events (an app channel of a trace).
public protocol AppEventSource: ReadingSource where Element == AppEvent {}

/// Sound output: plays clips and speaks text, and reports what it did as ``PlaybackEvent``s.
///
/// Each call returns once the request is accepted; the ``events(buffering:)`` stream
/// says when sound started and ended.
public protocol Speaker: Device {
    /// Plays a clip.
    func play(_ clip: AudioClip) async throws
    /// Speaks text with text-to-speech.
    func speak(_ utterance: Utterance) async throws
    /// Pauses what is playing.
    func pause() async throws
    /// Resumes after a pause.
    func resume() async throws
    /// Stops what is playing and drops anything queued.
    func stop() async throws
    /// Sets the output volume, from 0 (silent) to 1 (full).
    func setVolume(_ volume: Double) async throws
    /// What the speaker played, as it happens.
    func events(buffering: ReadingBuffering) -> AsyncThrowingStream<PlaybackEvent, any Error>
}

/// A request to a ``Speaker``: what an app asks of it.
public enum SpeakerRequest: Sendable, Hashable {
    /// Play a clip.
    case play(AudioClip)
    /// Speak text.
    case speak(Utterance)
    /// Pause what is playing.
    case pause
    /// Resume after a pause.
    case resume
    /// Stop what is playing and drop anything queued.
    case stop
    /// Set the output volume, 0 (silent) to 1 (full).
    case setVolume(Double)
}

extension Speaker {
    /// Makes `request` on the speaker: ``play(_:)``, ``speak(_:)``, ``pause()``, ``resume()``, ``stop()`` or
    /// ``setVolume(_:)``.
    public func perform(_ request: SpeakerRequest) async throws {
        switch request {
        case .play(let clip): try await play(clip)
        case .speak(let utterance): try await speak(utterance)
        case .pause: try await pause()
        case .resume: try await resume()
        case .stop: try await stop()
        case .setVolume(let volume): try await setVolume(volume)
        }
    }
}

/// A speaker that plays in virtual time: its playback events follow from the requests and a latency model, not from a
/// device, so a runner replaying a trace can tell it the time and collect its events in order.
///
/// `AppCore`'s runner does this for every virtual-time speaker: requests are made at the time of the input that
/// caused them, and each event is handed back to the app at its own time, so a replay's log shows when each sound
/// started, at any replay rate.
public protocol VirtualTimeSpeaker: Speaker {
    /// Moves the speaker's time to `time` (never back): requests that follow are made then. Returns the playback
    /// events due at or before `time`, in order; from then on the speaker is driven only this way.
    func advance(to time: Timestamp) -> [PlaybackEvent]
    /// When the next playback event is due, if one is.
    var nextEventTime: Timestamp? { get }
    /// Makes `request` at the speaker's time, at once: what the asynchronous requests do, without suspending, so that
    /// a runner replaying a trace never waits for the speaker (`AppRunner`'s `sync` methods).
    func performNow(_ request: SpeakerRequest) throws
}
