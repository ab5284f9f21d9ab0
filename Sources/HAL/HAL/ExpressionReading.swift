/// The seven basic facial expressions, in the order the FER2013 classifiers output them.
public enum Expression: String, Sendable, Hashable, Codable, CaseIterable {
    /// Angry.
    case angry
    /// Disgust.
    case disgust
    /// Fear.
    case fear
    /// Happy.
    case happy
    /// Sad.
    case sad
    /// Surprise.
    case surprise
    /// Neutral.
    case neutral
}

/// A face's bounding box in the frame, in pixels.
public struct FaceBox: Sendable, Hashable, Codable {
    /// Left edge.
    public var x: Int
    /// Top edge.
    public var y: Int
    /// Width.
    public var width: Int
    /// Height.
    public var height: Int

    /// Creates a box.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// A score between 0 and 1 for each of the seven ``Expression``s.
public struct ExpressionScores: Sendable, Hashable {
    /// The scores in `Expression.allCases` order.
    public private(set) var values: [Double]

    /// Creates scores from one value per expression, in `Expression.allCases` order.
    /// Returns `nil` unless there are exactly seven values.
    public init?(_ values: [Double]) {
        guard values.count == Expression.allCases.count else { return nil }
        self.values = values
    }

    /// Creates scores with `score` for `expression` and the rest shared equally.
    public init(peak expression: Expression, score: Double) {
        let rest = (1 - score) / Double(Expression.allCases.count - 1)
        values = Expression.allCases.map { $0 == expression ? score : rest }
    }

    /// The score of one expression.
    public subscript(expression: Expression) -> Double {
        get { values[Expression.allCases.firstIndex(of: expression)!] }
        set { values[Expression.allCases.firstIndex(of: expression)!] = newValue }
    }

    /// The expression with the highest score; the earliest in order on a tie.
    public var dominant: Expression {
        var best = 0
        for index in values.indices where values[index] > values[best] { best = index }
        return Expression.allCases[best]
    }
}

/// One facial-expression reading: where the face is and how much it shows each expression.
///
/// A frame with several faces gives one reading per face, one after another with the frame's timestamp, in
/// ``rank`` order: rank 0 is the frame's most prominent face (the largest, then the most centred), the one an
/// app that follows a single child should score. ``faceID`` is the tracker's identity for the face, the same
/// across frames while the face stays in view; sources that do not track (a scripted timeline, an older trace)
/// leave it `nil`.
public struct ExpressionReading: Sendable, Hashable {
    /// When the frame the reading came from was captured.
    public var timestamp: Timestamp
    /// The face, or `nil` when no face was found. A reading with no face has no scores.
    public var face: FaceBox?
    /// The scores, present exactly when a face was found.
    public var scores: ExpressionScores?
    /// The face's identity across frames, or `nil` when the source does not track faces.
    public var faceID: Int?
    /// The face's place in its frame, 0 for the most prominent.
    public var rank: Int
    /// How many faces its frame has: 1 for a single face, 0 in a reading with no face.
    public var faceCount: Int

    /// Creates a reading for a face, the `rank`th of `faceCount` in its frame.
    public init(timestamp: Timestamp, face: FaceBox, scores: ExpressionScores, faceID: Int? = nil, rank: Int = 0, faceCount: Int = 1) {
        self.timestamp = timestamp
        self.face = face
        self.scores = scores
        self.faceID = faceID
        self.rank = rank
        self.faceCount = faceCount
    }

    /// A reading that says no face was in view.
    public static func noFace(at timestamp: Timestamp) -> ExpressionReading {
        ExpressionReading(timestamp: timestamp)
    }

    private init(timestamp: Timestamp) {
        self.timestamp = timestamp
        self.face = nil
        self.scores = nil
        self.faceID = nil
        self.rank = 0
        self.faceCount = 0
    }

    /// The expression with the highest score, or `nil` when no face was found.
    public var dominant: Expression? { scores?.dominant }
}
