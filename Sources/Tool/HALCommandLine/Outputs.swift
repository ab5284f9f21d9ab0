import Audio
import FrameSources
public import Session

extension SimulatedOutputs {
    /// What `hal run` and `hal test` replay through: a simulated speaker that reads clip files for their lengths and
    /// loudness and estimates speech (``Audio/MeasuredPlayback``), and a screen that decodes video files
    /// (``FrameSources/VideoFiles``).
    public static let devices = simulated(measure: MeasuredPlayback(speech: .estimated), videos: VideoFiles())
}
