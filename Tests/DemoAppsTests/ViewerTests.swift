import HALTestDoubles
import LibC
import AppCore
import DemoApps
import Audio
import HAL
import Testing
import TestSupport
import Motion

@Suite struct ViewerTests {
    /// One panorama ahead with a sound at yaw 0 and a door at yaw 180 to a second panorama holding a video.
    static func experience() -> Experience {
        Experience(title: "Two rooms", panoramas: [
            Panorama(id: "one", hotspots: [
                Hotspot(id: "song", kind: .sound, yaw: 0, pitch: 0, size: 20, clip: "song.wav"),
                Hotspot(id: "door", kind: .door, yaw: 180, pitch: 0, size: 30, to: "two"),
            ]),
            Panorama(id: "two", hotspots: [Hotspot(id: "film", kind: .video, yaw: 0, pitch: 0, size: 20, clip: "film.mp4")]),
        ])
    }

    static func drag(_ start: Double, from: Double, to: Double, steps: Int = 10) -> [AppInput] {
        var inputs: [AppInput] = [.reading(.pointer(PointerEvent(timestamp: at(start), phase: .press, x: from, y: 0.5)))]
        for step in 1...steps {
            let x = from + (to - from) * Double(step) / Double(steps)
            inputs.append(.reading(.pointer(PointerEvent(timestamp: at(start + 0.02 * Double(step)), phase: .move, x: x, y: 0.5))))
        }
        return inputs
    }

    /// The sound ahead (yaw 0), a door just right of it (yaw 25), a video just left (yaw 335): all in the first view.
    static func oneView(clip: String = "song.wav") -> Experience {
        Experience(title: "One view", panoramas: [
            Panorama(id: "one", hotspots: [
                Hotspot(id: "song", kind: .sound, yaw: 0, pitch: 0, size: 20, clip: clip),
                Hotspot(id: "door", kind: .door, yaw: 25, pitch: 0, size: 16, to: "two"),
                Hotspot(id: "film", kind: .video, yaw: 335, pitch: 0, size: 16, clip: "film.mp4"),
            ]),
            Panorama(id: "two", hotspots: []),
        ])
    }

    /// Where a hotspot at `yaw` (degrees, pitch 0) is on screen when facing forward with a 75° field of view.
    static func screenX(yaw: Double) -> Double { 0.5 + 0.5 * tan(yaw * .pi / 180) / tan(37.5 * .pi / 180) }

