import LibC
public import AppCore
public import HAL
public import Motion

/// What the viewer shows and how it starts.
public struct ViewerConfig: Sendable, Hashable, Codable {
    /// The experience to go through.
    public var experience: Experience
    /// The starting input: `motion` or `swipe` (the default).
    public var mode: ViewDirectionController.Mode?

    /// Creates a config.
    public init(experience: Experience, mode: ViewDirectionController.Mode = .swipe) {
        self.experience = experience
        self.mode = mode
    }
}

/// The 360° experience viewer (Prep): look around panoramas with the motion controls, tap hotspots to
/// play sounds and videos, and go through doors.
///
/// - **View:** motion mode follows the device's attitude (fused here from gyroscope and accelerometer
///   samples, or taken from an attitude channel); swipe mode follows drags. `setMode motion|swipe`
///   switches at any time, keeping the view; `recentre` faces forward. `view.facing` is emitted when the
///   view's yaw or pitch, rounded to 15°, changes.
/// - **Taps** hit the nearest hotspot whose angular radius holds the tapped direction, through the
///   view's rectilinear projection (``ViewDirectionController/Settings`` field of view).
/// - **Sound** hotspots play on the speaker; tapping the playing one pauses it, tapping it again resumes;
///   another sound stops the first. Leaving a panorama stops its sound. The speaker's `finished`
///   playback events, when fed back as inputs (live runs do), end the sound, so a tap plays it again.
///   A speaker that fails mid-clip ends it as `sound.interrupted`.
/// - **Motion loss:** in motion mode, no motion reading for ``motionTimeout`` (from the start, a switch to
///   motion mode, or the last reading) shows `motion.lost`, and the view holds still (`setMode swipe` hands
///   it to swipes); the next reading shows `motion.restored`. The fusion does not integrate over the gap,
///   so the view does not leap when readings return.
/// - **Doors:** before every sound and video of the panorama has been played, a door shows the
///   incomplete-panorama warning: tapping the left half of its dialog (y 0.55–0.75) is "finish first"
///   (stay), the right half "go on".
/// - **Videos** open full screen on the ``HAL/VideoScreen`` (frames from the video file, the hotspot's `soundtrack` on
///   the speaker) and start by themselves. The controls (``VideoControls``: back at the top left, the timeline along
///   the top, play/pause at the bottom) hide ``controlsTimeout`` after the last touch; while hidden, any touch shows
///   them again and does nothing else. Play/pause pauses and resumes; a tap on the timeline seeks there, and a drag
///   that starts on it seeks to where the finger lifts; back closes the video, and so does its end. `video.closed`
///   says why and how many frames were shown.
/// - **Completion:** when every clip of the last panorama has been played, the congratulations show
///   (`experience.completed`); a tap acknowledges them and returns to the Home page (`home.shown`).
/// - **Exit:** the exit tab (``exitTab``, top right, over everything) or the `exit` command leaves the experience at
///   any time for the Home page, stopping what plays. At the Home page the viewer takes no more input.
public struct ExperienceViewer: AppLogic {
    /// `viewer`.
    public static let name = "viewer"
    /// Every event the app emits and every command it takes, so that a scenario's typo is refused before the run.
    public static let vocabulary: AppVocabulary? = AppVocabulary(
        events: [
            "congratulations.acknowledged", "experience.completed", "experience.exited", "experience.started",
            "home.shown", "mode.set", "motion.lost", "motion.restored", "panorama.entered", "panorama.left",
            "sound.finished", "sound.interrupted", "sound.paused", "sound.played", "sound.resumed", "sound.stopped",
            "tap.missed", "video.closed", "video.controls.hidden", "video.controls.shown", "video.opened",
            "video.paused", "video.resumed", "video.seeked", "view.facing", "view.recentred", "warning.finishFirst",
            "warning.goOn", "warning.incompletePanorama",
        ],
        commands: ["exit", "setMode", "recentre"],
        attributes: [
            "congratulations.acknowledged": ["title"],
            "experience.completed": ["title"],
            "experience.exited": ["panorama"],
            "experience.started": ["mode", "panoramas", "title"],
            "home.shown": [],
            "mode.set": ["mode"],
            "motion.lost": ["seconds"],
            "motion.restored": ["gap"],
            "panorama.entered": ["clips", "panorama"],
            "panorama.left": ["door", "panorama"],
            "sound.finished": ["hotspot"],
            "sound.interrupted": ["hotspot"],
            "sound.paused": ["hotspot"],
            "sound.played": ["clip", "hotspot"],
            "sound.resumed": ["hotspot"],
            "sound.stopped": ["hotspot"],
            "tap.missed": ["pitch", "yaw"],
            "video.closed": ["frames", "hotspot", "reason"],
            "video.controls.hidden": ["hotspot"],
            "video.controls.shown": ["hotspot"],
            "video.opened": ["clip", "hotspot"],
            "video.paused": ["hotspot"],
            "video.resumed": ["hotspot"],
            "video.seeked": ["hotspot", "position"],
            "view.facing": ["pitch", "yaw"],
            "view.recentred": [],
            "warning.finishFirst": ["panorama"],
            "warning.goOn": ["panorama"],
            "warning.incompletePanorama": ["panorama", "remaining"],
        ])
    /// How long motion mode waits for a motion reading before it shows `motion.lost`.
    public static let motionTimeout: Duration = .milliseconds(500)
    /// The loudness every clip plays at (Prep REQ2: about 40 dB on average, never above 50). The speaker measures
    /// each clip by EBU R 128 and brings it to −30 LUFS, never above −20 LUFS or a −1 dBTP peak; on a board whose
    /// volume is set so that −30 LUFS plays at 40 dB SPL, that is the spec's 40 dB with the 10 dB of headroom it
    /// allows. `speaker.started` says the gain (`docs/audio.md`).
    public static let loudness = LoudnessGuard(target: -30, ceiling: -20)
    /// The warning dialog's buttons: "finish first" on the left half, "go on" on the right.
    public static let warningDialog = ScreenRegion(x: 0, y: 0.55, width: 1, height: 0.2)
    /// The exit tab of the overlay, shown over the panorama, the video and the congratulations (Prep F9).
    public static let exitTab = ScreenRegion(x: 0.85, y: 0, width: 0.15, height: 0.12)
    /// How long a video's controls stay after the last touch (Prep F12).
    public static let controlsTimeout: Duration = .seconds(4)

