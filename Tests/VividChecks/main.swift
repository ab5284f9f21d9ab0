// The V4L2 checks that need a real kernel driver: run inside the qemu guest with vivid by
// CameraTests/VividTests, which boots the guest once and asserts on each line. Prints
// `PASS name` or `FAIL name: why` per check; the exit status is 1 when any check failed.
import V4L2
import FrameSources
import Foundation
import HAL

let node = "/dev/video0"
var failures = 0

@MainActor func check(_ name: String, _ body: () async throws -> String?) async {
    do {
        if let problem = try await body() {
            print("FAIL \(name): \(problem)")
            failures += 1
        } else {
            print("PASS \(name)")
        }
    } catch {
        print("FAIL \(name): threw \(error)")
        failures += 1
    }
}

/// Streams `count` frames and returns what each looked like, plus the statistics.
func capture(_ format: PixelFormat, count: Int, size: V4L2Size = V4L2Size(width: 640, height: 360), during: ((Int, V4L2Device) throws -> Void)? = nil)
    throws -> (frames: [(sequence: UInt64, timestamp: Timestamp, bytes: Int, gray: (Int, Int))], statistics: V4L2Statistics, format: V4L2Format)
{
    let device = try V4L2Device(path: node)
    let negotiated = try device.negotiate(format: format, size: size)
    let stream = try V4L2Stream(device: device, format: negotiated, bufferCount: 4)
    defer { stream.stop() }
    var frames: [(UInt64, Timestamp, Int, (Int, Int))] = []
    var attempts = 0
    while frames.count < count, attempts < count * 10 {
        attempts += 1
        try during?(frames.count, device)
        try stream.next(timeout: 2000) { frame in
            let gray = try CVImage(borrowing: frame.bytes, format: frame.format.pixelFormat, width: frame.format.size.width,
                                   height: frame.format.size.height, bytesPerRow: frame.format.bytesPerRow, to: .gray)
            frames.append((frame.sequence, frame.timestamp, frame.bytes.count, (gray.width, gray.height)))
        }
    }
    return (frames.map { (sequence: $0.0, timestamp: $0.1, bytes: $0.2, gray: $0.3) }, stream.statistics, negotiated)
}

/// What is wrong with a capture's sequence numbers, or `nil`: within one stream vivid never goes back; every gap is
/// counted as dropped and every repeat as repeated; and more than `maximumRepeats` repeats is not vivid's rounding.
/// Differences are taken as signed numbers, so no sequence can trap the check.
func sequenceProblem(_ sequences: [UInt64], _ statistics: V4L2Statistics, maximumRepeats: Int) -> String? {
    let steps = zip(sequences, sequences.dropFirst()).map { Int64(bitPattern: $1 &- $0) }
    guard steps.allSatisfy({ $0 >= 0 }) else { return "the sequence went back: \(sequences)" }
    let gaps = steps.reduce(0) { $0 + Int(max($1 - 1, 0)) }
    let repeats = steps.filter { $0 == 0 }.count
    guard statistics.dropped == gaps, statistics.repeated == repeats, statistics.restarts == 0 else {
        return "sequences \(sequences) (\(gaps) missing, \(repeats) repeated), \(statistics)"
    }
    guard repeats <= maximumRepeats else { return "\(repeats) repeated sequence numbers in \(sequences)" }
    return nil
}

