import LibC
public import HAL

/// Where a 360° panorama viewer looks: yaw, pitch and field of view, in degrees.
public struct ViewDirection: Sendable, Hashable {
    /// Degrees clockwise from the panorama's forward direction, 0..<360.
    public var yaw: Double
    /// Degrees above the horizon, −90...90.
    public var pitch: Double
    /// Horizontal field of view in degrees.
    public var fieldOfView: Double

    /// Creates a direction.
    public init(yaw: Double, pitch: Double, fieldOfView: Double) {
        self.yaw = yaw
        self.pitch = pitch
        self.fieldOfView = fieldOfView
    }
}

/// The panorama viewer's motion controls: the view follows the device (motion mode) or
/// drag gestures (swipe mode, the default), and the user can switch at any time.
///
/// - **Swipe:** dragging moves the panorama with the finger: a full-width drag turns
///   the view by the field of view. On release the view coasts with the release
///   speed and slows exponentially (``Settings/inertiaTimeConstant``).
/// - **Motion:** yaw and pitch follow the device's back-camera direction from an
///   ``HAL/AttitudeSample``, relative to a reference heading.
/// - **Switching** keeps the view where it is: entering motion mode sets the reference
///   so that the current device direction maps to the current view.
/// - **Steer:** a rate control (a gamepad stick) turns the view at a held rate in swipe mode.
/// - **Recentre** turns the view back to the panorama's forward direction (yaw 0,
///   pitch 0); in motion mode the device's current direction becomes forward.
/// - **Pitch** is clamped at the poles, ±``Settings/pitchLimit``.
///
/// Time comes only from the timestamps of the events it is given: there is no clock
/// inside, so a replay at any rate gives the same path.
public struct ViewDirectionController: Sendable {
    /// The input that drives the view.
    public enum Mode: String, Sendable, Hashable, Codable {
        /// Drag gestures.
        case swipe
        /// The device's attitude.
        case motion
    }

    /// Tuning.
    public struct Settings: Sendable, Hashable {
        /// The horizontal field of view, degrees.
        public var fieldOfView: Double = 75
        /// The vertical field of view, degrees.
        public var verticalFieldOfView: Double = 50
        /// The largest pitch, degrees.
        public var pitchLimit: Double = 90
        /// Seconds for swipe inertia to fall to 1/e of the release speed.
        public var inertiaTimeConstant: Double = 0.35
        /// Seconds of drag history used to measure the release speed.
        public var releaseWindow: Double = 0.1

        /// The defaults.
        public init() {}
    }

    /// The settings.
    public let settings: Settings
    /// The input in use.
    public private(set) var mode: Mode = .swipe
    private var yaw = 0.0
    private var pitch = 0.0
    private var referenceHeading = 0.0
    private var referenceElevation = 0.0
    private var lastAttitude: AttitudeSample?
    private var drag: (pointer: Int, x: Double, y: Double)?
    private var dragHistory: [(time: Timestamp, yaw: Double, pitch: Double)] = []
    private var inertia: (start: Timestamp, yawRate: Double, pitchRate: Double, yaw: Double, pitch: Double)?
    private var steering: (start: Timestamp, yawRate: Double, pitchRate: Double)?

    /// Creates a controller in swipe mode, looking forward.
    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// The view at the last event, or at `time` when swipe inertia is coasting.
    public func view(at time: Timestamp? = nil) -> ViewDirection {
        var yaw = yaw
        var pitch = pitch
        if let inertia, let time, mode == .swipe {
            let elapsed = max(0, inertia.start.duration(to: time).seconds)
            let travelled = settings.inertiaTimeConstant * (1 - exp(-elapsed / settings.inertiaTimeConstant))
            yaw = inertia.yaw + inertia.yawRate * travelled
            pitch = inertia.pitch + inertia.pitchRate * travelled
        }
        if let steering, let time, mode == .swipe {
            let elapsed = max(0, steering.start.duration(to: time).seconds)
            yaw += steering.yawRate * elapsed
            pitch += steering.pitchRate * elapsed
        }
        return ViewDirection(yaw: Self.wrap(yaw), pitch: clampPitch(pitch), fieldOfView: settings.fieldOfView)
    }

