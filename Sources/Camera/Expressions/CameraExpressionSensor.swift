public import HAL
import FrameSources

/// The facial-expression input: a camera's frames through an ``ExpressionClassifier``, a reading per face of
/// each frame (in rank order, with a ``FaceTracker``'s ids that stay with a face across frames) or one no-face
/// reading, optionally smoothed per face over a window of frames. Faces are found by a ``StreamingDetection``:
/// in full every tenth frame, and near their last boxes between.
///
/// Frames in memory are converted to gray by OpenCV; frames stored as files (a replayed trace) are read
/// from `frameFolder`, the trace's folder. A frame that cannot be read or converted (a corrupt JPEG) is
/// skipped and the stream goes on; the camera's own errors, and a failing model, end the stream.
public struct CameraExpressionSensor<Source: Camera>: ExpressionSensor {
    /// The device: the camera's, as an expression sensor.
    public let info: DeviceInfo
    /// The camera.
    public let camera: Source
    /// The classifier.
    public let classifier: ExpressionClassifier
    /// Readings averaged, 1 for none.
    public let smoothing: Int
    /// Where relative frame files are, for replayed traces.
    public let frameFolder: String?
    /// How faces are found from frame to frame: a full detection every ``StreamingDetection/redetectEvery`` frames
    /// and a search near each face's last box between them; `redetectEvery: 1` detects every frame in full.
    public let detection: StreamingDetection

    /// Creates the sensor.
    public init(
        camera: Source, classifier: ExpressionClassifier, smoothing: Int = 1, frameFolder: String? = nil,
        detection: StreamingDetection = StreamingDetection()
    ) {
        var info = camera.info
        info.kind = .expression
        info.name = "\(camera.info.name) expressions"
        self.info = info
        self.camera = camera
        self.classifier = classifier
        self.smoothing = smoothing
        self.frameFolder = frameFolder
        self.detection = detection
    }

    /// Readings as frames arrive.
    public func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<ExpressionReading, any Error> {
        let frames = camera.readings(buffering: buffering)
        let classifier = classifier, smoothing = smoothing, folder = frameFolder, uri = info.uri, initialDetection = detection
        return AsyncThrowingStream(bufferingPolicy: buffering.asyncThrowingStreamPolicy(ExpressionReading.self)) { continuation in
            let task = Task {
                var smoother = ExpressionSmoother(window: smoothing)
                var tracker = FaceTracker()
                var detection = initialDetection
                do {
                    for try await frame in frames {
                        guard let gray = try? CVImage.image(of: frame, frameFolder: folder, as: .gray) else { continue }
                        let readings: [ExpressionReading]
                        do {
                            let faces = try detection.faces(in: gray, using: classifier)
                            readings = try classifier.readings(for: gray, faces: faces, at: frame.timestamp, tracker: &tracker)
                        } catch {
                            throw DeviceError(.ioFailure, uri: uri, "the expression model failed on frame \(frame.sequence): \(error)")
                        }
                        for reading in smoother.smooth(frame: readings) { continuation.yield(reading) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