    /// Where the video player's controls are, while shown (Prep F12).
    public enum VideoControls {
        /// Back: closes the video.
        public static let back = ScreenRegion(x: 0, y: 0, width: 0.15, height: 0.12)
        /// The timeline: a tap at `x`, or a drag that starts on it and lifts at `x`, seeks to `(x − 0.2) / 0.6` of the
        /// video.
        public static let timeline = ScreenRegion(x: 0.2, y: 0, width: 0.6, height: 0.12)
        /// Play/pause.
        public static let playPause = ScreenRegion(x: 0.4, y: 0.85, width: 0.2, height: 0.15)
    }

    private let experience: Experience
    private let clipFolder: String?
    private var controller: ViewDirectionController
    private var fusion = MotionFusion(usesMagnetometer: false)
    private var hasAttitude = false
    private var taps = TapDetector()
    private var panoramaIndex = 0
    private var played: Set<String> = []
    private var sound: (hotspot: String, paused: Bool)?
    private var warningDoor: Hotspot?
    private var completed = false
    /// The open video: its hotspot, its clip, whether paused, when its controls hide (`nil` while hidden), frames shown.
    private var player: (hotspot: String, clip: String, paused: Bool, controlsHide: Timestamp?, frames: Int)?
    /// The congratulations are showing, not yet acknowledged.
    private var congratulating = false
    private var atHome = false
    private var facing: (yaw: Int, pitch: Int)?
    private var lastMotion: Timestamp?
    private var motionLost = false

