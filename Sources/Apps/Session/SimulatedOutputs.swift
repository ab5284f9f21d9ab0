public import HAL
public import HALTestDoubles

/// The speaker and the screen a replay makes for itself when none is handed to it: fresh for each replay, on the
/// replay's time, as slow as the fault plan says.
///
/// ``doubles``, the default, needs no audio or video library: speech lasts its estimated length, a clip in memory
/// its samples' length, and videos are `ScriptedVideos`. `hal` hands ``simulated(measure:videos:)``
/// with the `Audio` module's `MeasuredPlayback` (clip files read for their lengths and loudness) and the
/// `FrameSources` module's `VideoFiles` (videos decoded by OpenCV).
public struct SimulatedOutputs: Sendable {
    /// A speaker whose sound starts the given latency after each request.
    public var speaker: @Sendable (SpeakerLatency) -> any Speaker
    /// A screen whose videos show their first frame the given delay after each request.
    public var screen: @Sendable (_ startDelay: Duration) -> any VideoScreen

    /// Outputs made by `speaker` and `screen`.
    public init(
        speaker: @escaping @Sendable (SpeakerLatency) -> any Speaker,
        screen: @escaping @Sendable (_ startDelay: Duration) -> any VideoScreen
    ) {
        self.speaker = speaker
        self.screen = screen
    }

    /// A `CapturingSpeaker` whose sounds `measure` measures, and a `SimulatedScreen`
    /// showing what `videos` opens.
    public static func simulated(measure: any SoundMeasure, videos: any ScreenVideoSource) -> SimulatedOutputs {
        SimulatedOutputs(
            speaker: { latency in
                CapturingSpeaker(
                    info: DeviceInfo(uri: "capture:simulated", name: "simulated speaker", kind: .speaker, backend: "capture"),
                    clock: VirtualClock(), latency: latency, measure: measure)
            },
            screen: { delay in SimulatedScreen(videos: videos, startDelay: delay) })
    }

    /// Test doubles alone: `EstimatedSound` and `ScriptedVideos` with no videos.
    public static let doubles = simulated(measure: EstimatedSound(), videos: ScriptedVideos())
}