/// Waits (a minute at most) until no stream holds the device: it takes a format again, which it refuses (EBUSY) while
/// another descriptor has its buffers.
func waitUntilFree(_ format: PixelFormat, _ size: V4L2Size) async -> Bool {
    let deadline = MonotonicClock.now.advanced(by: .seconds(60))
    while MonotonicClock.now < deadline {
        if (try? V4L2Device(path: node).negotiate(format: format, size: size)) != nil { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return false
}

if CommandLine.arguments.contains("--controls") {
    for control in try V4L2Device(path: node).controls() { print(control.id, control.name, control.minimum, control.maximum, control.isButton) }
    exit(0)
}

await check("formats") {
    let device = try V4L2Device(path: node)
    let capabilities = try device.capabilities()
    guard capabilities.driver == "vivid", capabilities.capturesVideo, capabilities.streams else { return "capabilities \(capabilities)" }
    let offered = try device.formats().map(\.fourCC)
    let wanted = ["YUYV", "NV12", "GREY", "RGB3", "BGR3"]
    guard wanted.allSatisfy(offered.contains) else { return "formats \(offered)" }
    let sizes = try device.frameSizes(fourCC: "YUYV")
    guard sizes.contains(V4L2Size(width: 640, height: 360)), !sizes.contains(V4L2Size(width: 320, height: 240)) else { return "sizes \(sizes)" }
    let rates = try device.frameRates(fourCC: "YUYV", size: V4L2Size(width: 640, height: 360))
    guard !rates.isEmpty, rates.allSatisfy({ $0 > 0 }) else { return "rates \(rates)" }
    print("  vivid offers \(offered.count) formats; YUYV 640x360 at \(rates.map { String($0) }.joined(separator: ", ")) fps")
    return nil
}

await check("negotiation") {
    let device = try V4L2Device(path: node)
    let format = try device.negotiate(format: .yuyv, size: V4L2Size(width: 640, height: 360))
    guard format.bytesPerRow == 1280, format.imageSize >= 1280 * 360, format.framesPerSecond > 0 else { return "format \(format)" }
    do throws(DeviceError) {
        _ = try device.negotiate(format: .yuyv, size: V4L2Size(width: 320, height: 240))
        return "320x240 was accepted"
    } catch {
        guard error.code == .unsupported, error.message.hasPrefix("no YUYV at 320x240; the device offers 320x180, 640x360") else { return "error \(error)" }
    }
    do throws(DeviceError) {
        _ = try device.negotiate(format: .yuyv, size: V4L2Size(width: 640, height: 360), rate: 1000)
        return "1000 fps was accepted"
    } catch {
        guard error.code == .unsupported, error.message.contains("no 1000.0 fps for YUYV 640x360; the device offers") else { return "error \(error)" }
    }
    return nil
}

for format in [PixelFormat.yuyv, .nv12, .grey, .rgb24, .bgr24] {
    await check("stream-\(format.rawValue)") {
        let before = MonotonicClock.now
        let (frames, statistics, negotiated) = try capture(format, count: 8)
        let after = MonotonicClock.now
        guard frames.count == 8 else { return "\(frames.count) frames" }
        // Under software emulation a slow consumer can miss frames: every gap must be counted as dropped. vivid can also
        // give two new frames one number when a slow fill rounds its next tick to the same frame (docs/camera.md):
        // counted as repeats. A real double hand-out of one buffer would repeat the timestamp too, checked below.
        if let problem = sequenceProblem(frames.map(\.sequence), statistics, maximumRepeats: 2) { return problem }
        let times = frames.map(\.timestamp)
        guard zip(times, times.dropFirst()).allSatisfy({ $0 < $1 }) else { return "timestamps \(times)" }
        // On CLOCK_MONOTONIC: every frame was captured while the capture ran. vivid stamps a frame with the time its
        // capture completes, which can be a little ahead of now, so a second either side is allowed. (This was the
        // last frame's age, under 10 s: a guest starved of CPU between the capture and the check could exceed it.)
        let window = before.advanced(by: .seconds(-1))...after.advanced(by: .seconds(1))
        guard times.allSatisfy({ window.contains($0) }) else { return "timestamps \(times) outside the capture's \(before)...\(after) on CLOCK_MONOTONIC" }
        let expected = format == .nv12 ? negotiated.bytesPerRow * 360 * 3 / 2 : negotiated.bytesPerRow * 360
        guard frames.allSatisfy({ $0.bytes >= expected && $0.gray == (640, 360) }) else { return "sizes \(frames.map(\.bytes)) expected \(expected)" }
        guard statistics.delivered == 8, statistics.errors == 0 else { return "statistics \(statistics)" }
        return nil
    }
}

await check("hal-camera") {
    var options = V4L2CaptureOptions()
    options.format = .yuyv
    options.size = V4L2Size(width: 640, height: 360)
    options.convert = .gray
    let camera = try V4L2Camera(path: node, options: options)
    for round in 0..<2 {  // a clean stop frees the buffers, so the camera streams again
        var frames: [Frame] = []
        for try await frame in camera.readings(buffering: .unbounded) {
            frames.append(frame)
            if frames.count == 5 { break }
        }
        guard frames.count == 5, frames.allSatisfy({ $0.pixelFormat == .grey && $0.width == 640 && $0.bytesPerRow == 640 }) else {
            return "round \(round): \(frames.map { "\($0.pixelFormat) \($0.width)" })"
        }
        guard case .bytes(let pixels) = frames[0].storage, pixels.count == 640 * 360 else { return "round \(round): pixels" }
        // Leaving the loop only tells the capture thread to stop: it frees the buffers after its current poll (200 ms),
        // later on a starved guest. The next round waits for that state, not for a time.
        guard await waitUntilFree(.yuyv, V4L2Size(width: 640, height: 360)) else { return "round \(round): the device stayed busy" }
    }
    return nil
}

await check("dropped-buffers") {
    let control = try V4L2Device(path: node)
    try control.setControl(named: "Percentage of Dropped Buffers", to: 50)
    defer { try? control.setControl(named: "Percentage of Dropped Buffers", to: 0) }
    let (frames, statistics, _) = try capture(.yuyv, count: 12)
    let sequences = frames.map(\.sequence)
    guard frames.count == 12, statistics.dropped > 0 else { return "\(frames.count) frames, \(statistics), sequences \(sequences)" }
    if let problem = sequenceProblem(sequences, statistics, maximumRepeats: 3) { return problem }
    print("  \(statistics.dropped) dropped of \((sequences.last ?? 0) - (sequences.first ?? 0) + 1)")
    return nil
}

await check("error-buffer") {
    var injected = false
    let (frames, statistics, _) = try capture(.yuyv, count: 8) { index, device in
        if index == 3, !injected {
            try device.setControl(named: "Inject V4L2_BUF_FLAG_ERROR", to: 0)
            injected = true
        }
    }
    guard frames.count == 8, statistics.errors == 1 else { return "\(frames.count) frames, \(statistics)" }
    return nil
}

await check("disconnect") {
    var options = V4L2CaptureOptions()
    options.size = V4L2Size(width: 640, height: 360)
    let camera = try V4L2Camera(path: node, options: options)
    var frames = 0
    do {
        for try await _ in camera.readings(buffering: .unbounded) {
            frames += 1
            if frames == 3 { try V4L2Device(path: node).setControl(named: "Disconnect", to: 0) }
            if frames > 200 { return "the stream went on after the disconnect" }
        }
        return "the stream ended without an error after \(frames) frames"
    } catch let error as DeviceError {
        guard error.code == .disconnected else { return "ended with \(error)" }
        print("  ended after \(frames) frames: \(error.message)")
        return nil
    }
}

exit(failures == 0 ? 0 : 1)