    /// Creates the viewer; the experience must keep the editor's rules. Relative clip paths are
    /// played from `clipFolder` (the config file's folder, for `hal run`); event logs name clips as written.
    public init(config: ViewerConfig, clipFolder: String? = nil) throws(AppConfigError) {
        self.clipFolder = clipFolder
        var experience = config.experience
        if experience.title == nil { experience.title = "experience #1" }
        try ExperienceLibrary.validate(experience, field: "experience")
        self.experience = experience
        controller = ViewDirectionController()
        if config.mode == .motion { controller.setMode(.motion, at: .zero) }
    }

    private var panorama: Panorama { experience.panoramas[panoramaIndex] }

    public mutating func start(at time: Timestamp, output: inout AppOutput) {
        output.emit("experience.started", at: time, [
            "title": .string(experience.title ?? ""), "panoramas": .int(Int64(experience.panoramas.count)),
            "mode": .string(controller.mode.rawValue),
        ])
        lastMotion = time  // motion mode waits for its first reading from the start
        enter(0, at: time, output: &output)
    }

    public var nextDeadline: Timestamp? {
        Timestamp.earliest(motionDeadline, player?.controlsHide)
    }

    private var motionDeadline: Timestamp? {
        guard controller.mode == .motion, !motionLost, !atHome, let lastMotion else { return nil }
        return Timestamp(nanoseconds: lastMotion.nanoseconds + Self.motionTimeoutNanoseconds)
    }

    /// ``motionTimeout`` in nanoseconds, worked out once: the deadline is asked for on every input.
    private static let motionTimeoutNanoseconds = motionTimeout.wholeNanoseconds

    public mutating func advance(to time: Timestamp, output: inout AppOutput) {
        while let deadline = nextDeadline, deadline <= time {
            if let player, player.controlsHide == deadline {
                self.player?.controlsHide = nil
                output.emit("video.controls.hidden", at: deadline, ["hotspot": .string(player.hotspot)])
            } else {
                motionLost = true
                output.emit("motion.lost", at: deadline, ["seconds": .rounded(Self.motionTimeout.seconds)])
            }
        }
    }

    public mutating func handle(_ input: AppInput, output: inout AppOutput) {
        switch input {
        case .reading(.motion(let sample), _):
            guard sample.quantity == .angularVelocity || sample.quantity == .acceleration else { break }
            motionArrived(at: sample.timestamp, output: &output)
            if let attitude = fusion.add(sample) { handle(attitude, output: &output) }
        case .reading(.attitude(let attitude), _):
            motionArrived(at: attitude.timestamp, output: &output)
            handle(attitude, output: &output)
        case .speakerFailed(let time, _):
            if let sound {
                self.sound = nil
                output.emit("sound.interrupted", at: time, ["hotspot": .string(sound.hotspot)])
            }
        case .reading(.frame, "video"):
            player?.frames += 1
        case .reading(.playback(let event), "video"):
            // The video ended, or the screen could not show it.
            if event.phase == .finished || event.phase == .stopped, let player, event.item == .clip(name: player.clip) {
                closeVideo(at: event.timestamp, reason: event.phase == .finished ? "finished" : "failed", output: &output)
            }
        case .reading(.playback(let event), _):
            // The speaker's own report that a clip ended: tapping the hotspot plays it again, not pauses.
            if event.phase == .finished, case .clip(let name) = event.item, let sound,
               panorama.hotspots.first(where: { $0.id == sound.hotspot })?.clip == name {
                self.sound = nil
                output.emit("sound.finished", at: event.timestamp, ["hotspot": .string(sound.hotspot)])
            }
        case .reading(.pointer(let event), _) where player != nil || congratulating || atHome:
            // Over the panorama: the video, the congratulations, or the Home page.
            if let gesture = taps.gesture(event) { touch(gesture, at: event.timestamp, output: &output) }
        case .reading(.pointer(let event), _):
            controller.handle(event)
            reportView(at: event.timestamp, output: &output)
            if let tap = taps.handle(event) { self.tap(x: tap.x, y: tap.y, at: event.timestamp, output: &output) }
        case .command(let command):
            handle(command, output: &output)
        default:
            break
        }
    }

