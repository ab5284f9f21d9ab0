public import HAL
public import FrameSources

/// Face detection for the frames of one stream: a full detection now and then, and between them a detection
/// limited to each face's last size and to the rows above its last box's bottom, which costs a part of a full one.
///
/// - A **full detection** (the classifier's settings over the whole frame) runs on the first frame, every
///   ``redetectEvery`` frames, whenever no face is being followed, and whenever a followed face is not found near
///   its last box (it left, or moved or grew too fast), so a face that is lost is looked for at once.
/// - **Between them**, each face is looked for at sizes from ``sizeRange`` times its last width (at least the
///   classifier's smallest face), with the classifier's scale step and neighbour count, in the frame's full width
///   from its top row down to ``searchMargin`` of the face's width below its last box. The detection that overlaps
///   the last box most continues it.
/// - **Why that area:** the detector scales the image it is given, and its windows step from that image's corner.
///   An area that starts at the frame's top-left corner and keeps its width scales like the whole frame, so the
///   detector sees the same windows and the boxes agree with a full detection's; a crop around the face alone was
///   faster but moved the boxes by up to 8 px (`docs/performance.md`).
/// - A face that comes into view while others are followed is found by the next periodic full detection, at most
///   ``redetectEvery`` − 1 frames late.
public struct StreamingDetection: Sendable, Hashable {
    /// Frames from one full detection to the next, at least 1 (1: every frame, as for single images).
    public var redetectEvery: Int
    /// How far below a face's last box it is searched for, as a fraction of the box's width.
    public var searchMargin: Double
    /// The sizes a followed face is searched for at, as fractions of its last width.
    public var sizeRange: ClosedRange<Double>
    /// Full detections run so far.
    public private(set) var fullDetections = 0
    /// Frames whose faces were found near their last boxes.
    public private(set) var followedFrames = 0
    private var boxes: [FaceBox] = []
    private var sinceFull = 0

    /// Creates the detection for a new stream.
    public init(redetectEvery: Int = 10, searchMargin: Double = 0.5, sizeRange: ClosedRange<Double> = 0.75...1.34) {
        self.redetectEvery = max(1, redetectEvery)
        self.searchMargin = searchMargin
        self.sizeRange = sizeRange
    }

    /// The faces of the stream's next frame.
    public mutating func faces(in gray: CVImage, using classifier: ExpressionClassifier) throws(CameraError) -> [FaceBox] {
        guard !boxes.isEmpty, sinceFull + 1 < redetectEvery else { return try detectAll(gray, classifier) }
        var found: [FaceBox] = []
        for box in boxes {
            let bottom = box.y + box.height + Int((Double(box.width) * searchMargin).rounded())
            let area = FaceBox(x: 0, y: 0, width: gray.width, height: min(gray.height, bottom))
            let smallest = max(classifier.detection.minimumSize, Int(Double(box.width) * sizeRange.lowerBound))
            let largest = max(smallest, Int((Double(box.width) * sizeRange.upperBound).rounded(.up)))
            let candidates = try classifier.faces(in: gray, within: area, sizes: smallest...largest)
            guard let best = candidates.max(by: { FaceTracker.overlap($0, box) < FaceTracker.overlap($1, box) }),
                FaceTracker.overlap(best, box) > 0, !found.contains(where: { FaceTracker.overlap($0, best) > 0.5 })
            else { return try detectAll(gray, classifier) }
            found.append(best)
        }
        boxes = found
        sinceFull += 1
        followedFrames += 1
        return found
    }

    private mutating func detectAll(_ gray: CVImage, _ classifier: ExpressionClassifier) throws(CameraError) -> [FaceBox] {
        boxes = try classifier.faces(in: gray)
        sinceFull = 0
        fullDetections += 1
        return boxes
    }
}
