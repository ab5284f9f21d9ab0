/// The kinds of device the HAL covers, and the kinds of channel a trace holds.
public enum DeviceKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Angular rate in rad/s.
    case gyroscope
    /// Proper acceleration in m/s².
    case accelerometer
    /// Magnetic field in µT.
    case magnetometer
    /// Orientation as a quaternion in a stated earth frame: a fused estimate or ground truth.
    case attitude
    /// Touchscreen, touchpad, mouse or scripted gestures.
    case pointer
    /// Keys and buttons.
    case keys
    /// GPS receivers, gpsd, and files or walks of fixes.
    case location
    /// Camera frames.
    case camera
    /// Facial-expression readings.
    case expression
    /// Speaker output: what was played or spoken.
    case speaker
    /// An app's own output events.
    case app

    /// The unit string a trace header must give for this kind, or `nil` where the kind has none.
    ///
    /// Readings are always in these units; a backend converts before delivering.
    public var units: String? {
        switch self {
        case .gyroscope: "rad/s"
        case .accelerometer: "m/s^2"
        case .magnetometer: "uT"
        case .location: "deg,m,m/s"
        case .pointer: "normalized"
        case .attitude, .keys, .camera, .expression, .speaker, .app: nil
        }
    }

    /// The motion quantity measured by this kind, for the three motion kinds.
    public var motionQuantity: MotionQuantity? { MotionQuantity(rawValue: rawValue) }

    /// The value type a device of this kind delivers.
    public var readingType: any ReadingConvertible.Type {
        switch self {
        case .gyroscope, .accelerometer, .magnetometer: MotionSample.self
        case .attitude: AttitudeSample.self
        case .pointer: PointerEvent.self
        case .keys: KeyEvent.self
        case .location: LocationFix.self
        case .camera: Frame.self
        case .expression: ExpressionReading.self
        case .speaker: PlaybackEvent.self
        case .app: AppEvent.self
        }
    }

    /// Whether the kind records outputs (what was played, what the app did) rather than inputs.
    public var isOutput: Bool { self == .speaker || self == .app }
}
