import HALTestDoubles
import Foundation
import HAL
import Motion
import Replay
import TraceFormat
import TestSupport
import Testing

@Suite struct ViewDirectionControllerTests {
    static let shipped = try! Trace.load(path: packageRoot + "/traces/lobby-lookaround.jsonl")

    /// Replays the shipped look-around through 6-axis fusion into the controller, and
    /// returns the view after each attitude, keyed by time in centiseconds.
    func replay(
        switchingToSwipeAt switchTime: Double? = nil, rate: ReplayPacing = .asFastAsPossible
    ) async throws -> [Int: ViewDirection] {
        var controller = ViewDirectionController()
        controller.setMode(.motion, at: .zero)
        var fusion = MotionFusion(usesMagnetometer: false)
        var views: [Int: ViewDirection] = [:]
        let replay = try TraceReplay(trace: Self.shipped, options: ReplayOptions(pacing: rate))
        try await replay.run(pacingClock: VirtualClock(advancesOnSleep: true)) { record in
            if let switchTime, record.timestamp.seconds >= switchTime, controller.mode == .motion {
                controller.setMode(.swipe, at: record.timestamp)
            }
            switch record.reading {
            case .motion(let sample):
                if let attitude = fusion.add(sample) {
                    controller.handle(attitude)
                    views[Int((attitude.timestamp.seconds * 100).rounded())] = controller.view(at: attitude.timestamp)
                }
            case .pointer(let event):
                controller.handle(event)
            default:
                break
            }
        }
        return views
    }

    func angle(_ a: Double, _ b: Double) -> Double {
        let difference = abs(a - b).truncatingRemainder(dividingBy: 360)
        return min(difference, 360 - difference)
    }

    /// The script: 2–5 s turn 90° right, 7–8 s tilt up 20°, 9–10 s back, 10–13 s another 90°,
    /// 14.4–18.4 s the last 180°.
    @Test func motionModeFollowsTheScriptedLookAround() async throws {
        let views = try await replay()
        let expected: [(centiseconds: Int, yaw: Double, pitch: Double)] = [
            (150, 0, 0), (500, 90, 0), (850, 90, 20), (1000, 90, 0), (1300, 180, 0), (1640, 270, 0), (2090, 0, 0),
        ]
        for point in expected {
            let view = try #require(views[point.centiseconds])
            #expect(angle(view.yaw, point.yaw) < 1.0, "yaw at \(point.centiseconds) cs: \(view.yaw)")
            #expect(abs(view.pitch - point.pitch) < 1.0, "pitch at \(point.centiseconds) cs: \(view.pitch)")
        }
    }

    @Test func theSamePathAtAnyReplayRate() async throws {
        let fast = try await replay()
        #expect(try await replay(rate: .rate(10)) == fast)
        #expect(try await replay(rate: .rate(0.5)) == fast)
    }

    @Test func switchingToSwipeMidTraceDoesNotJump() async throws {
        let views = try await replay(switchingToSwipeAt: 11.5)
        let before = try #require(views[1149])
        let after = try #require(views[1150])
        #expect(angle(before.yaw, after.yaw) < 0.5)
        #expect(abs(before.pitch - after.pitch) < 0.5)
        // From then on the device's turn no longer moves the view; the swipe at 13 s does.
        let beforeSwipe = try #require(views[1299])
        #expect(angle(beforeSwipe.yaw, after.yaw) < 1e-9)
        let afterSwipe = try #require(views[1450])
        // Dragging right to left by half the screen turns the view right by half the field of
        // view (37.5°), then it coasts: released at 0.5 widths per 0.4 s (93.75°/s), it goes on
        // for 93.75°/s × 0.35 s × (1 − e^(−1.1/0.35)) by 14.5 s.
        let turned = (afterSwipe.yaw - beforeSwipe.yaw + 360).truncatingRemainder(dividingBy: 360)
        let coast = 93.75 * 0.35 * (1 - Foundation.exp(-1.1 / 0.35))
        #expect(abs(turned - (37.5 + coast)) < 0.5, "turned \(turned)")
    }

    @Test func switchingToMotionKeepsTheView() {
        var controller = ViewDirectionController()
        let facingEast = AttitudeSample(
            timestamp: Timestamp(nanoseconds: 1),
            quaternion: Quaternion(axis: Vector3(x: 0, y: 0, z: 1), angle: -.pi / 2) * Quaternion(axis: Vector3(x: 1, y: 0, z: 0), angle: .pi / 2),
            frame: .enu)
        controller.handle(facingEast)
        controller.handle(PointerEvent(timestamp: Timestamp(nanoseconds: 0), phase: .press, x: 0.5, y: 0.5))
        controller.handle(PointerEvent(timestamp: Timestamp(nanoseconds: 500_000_000), phase: .move, x: 0.3, y: 0.5))
        let swiped = controller.view()
        #expect(abs(swiped.yaw - 15) < 1e-9)
        controller.setMode(.motion, at: Timestamp(nanoseconds: 600_000_000))
        #expect(controller.view() == swiped)
        controller.handle(facingEast)
        #expect(abs(controller.view().yaw - 15) < 1e-6)
        controller.recentre()
        #expect(controller.view().yaw == 0)
        #expect(controller.view().pitch == 0)
    }

