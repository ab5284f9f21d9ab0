public import HAL

/// Gives the faces of successive frames stable identities by overlap, and ranks each frame's faces.
///
/// - **Identity:** a face takes the id of the track whose last box overlaps it most, when the overlap
///   (intersection over union) is at least ``minimumOverlap``; pairs are matched greedily from the largest
///   overlap down, so two faces never share an id. A face that matches no track starts a new one, with the next id
///   (from 1, never reused). A track that finds no face is kept for ``patience`` frames, so a face the detector
///   misses for a frame keeps its id.
/// - **Rank:** a frame's faces are ordered by prominence, largest first, where a face's area counts less the
///   farther its centre is from the frame's centre: `area × (1 − d/2)`, with `d` the distance between the centres
///   over half the frame's diagonal (0 at the centre, 1 in a corner). Equal prominence goes to the lower id.
public struct FaceTracker: Sendable, Hashable {
    /// One face of a frame: its box, its identity, and its place in the frame.
    public struct TrackedFace: Sendable, Hashable {
        /// The detector's box.
        public var box: FaceBox
        /// The track's identity.
        public var id: Int
        /// The face's place in the frame, 0 for the most prominent.
        public var rank: Int
    }

    private struct Track: Sendable, Hashable {
        var id: Int
        var box: FaceBox
        var missed: Int
    }

    /// The least overlap (intersection over union) for a face to continue a track.
    public var minimumOverlap: Double
    /// Frames a track survives without a face.
    public var patience: Int
    private var tracks: [Track] = []
    private var nextID = 1

    /// Creates a tracker with no tracks.
    public init(minimumOverlap: Double = 0.3, patience: Int = 5) {
        self.minimumOverlap = minimumOverlap
        self.patience = patience
    }

    /// The frame's faces with their ids, in rank order.
    public mutating func track(_ boxes: [FaceBox], frameWidth: Int, frameHeight: Int) -> [TrackedFace] {
        var pairs: [(overlap: Double, face: Int, track: Int)] = []
        for (face, box) in boxes.enumerated() {
            for (track, candidate) in tracks.enumerated() {
                let overlap = Self.overlap(box, candidate.box)
                if overlap >= minimumOverlap { pairs.append((overlap, face, track)) }
            }
        }
        pairs.sort { ($0.overlap, -$0.face, -$0.track) > ($1.overlap, -$1.face, -$1.track) }
        var idOfFace = [Int?](repeating: nil, count: boxes.count)
        var matched = Set<Int>()
        for pair in pairs where idOfFace[pair.face] == nil && !matched.contains(pair.track) {
            idOfFace[pair.face] = tracks[pair.track].id
            tracks[pair.track].box = boxes[pair.face]
            tracks[pair.track].missed = 0
            matched.insert(pair.track)
        }
        for index in tracks.indices where !matched.contains(index) { tracks[index].missed += 1 }
        tracks.removeAll { $0.missed > patience }
        for (face, box) in boxes.enumerated() where idOfFace[face] == nil {
            idOfFace[face] = nextID
            tracks.append(Track(id: nextID, box: box, missed: 0))
            nextID += 1
        }
        let faces = boxes.indices.map { (box: boxes[$0], id: idOfFace[$0]!) }
        let ranked = faces.sorted { lhs, rhs in
            let (a, b) = (Self.prominence(lhs.box, frameWidth, frameHeight), Self.prominence(rhs.box, frameWidth, frameHeight))
            return a != b ? a > b : lhs.id < rhs.id
        }
        return ranked.enumerated().map { TrackedFace(box: $1.box, id: $1.id, rank: $0) }
    }

    /// Intersection over union of two boxes, 0 when they do not meet.
    public static func overlap(_ a: FaceBox, _ b: FaceBox) -> Double {
        let width = min(a.x + a.width, b.x + b.width) - max(a.x, b.x)
        let height = min(a.y + a.height, b.y + b.height) - max(a.y, b.y)
        guard width > 0, height > 0 else { return 0 }
        let intersection = Double(width * height)
        return intersection / (Double(a.width * a.height + b.width * b.height) - intersection)
    }

    /// A face's area, less the farther it is from the frame's centre.
    static func prominence(_ box: FaceBox, _ frameWidth: Int, _ frameHeight: Int) -> Double {
        let dx = Double(box.x) + Double(box.width) / 2 - Double(frameWidth) / 2
        let dy = Double(box.y) + Double(box.height) / 2 - Double(frameHeight) / 2
        let halfDiagonal = max(1, (Double(frameWidth * frameWidth + frameHeight * frameHeight)).squareRoot() / 2)
        let distance = min(1, (dx * dx + dy * dy).squareRoot() / halfDiagonal)
        return Double(box.width * box.height) * (1 - distance / 2)
    }
}