    private mutating func motionArrived(at time: Timestamp, output: inout AppOutput) {
        if motionLost, !atHome, let lastMotion {
            motionLost = false
            output.emit("motion.restored", at: time, ["gap": .rounded(lastMotion.duration(to: time).seconds)])
        }
        lastMotion = time
    }

    private mutating func handle(_ attitude: AttitudeSample, output: inout AppOutput) {
        controller.handle(attitude)
        if !hasAttitude {
            hasAttitude = true
            if controller.mode == .motion { controller.recentre() }  // the device's first direction is forward
        }
        reportView(at: attitude.timestamp, output: &output)
    }

    private mutating func reportView(at time: Timestamp, output: inout AppOutput) {
        guard player == nil, !congratulating, !atHome else { return }  // the panorama is covered
        let view = controller.view(at: time)
        let rounded = (yaw: Int((view.yaw / 15).rounded()) * 15 % 360, pitch: Int((view.pitch / 15).rounded()) * 15)
        guard facing?.yaw != rounded.yaw || facing?.pitch != rounded.pitch else { return }
        facing = rounded
        output.emit("view.facing", at: time, ["yaw": .int(Int64(rounded.yaw)), "pitch": .int(Int64(rounded.pitch))])
    }

    // MARK: Taps

    private mutating func tap(x: Double, y: Double, at time: Timestamp, output: inout AppOutput) {
        if Self.exitTab.contains(x: x, y: y) { return exit(at: time, output: &output) }
        if let door = warningDoor {
            guard Self.warningDialog.contains(x: x, y: y) else { return }
            warningDoor = nil
            if x < 0.5 {
                output.emit("warning.finishFirst", at: time, ["panorama": .string(panorama.id)])
            } else {
                output.emit("warning.goOn", at: time, ["panorama": .string(panorama.id)])
                goThrough(door, at: time, output: &output)
            }
            return
        }
        let view = controller.view(at: time)
        let direction = Self.direction(ofTapAt: x, y, view: view, settings: controller.settings)
        let hit = panorama.hotspots
            .map { ($0, Self.angle(between: direction, Self.unitVector(yaw: $0.yaw, pitch: $0.pitch))) }
            .filter { $0.1 <= $0.0.size / 2 }
            .min { $0.1 < $1.1 }?.0
        guard let hotspot = hit else {
            output.emit("tap.missed", at: time, ["yaw": .rounded(direction.yaw, places: 0), "pitch": .rounded(direction.pitch, places: 0)])
            return
        }
        switch hotspot.kind {
        case .sound: tapSound(hotspot, at: time, output: &output)
        case .video:
            stopSound(at: time, output: &output)
            played.insert(key(hotspot))
            let clip = hotspot.clip ?? ""
            output.emit("video.opened", at: time, ["hotspot": .string(hotspot.id), "clip": .string(clip)])
            player = (hotspot.id, clip, false, time + Self.controlsTimeout, 0)
            taps = TapDetector()  // a touch under way began on the panorama, not on the video
            output.request(.open(VideoClip(
                name: clip, path: ClipFiles.path(clip, in: clipFolder),
                soundtrack: hotspot.soundtrack.map { ClipFiles.clip($0, in: clipFolder, loudnessGuard: Self.loudness) })))
            checkCompletion(at: time, output: &output)
        case .door:
            let remaining = panorama.clips.filter { !played.contains(key($0)) }
            if remaining.isEmpty {
                goThrough(hotspot, at: time, output: &output)
            } else {
                warningDoor = hotspot
                output.emit("warning.incompletePanorama", at: time, [
                    "panorama": .string(panorama.id), "remaining": .string(remaining.map(\.id).joined(separator: ",")),
                ])
            }
        }
    }

    private mutating func tapSound(_ hotspot: Hotspot, at time: Timestamp, output: inout AppOutput) {
        if let sound, sound.hotspot == hotspot.id {
            self.sound?.paused.toggle()
            output.emit(sound.paused ? "sound.resumed" : "sound.paused", at: time, ["hotspot": .string(hotspot.id)])
            output.request(sound.paused ? .resume : .pause)
            return
        }
        stopSound(at: time, output: &output)
        let clip = hotspot.clip ?? ""
        sound = (hotspot.id, false)
        output.emit("sound.played", at: time, ["hotspot": .string(hotspot.id), "clip": .string(clip)])
        output.request(.play(ClipFiles.clip(clip, in: clipFolder, loudnessGuard: Self.loudness)))
        played.insert(key(hotspot))
        checkCompletion(at: time, output: &output)
    }