    @Test func swipeInertiaCoastsAndStops() {
        var controller = ViewDirectionController()
        func at(_ seconds: Double) -> Timestamp { Timestamp(nanoseconds: Int64(seconds * 1e9)) }
        controller.handle(PointerEvent(timestamp: at(0), phase: .press, x: 0.6, y: 0.5))
        controller.handle(PointerEvent(timestamp: at(0.05), phase: .move, x: 0.55, y: 0.5))
        controller.handle(PointerEvent(timestamp: at(0.1), phase: .release, x: 0.5, y: 0.5))
        // Released at 0.1 screen widths per 0.1 s = 75°/s of yaw.
        let atRelease = controller.view(at: at(0.1)).yaw
        #expect(abs(atRelease - 7.5) < 1e-9)
        let later = controller.view(at: at(0.3)).yaw
        #expect(later > atRelease)
        // It coasts 75°/s × 0.35 s ≈ 26.25° in all.
        #expect(abs(controller.view(at: at(10)).yaw - (7.5 + 75 * 0.35)) < 1e-6)
        // A new touch stops it where it is.
        controller.handle(PointerEvent(timestamp: at(0.3), phase: .press, x: 0.5, y: 0.5))
        #expect(abs(controller.view(at: at(10)).yaw - later) < 1e-9)
    }

    @Test func pitchIsClampedAtThePoles() {
        var controller = ViewDirectionController()
        func drag(from: Double, to: Double, at second: Int64) {
            let start = Timestamp(nanoseconds: second * 1_000_000_000)
            controller.handle(PointerEvent(timestamp: start, phase: .press, x: 0.5, y: from))
            controller.handle(PointerEvent(timestamp: start.advanced(by: .seconds(1)), phase: .move, x: 0.5, y: to))
            controller.handle(PointerEvent(timestamp: start.advanced(by: .seconds(1)), phase: .cancel, x: 0.5, y: to))
        }
        // Each full-height drag down tilts the view up by the vertical field of view (50°).
        drag(from: 0, to: 1, at: 0)
        #expect(controller.view().pitch == 50)
        drag(from: 0, to: 1, at: 2)
        #expect(controller.view().pitch == 90)
        drag(from: 1, to: 0, at: 4)
        #expect(controller.view().pitch == 40)
        for second in stride(from: Int64(6), to: 12, by: 2) { drag(from: 1, to: 0, at: second) }
        #expect(controller.view().pitch == -90)
    }

    @Test func motionModeIgnoresDragsAndSwipeModeIgnoresAttitude() {
        var controller = ViewDirectionController()
        let tilted = AttitudeSample(
            timestamp: .zero, quaternion: Quaternion(axis: Vector3(x: 1, y: 0, z: 0), angle: .pi / 2 + 0.3), frame: .enu)
        controller.handle(tilted)
        #expect(controller.view().pitch == 0)
        controller.setMode(.motion, at: .zero)
        controller.handle(PointerEvent(timestamp: .zero, phase: .press, x: 0.5, y: 0.5))
        controller.handle(PointerEvent(timestamp: Timestamp(nanoseconds: 10), phase: .move, x: 0.1, y: 0.5))
        #expect(controller.view().yaw == 0)
    }

    @Test func aStickSteersTheViewAtAHeldRateInSwipeModeOnly() {
        var controller = ViewDirectionController()
        func stick(_ seconds: Double, right: Double, up: Double) -> MotionSample {
            // The evdev stick's virtual gyroscope: right is negative about y, up positive about x (rad/s).
            MotionSample(timestamp: Timestamp(nanoseconds: Int64(seconds * 1e9)), quantity: .angularVelocity,
                         value: Vector3(x: up * .pi / 180, y: -right * .pi / 180, z: 0))
        }
        controller.steer(stick(1, right: 90, up: 0))
        #expect(abs(controller.view(at: Timestamp(nanoseconds: 1_500_000_000)).yaw - 45) < 1e-9)
        controller.steer(stick(2, right: 0, up: 30))
        let held = controller.view(at: Timestamp(nanoseconds: 3_000_000_000))
        #expect(abs(held.yaw - 90) < 1e-9 && abs(held.pitch - 30) < 1e-9)
        controller.steer(stick(3, right: 0, up: 0))
        #expect(abs(controller.view(at: Timestamp(nanoseconds: 9_000_000_000)).pitch - 30) < 1e-9)
        // Motion mode ignores the stick.
        controller.setMode(.motion, at: Timestamp(nanoseconds: 9_000_000_000))
        controller.steer(stick(9, right: -90, up: 0))
        #expect(abs(controller.view(at: Timestamp(nanoseconds: 10_000_000_000)).yaw - 90) < 1e-9)
    }
}