    @Test func aSoundPausedAndThePanoramaLeftIsStoppedOnTheSpeaker() async throws {
        let clip = packageRoot + "/traces/viewer/clips/hall-welcome.wav"  // 5.7 s: still playing at the taps
        let speaker = CapturingSpeaker(
            info: DeviceInfo(uri: "capture:test", name: "test", kind: .speaker, backend: "capture"), clock: VirtualClock())
        // With no screen, the video closes at once as failed, and the door is in view again.
        let inputs = tap(1, 0.5, 0.5) + tap(2, 0.5, 0.5) + tap(3, Self.screenX(yaw: -25), 0.5) + tap(4, Self.screenX(yaw: 25), 0.5)
        let log = await events(try ExperienceViewer(config: ViewerConfig(experience: Self.oneView(clip: clip))), inputs, speaker: speaker)
        // The runner drives the speaker in the taps' time: it started, paused and stopped the clip.
        #expect(names(log) == [
            "experience.started", "panorama.entered", "view.facing", "sound.played", "speaker.started", "sound.paused",
            "speaker.paused", "sound.stopped", "video.opened", "screen.failed", "video.closed", "view.facing", "speaker.stopped", "panorama.left", "panorama.entered",
            "view.facing", "experience.completed",
        ])
        #expect(log.filter { $0.name.hasPrefix("speaker.") }.map(\.timestamp) == [at(1.08), at(2.08), at(3.08)])
        // The speaker played the clip, paused it and was stopped once: one capture, ended by the stop.
        #expect(speaker.captures.map(\.item) == [.clip(name: clip)])
        let capture = try #require(speaker.captures.first)
        #expect(capture.end < capture.start + capture.duration)
    }

    @Test func aClipTheSpeakerFinishedPlaysAgainOnTheNextTap() async throws {
        var inputs = tap(1, 0.5, 0.5)
        inputs.append(.reading(.playback(PlaybackEvent(timestamp: at(3), phase: .finished, item: .clip(name: "song.wav")))))
        inputs += tap(4, 0.5, 0.5)
        let log = await events(try ExperienceViewer(config: ViewerConfig(experience: Self.oneView())), inputs)
        #expect(log.named("sound.finished").map(\.timestamp) == [at(3)])
        #expect(log.named("sound.played").count == 2)
        #expect(log.named("sound.paused").isEmpty)
    }

    @Test func aDoorBeforeEveryClipWarnsFinishFirstStaysAndGoOnLeaves() async throws {
        let door = Self.screenX(yaw: 25)
        var inputs = tap(1, 0.5, 0.5) + tap(2, door, 0.5)  // the sound, then the door with the video unplayed
        inputs += tap(3, 0.5, 0.3)  // outside the dialog: nothing
        inputs += tap(4, 0.25, 0.65)  // finish first
        inputs += tap(5, door, 0.5) + tap(6, 0.75, 0.65)  // the door again, go on
        let log = await events(try ExperienceViewer(config: ViewerConfig(experience: Self.oneView())), inputs)
        #expect(log.named("warning.incompletePanorama").map { $0.attributes["remaining"] } == [.string("film"), .string("film")])
        #expect(log.named("warning.finishFirst").map(\.timestamp) == [at(4.08)])
        #expect(log.named("warning.goOn").map(\.timestamp) == [at(6.08)])
        #expect(log.named("panorama.left").map(\.timestamp) == [at(6.08)])
        #expect(log.named("sound.stopped").map(\.timestamp) == [at(6.08)])
        #expect(log.named("tap.missed").isEmpty)
    }

    @Test func switchingToSwipeMidDragKeepsTheViewAndTheReleaseIsNoTap() async throws {
        // Motion mode, the device held facing 40° (which becomes forward), a finger down on the sound.
        var inputs: [AppInput] = [ExplorerTests.heading(0.5, 40), ExplorerTests.heading(1, 40)]
        inputs += Self.drag(1, from: 0.5, to: 0.48, steps: 2)  // ignored by the view in motion mode
        inputs.append(.command(AppCommand(timestamp: at(1.1), action: "setMode", arguments: ["mode": "swipe"])))
        // The same finger goes on moving and lifts: the drag began before the switch, so it neither turns nor taps.
        inputs += (1...5).map { .reading(.pointer(PointerEvent(timestamp: at(1.1 + 0.02 * Double($0)), phase: .move, x: 0.48 - 0.05 * Double($0), y: 0.5))) }
        inputs.append(.reading(.pointer(PointerEvent(timestamp: at(1.3), phase: .release, x: 0.23, y: 0.5))))
        inputs.append(ExplorerTests.heading(1.5, 100))  // turning the device does nothing in swipe mode
        inputs += Self.drag(2, from: 0.5, to: 0.3) + [.reading(.pointer(PointerEvent(timestamp: at(2.2), phase: .release, x: 0.3, y: 0.5)))]
        inputs.append(.tick(at(5)))
        var config = ViewerConfig(experience: Self.oneView())
        config.mode = .motion
        let log = await events(try ExperienceViewer(config: config), inputs)
        #expect(log.named("mode.set").map { $0.attributes["mode"] } == [.string("swipe")])
        #expect(log.named("sound.played").isEmpty)
        #expect(log.named("tap.missed").isEmpty)
        let turns = log.named("view.facing").filter { $0.timestamp > at(0) }
        #expect(turns.allSatisfy { $0.timestamp >= at(2) }, "the view moved before the new drag: \(turns)")
        #expect(turns.last?.attributes["yaw"] == .int(15))  // a fifth of the width is 15°
    }

    @Test func hotspotsAreHitThroughTheViewProjection() async throws {
        // In swipe mode facing forward, the sound at yaw 0 spans ±10°: with a 75° field of view,
        // x = 0.5 ± 0.5·tan(10°)/tan(37.5°) ≈ 0.5 ± 0.115 is its edge.
        let inside = await events(try ExperienceViewer(config: ViewerConfig(experience: Self.experience())), tap(1, 0.6, 0.5))
        #expect(inside.named("sound.played").count == 1)
        let outside = await events(try ExperienceViewer(config: ViewerConfig(experience: Self.experience())), tap(1, 0.63, 0.5))
        #expect(outside.named("sound.played").isEmpty)
        #expect(outside.named("tap.missed").first?.attributes["yaw"] == .double(11))
    }

    @Test func theLastPanoramasClipsComplete() async throws {
        var experience = Self.experience()
        experience.panoramas[0].hotspots.removeFirst()  // only the door in the first room
        experience.panoramas[0].hotspots[0].yaw = 0
        let log = await events(try ExperienceViewer(config: ViewerConfig(experience: experience)), tap(1, 0.5, 0.5) + tap(2, 0.5, 0.5))
        #expect(names(log).suffix(6) == ["panorama.entered", "view.facing", "video.opened", "experience.completed", "screen.failed", "video.closed"])
    }

    @Test func theEditorsRulesGiveClearErrors() throws {
        var library = ExperienceLibrary()
        let panorama = [Panorama(id: "p", hotspots: [])]
        #expect(try library.add(Experience(panoramas: panorama)) == "experience #1")
        #expect(try library.add(Experience(title: "experience #3", panoramas: panorama)) == "experience #3")
        #expect(try library.add(Experience(panoramas: panorama)) == "experience #2")
        #expect(throws: AppConfigError(field: "experiences[3].title", "'abc' has 3 characters; expected 4–16")) {
            try library.add(Experience(title: "abc", panoramas: panorama))
        }
        #expect(throws: AppConfigError(field: "experiences[3].title", "'EXPERIENCE #1' is taken; titles are unique")) {
            try library.add(Experience(title: "EXPERIENCE #1", panoramas: panorama))
        }
        #expect(throws: AppConfigError(field: "experiences[3].description", "129 characters; at most 128")) {
            try library.add(Experience(title: "Long one", description: String(repeating: "d", count: 129), panoramas: panorama))
        }
        #expect(throws: AppConfigError(field: "experiences[3].panoramas[0].hotspots[0].to", "'lab' is not another panorama of this experience (q)")) {
            try library.add(Experience(title: "Doors", panoramas: [
                Panorama(id: "p", hotspots: [Hotspot(id: "d", kind: .door, yaw: 0, pitch: 0, size: 10, to: "lab")]), Panorama(id: "q", hotspots: []),
            ]))
        }
        #expect(throws: AppConfigError(field: "experiences[3].panoramas[0].hotspots[0].soundtrack", "only a video hotspot has a soundtrack")) {
            try library.add(Experience(title: "Sounds", panoramas: [
                Panorama(id: "p", hotspots: [Hotspot(id: "s", kind: .sound, yaw: 0, pitch: 0, size: 10, clip: "a.wav", soundtrack: "b.wav")]),
            ]))
        }
        for number in 4...10 { try library.add(Experience(title: "Room \(number)", panoramas: panorama)) }
        #expect(throws: AppConfigError(field: "experiences[10]", "at most 10 custom experiences; delete one first")) {
            try library.add(Experience(panoramas: panorama))
        }
        library.remove(title: "experience #2")
        #expect(try library.add(Experience(panoramas: panorama)) == "experience #2")
    }
}