    private mutating func stopSound(at time: Timestamp, output: inout AppOutput) {
        guard let sound else { return }
        self.sound = nil
        output.emit("sound.stopped", at: time, ["hotspot": .string(sound.hotspot)])
        output.request(.stop)
    }

    private func key(_ hotspot: Hotspot) -> String { "\(panorama.id)/\(hotspot.id)" }

    private mutating func checkCompletion(at time: Timestamp, output: inout AppOutput) {
        guard !completed, panoramaIndex == experience.panoramas.count - 1,
              panorama.clips.allSatisfy({ played.contains(key($0)) }) else { return }
        completed = true
        congratulating = true
        output.emit("experience.completed", at: time, ["title": .string(experience.title ?? "")])
    }

    // MARK: Video, congratulations, exit

    /// A gesture over the panorama: on the exit tab, the video's controls, or the congratulations.
    private mutating func touch(_ gesture: Gesture, at time: Timestamp, output: inout AppOutput) {
        if case .tap(let x, let y) = gesture, Self.exitTab.contains(x: x, y: y), !atHome { return exit(at: time, output: &output) }
        guard let player else {
            if congratulating, case .tap = gesture {
                congratulating = false
                leave("congratulations.acknowledged", ["title": .string(experience.title ?? "")], at: time, output: &output)
            }
            return
        }
        let hotspot = AppEventValue.string(player.hotspot)
        self.player?.controlsHide = time + Self.controlsTimeout
        guard player.controlsHide != nil else {
            output.emit("video.controls.shown", at: time, ["hotspot": hotspot])
            return
        }
        switch gesture {
        case .tap(let x, let y) where VideoControls.back.contains(x: x, y: y):
            output.request(.close)
            closeVideo(at: time, reason: "back", output: &output)
        case .tap(let x, let y) where VideoControls.playPause.contains(x: x, y: y):
            self.player?.paused.toggle()
            output.emit(player.paused ? "video.resumed" : "video.paused", at: time, ["hotspot": hotspot])
            output.request(player.paused ? VideoRequest.play : .pause)
        case .tap(let x, let y) where VideoControls.timeline.contains(x: x, y: y):
            seek(to: x, at: time, output: &output)
        case .swipe(let x, let y, let dx, _) where VideoControls.timeline.contains(x: x, y: y):
            seek(to: x + dx, at: time, output: &output)
        default:
            break
        }
    }

    /// Moves the video to where a finger let go of the timeline.
    private mutating func seek(to x: Double, at time: Timestamp, output: inout AppOutput) {
        guard let player else { return }
        let timeline = VideoControls.timeline
        let fraction = min(1, max(0, (x - timeline.x) / timeline.width))
        output.emit("video.seeked", at: time, ["hotspot": .string(player.hotspot), "position": .rounded(fraction, places: 2)])
        output.request(.seek(fraction))
    }

    /// Closes the video popup, back to the panorama.
    private mutating func closeVideo(at time: Timestamp, reason: String, output: inout AppOutput) {
        guard let player else { return }
        self.player = nil
        taps = TapDetector()  // a touch under way began on the video, not on the panorama
        output.emit("video.closed", at: time, [
            "hotspot": .string(player.hotspot), "reason": .string(reason), "frames": .int(Int64(player.frames)),
        ])
        facing = nil
        reportView(at: time, output: &output)
    }

    /// Leaves the experience for the Home page, stopping what plays.
    private mutating func exit(at time: Timestamp, output: inout AppOutput) {
        leave("experience.exited", ["panorama": .string(panorama.id)], at: time, output: &output)
    }

