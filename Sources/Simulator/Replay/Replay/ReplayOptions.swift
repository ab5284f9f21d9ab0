/// How fast a replay delivers records.
public enum ReplayPacing: Sendable, Hashable {
    /// No waiting: each record follows the last at once. Deterministic; the default in tests.
    case asFastAsPossible
    /// Records come at the pace they were recorded.
    case realtime
    /// Records come `factor` times faster than recorded (10 is ×10, 0.5 is half speed).
    case rate(Double)

    /// The speed-up factor, or `nil` for no pacing.
    public var factor: Double? {
        switch self {
        case .asFastAsPossible: nil
        case .realtime: 1
        case .rate(let factor): factor
        }
    }
}

/// What a replay delivers and how.
public struct ReplayOptions: Sendable, Hashable {
    /// The pace.
    public var pacing: ReplayPacing
    /// Skips records earlier than this far past the trace's first record.
    public var startOffset: Duration
    /// How many times to play the trace through; `nil` loops until the consumer stops.
    public var loops: Int?
    /// The ids of the channels to deliver, or `nil` for all.
    public var channels: Set<String>?
    /// Faults injected into each pass, or `nil` for none (`docs/faults.md`).
    public var faults: FaultPlan?

    /// Creates options; the defaults play every channel once, as fast as possible.
    public init(
        pacing: ReplayPacing = .asFastAsPossible, startOffset: Duration = .zero,
        loops: Int? = 1, channels: Set<String>? = nil, faults: FaultPlan? = nil
    ) {
        self.faults = faults
        self.pacing = pacing
        self.startOffset = startOffset
        self.loops = loops
        self.channels = channels
    }
}
