public import HAL

/// How ``TracePlot`` draws a kind's channels: as a panel of series over time, as marks in the events lanes, or
/// both. A kind with neither (and not a location or attitude kind, which share the route and attitude panels) is
/// left out of the picture.
///
/// The built-in kinds have theirs; a program that adds a kind registers its own with ``register(_:for:)``, as it
/// registers the kind's description. A kind of ``HAL/ScalarSample``s is drawn as one series with no registration.
public struct KindPlot: Sendable {
    /// A panel with one line per value of each reading.
    public struct Series: Sendable {
        /// The lines' names, one per value.
        public var names: [String]
        /// A reading's values, one per name; `nil` leaves the reading out.
        public var values: @Sendable (Reading) -> [Double]?
        /// What the panel's title says after the channel id, such as `expression scores`; `nil` for the kind and its
        /// units.
        public var subject: String?
        /// The value axis's label, or `nil` for the channel's units.
        public var units: String?
        /// A fixed value range, or `nil` to fit the values.
        public var fixed: ClosedRange<Double>?
        /// The panel's height in pixels.
        public var height: Double
        /// Panels of a lower rank are drawn first (motion and numbers 0, the attitude panels 1, expressions 2).
        public var rank: Int

        /// A series panel.
        public init(
            names: [String], subject: String? = nil, units: String? = nil, fixed: ClosedRange<Double>? = nil, height: Double = 170,
            rank: Int = 0, values: @escaping @Sendable (Reading) -> [Double]?
        ) {
            self.names = names
            self.values = values
            self.subject = subject
            self.units = units
            self.fixed = fixed
            self.height = height
            self.rank = rank
        }
    }

    /// A mark a reading makes in its channel's events lane.
    public enum LaneMark: Sendable, Hashable {
        /// A tick with a label (an app event).
        case event(String)
        /// The start of a stretch labelled `label`, drawn until the next ``end`` (a playback).
        case start(String)
        /// The end of the open stretch.
        case end
        /// A key: a long tick when pressed, a short one when released.
        case key(pressed: Bool)
        /// A pointer: a large dot when pressed, a small one otherwise.
        case pointer(pressed: Bool)
    }

    /// The channel's series panel, or `nil` for none.
    public var series: Series?
    /// The lane mark of each reading, or `nil` for no lane.
    public var lane: (@Sendable (Reading) -> LaneMark?)?

    /// A kind's drawing.
    public init(series: Series? = nil, lane: (@Sendable (Reading) -> LaneMark?)? = nil) {
        self.series = series
        self.lane = lane
    }

    /// Draws `kind`'s channels with `plot` from now on, in place of what was registered before.
    public static func register(_ plot: KindPlot, for kind: DeviceKind) {
        registered.withLock { $0[kind] = plot }
    }

    /// How `kind`'s channels are drawn: registered, built in, or, for ``HAL/ScalarSample`` readings, as one series.
    public static func plot(for kind: DeviceKind) -> KindPlot {
        registered.withLock { $0[kind] } ?? builtIn[kind] ?? scalar
    }

    private static let registered = Locked<[DeviceKind: KindPlot]>([:])

    /// Numbers of a ``HAL/ScalarSample`` kind, as one line.
    private static let scalar = KindPlot(series: Series(names: [], height: 150) { reading in
        guard case .custom(let custom) = reading, let sample = custom.value as? ScalarSample else { return nil }
        return [sample.value]
    })

    private static let builtIn: [DeviceKind: KindPlot] = {
        let motion = KindPlot(series: Series(names: ["x", "y", "z"]) { reading in
            guard case .motion(let sample) = reading else { return nil }
            return [sample.value.x, sample.value.y, sample.value.z]
        })
        let expression = KindPlot(series: Series(
            names: Expression.allCases.map(\.rawValue), subject: "expression scores", units: "score", fixed: 0...1, height: 190, rank: 2
        ) { reading in
            // The most prominent face.
            guard case .expression(let reading) = reading, reading.rank == 0, let scores = reading.scores else { return nil }
            return Expression.allCases.map { scores[$0] }
        })
        let app = KindPlot(lane: { reading in
            guard case .appEvent(let event) = reading else { return nil }
            return .event(event.name)
        })
        let speaker = KindPlot(lane: { reading in
            guard case .playback(let event) = reading else { return nil }
            switch event.phase {
            case .started, .resumed:
                switch event.item {
                case .clip(let clip): return .start(clip)
                case .speech(let text, _): return .start("“\(text)”")
                }
            case .paused, .finished, .stopped: return .end
            }
        })
        let keys = KindPlot(lane: { reading in
            guard case .key(let key) = reading else { return nil }
            return .key(pressed: key.state == .press)
        })
        let pointer = KindPlot(lane: { reading in
            guard case .pointer(let pointer) = reading else { return nil }
            return .pointer(pressed: pointer.phase == .press)
        })
        return [
            .gyroscope: motion, .accelerometer: motion, .magnetometer: motion, .expression: expression,
            .app: app, .speaker: speaker, .keys: keys, .pointer: pointer,
            .location: KindPlot(), .attitude: KindPlot(), .camera: KindPlot(),
        ]
    }()
}