    /// Switches input, keeping the view where it is.
    public mutating func setMode(_ newMode: Mode, at time: Timestamp) {
        guard newMode != mode else { return }
        settle(at: time)
        mode = newMode
        if newMode == .motion, let attitude = lastAttitude {
            referenceHeading = attitude.heading() - yaw
            referenceElevation = attitude.elevation() - pitch
        }
        drag = nil
        dragHistory.removeAll()
        if newMode == .motion { steering = nil }
    }

    /// Turns the view back to forward; in motion mode the device's direction becomes forward.
    public mutating func recentre() {
        inertia = nil
        steering = nil
        yaw = 0
        pitch = 0
        if let attitude = lastAttitude {
            referenceHeading = attitude.heading()
            referenceElevation = attitude.elevation()
        }
    }

    /// Takes the device's attitude. Moves the view in motion mode; in swipe mode it is
    /// only remembered, for a later switch.
    public mutating func handle(_ attitude: AttitudeSample) {
        lastAttitude = attitude
        guard mode == .motion else { return }
        yaw = attitude.heading() - referenceHeading
        pitch = attitude.elevation() - referenceElevation
    }

    /// Takes a pointer event. Drags move the view in swipe mode and are ignored in motion mode.
    public mutating func handle(_ event: PointerEvent) {
        guard mode == .swipe else { return }
        switch event.phase {
        case .press:
            settle(at: event.timestamp)
            drag = (event.pointer, event.x, event.y)
            dragHistory = [(event.timestamp, yaw, pitch)]
        case .move, .release:
            guard let current = drag, current.pointer == event.pointer else { return }
            yaw -= (event.x - current.x) * settings.fieldOfView
            pitch = clampPitch(pitch + (event.y - current.y) * settings.verticalFieldOfView)
            drag = (event.pointer, event.x, event.y)
            dragHistory.append((event.timestamp, yaw, pitch))
            dragHistory.removeAll { $0.time.duration(to: event.timestamp).seconds > settings.releaseWindow }
            if event.phase == .release {
                startInertia(at: event.timestamp)
                drag = nil
            }
        case .cancel:
            drag = nil
            dragHistory.removeAll()
        }
    }

    /// Takes a rate control's sample, such as a gamepad stick read as a virtual gyroscope
    /// (`evdev:…#stick`): in swipe mode the view turns at that rate until the next sample, right
    /// for a negative rate about y and up for a positive rate about x. Ignored in motion mode and
    /// for other quantities.
    public mutating func steer(_ sample: MotionSample) {
        guard mode == .swipe, sample.quantity == .angularVelocity else { return }
        settle(at: sample.timestamp)
        let yawRate = -sample.value.y * 180 / .pi
        let pitchRate = sample.value.x * 180 / .pi
        steering = yawRate == 0 && pitchRate == 0 ? nil : (sample.timestamp, yawRate, pitchRate)
    }

    private mutating func startInertia(at time: Timestamp) {
        guard let first = dragHistory.first, let last = dragHistory.last else { return }
        let span = first.time.duration(to: last.time).seconds
        guard span > 0 else { return }
        inertia = (time, (last.yaw - first.yaw) / span, (last.pitch - first.pitch) / span, yaw, pitch)
        dragHistory.removeAll()
    }

    /// Folds coasting inertia and steering into the view as of `time`; steering goes on from there.
    private mutating func settle(at time: Timestamp) {
        guard inertia != nil || steering != nil else { return }
        let current = view(at: time)
        yaw = current.yaw
        pitch = current.pitch
        inertia = nil
        if steering != nil { steering?.start = time }
    }

    private func clampPitch(_ value: Double) -> Double {
        min(settings.pitchLimit, max(-settings.pitchLimit, value))
    }

    private static func wrap(_ degrees: Double) -> Double {
        let wrapped = degrees.truncatingRemainder(dividingBy: 360)
        return wrapped < 0 ? wrapped + 360 : wrapped
    }
}