    /// Leaves for the Home page: what plays stops, the event `name` is logged, then `home.shown`.
    private mutating func leave(_ name: String, _ attributes: [String: AppEventValue], at time: Timestamp, output: inout AppOutput) {
        atHome = true  // the panorama is not shown again
        stopSound(at: time, output: &output)
        if player != nil {
            output.request(.close)
            closeVideo(at: time, reason: "exit", output: &output)
        }
        warningDoor = nil
        congratulating = false
        output.emit(name, at: time, attributes)
        output.emit("home.shown", at: time)
    }

    private mutating func goThrough(_ door: Hotspot, at time: Timestamp, output: inout AppOutput) {
        guard let target = experience.panoramas.firstIndex(where: { $0.id == door.to }) else { return }
        stopSound(at: time, output: &output)
        output.emit("panorama.left", at: time, ["panorama": .string(panorama.id), "door": .string(door.id)])
        enter(target, at: time, output: &output)
    }

    private mutating func enter(_ index: Int, at time: Timestamp, output: inout AppOutput) {
        panoramaIndex = index
        controller.recentre()
        facing = nil
        output.emit("panorama.entered", at: time, [
            "panorama": .string(panorama.id), "clips": .int(Int64(panorama.clips.count)),
        ])
        reportView(at: time, output: &output)
        checkCompletion(at: time, output: &output)
    }

    // MARK: Commands

    private mutating func handle(_ command: AppCommand, output: inout AppOutput) {
        let time = command.timestamp
        guard !atHome else { return output.refuse(command, "the experience has been left; the Home page takes no commands") }
        switch command.action {
        case "exit":
            exit(at: time, output: &output)
        case "setMode":
            guard let mode = command.arguments["mode"].flatMap(ViewDirectionController.Mode.init(rawValue:)) else {
                return output.refuse(command, "mode is motion or swipe")
            }
            controller.setMode(mode, at: time)
            taps = TapDetector()  // a drag under way is not a tap in the new mode
            (lastMotion, motionLost) = (time, false)  // motion mode waits for readings from now
            output.emit("mode.set", at: time, ["mode": .string(mode.rawValue)])
        case "recentre":
            controller.recentre()
            output.emit("view.recentred", at: time)
            reportView(at: time, output: &output)
        default:
            output.refuse(command, "unknown action")
        }
    }

    // MARK: Projection

    /// The direction (yaw, pitch in degrees) a tap at normalised `(x, y)` looks along, through a
    /// rectilinear view of the controller's fields of view.
    static func direction(ofTapAt x: Double, _ y: Double, view: ViewDirection, settings: ViewDirectionController.Settings) -> (yaw: Double, pitch: Double) {
        let radians = Double.pi / 180
        let u = (2 * x - 1) * tan(settings.fieldOfView / 2 * radians)
        let v = (1 - 2 * y) * tan(settings.verticalFieldOfView / 2 * radians)
        let pitch = view.pitch * radians, yaw = view.yaw * radians
        // Camera frame: x right, y up, z forward. Tilt by pitch, then turn by yaw.
        let up = v * cos(pitch) + sin(pitch)
        let forward = -v * sin(pitch) + cos(pitch)
        let east = u * cos(yaw) + forward * sin(yaw)
        let north = -u * sin(yaw) + forward * cos(yaw)
        var tapYaw = atan2(east, north) / radians
        if tapYaw < 0 { tapYaw += 360 }
        return (tapYaw, atan2(up, (east * east + north * north).squareRoot()) / radians)
    }

    static func unitVector(yaw: Double, pitch: Double) -> (Double, Double, Double) {
        let radians = Double.pi / 180
        return (sin(yaw * radians) * cos(pitch * radians), cos(yaw * radians) * cos(pitch * radians), sin(pitch * radians))
    }

    static func angle(between direction: (yaw: Double, pitch: Double), _ other: (Double, Double, Double)) -> Double {
        let a = unitVector(yaw: direction.yaw, pitch: direction.pitch)
        let dot = a.0 * other.0 + a.1 * other.1 + a.2 * other.2
        return acos(max(-1, min(1, dot))) * 180 / .pi
    }
}
