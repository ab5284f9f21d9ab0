import FrameSources
import HAL
import TraceFormat

/// A camera channel as a V4L2 capture device, `/dev/videoN`, answered by `hal-testbed`'s ioctl handler: capability,
/// format, frame size and rate queries, `read()` of whole frames, and USERPTR streaming with `poll()`. MMAP
/// streaming is refused as a driver without it refuses it (`VIDIOC_REQBUFS` answers `EINVAL`): umockdev's preload
/// cannot map a device's memory into the program (`docs/programs.md`).
///
/// The channel's frames are served in order, at the channel's rate, from when the program starts streaming (or
/// reading), and again from the first after the last. Raw frames in GREY, YUYV or RGB3 keep their format; other
/// formats (BGR3, NV12, MJPG, PNG, frames in files) are converted to RGB3 with OpenCV. Every frame must have the
/// first one's size.
public final class V4L2ServedDevice: ServedDevice {
    private let channel: ServedChannel
    private let frameFolder: String?
    private let state = Locked<(node: String, frames: Int, format: String)>(("", 0, ""))

    /// A camera for `channel`, whose frames in files are relative to `frameFolder`.
    public init(channel: ServedChannel, frameFolder: String?) {
        self.channel = channel
        self.frameFolder = frameFolder
    }

    /// The device types' entry: `v4l2`.
    public static func type(frameFolder: String?) -> ServedDeviceTypes.DeviceType {
        ServedDeviceTypes.DeviceType(
            name: "v4l2", summary: "a V4L2 camera (/dev/videoN): formats, read() and USERPTR streaming, no MMAP",
            carries: { $0 == .camera }, isDefault: { $0 == .camera },
            make: { channels in channels.map { V4L2ServedDevice(channel: $0, frameFolder: frameFolder) } })
    }

    public var summary: String {
        let (node, _, format) = state.withLock { $0 }
        return "camera \(node) (V4L2, \(format)) <- \(channel.channel.id) (camera)"
    }

    public func prepare(_ testbed: inout TestbedPlan) throws {
        if testbed.isLive([channel]) {
            throw ProgramError(
                "camera channel '\(channel.channel.id)' cannot be served live: a camera is served from recorded frames; record it (hal record) and serve the trace")
        }
        let frames = channel.records.compactMap { record -> Frame? in
            if case .frame(let frame) = record.reading { return frame }
            return nil
        }
        guard let first = frames.first else { throw ProgramError("camera channel '\(channel.channel.id)' has no frames to serve") }
        let format: (fourcc: String, bytesPerPixel: Int)
        switch first.pixelFormat {
        case .grey: format = ("GREY", 1)
        case .yuyv: format = ("YUYV", 2)
        default: format = ("RGB3", 3)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frames.count * first.width * first.height * format.bytesPerPixel)
        for frame in frames {
            guard frame.width == first.width, frame.height == first.height else {
                throw ProgramError("camera channel '\(channel.channel.id)': frame \(frame.sequence) is \(frame.width)×\(frame.height), not \(first.width)×\(first.height) as the first")
            }
            bytes += try pixels(of: frame, fourcc: format.fourcc, bytesPerPixel: format.bytesPerPixel)
        }
        let number = testbed.nextVideoNumber
        testbed.nextVideoNumber += 1
        let node = "/dev/video\(number)"
        let path = try testbed.write("video\(number).raw", bytes)
        let rate = channel.channel.rate ?? estimatedRate(frames) ?? 30
        testbed.umockdevArguments += ["-v", "\(node)=\(path):\(first.width):\(first.height):\(format.fourcc):\(max(1, Int(rate.rounded())))"]
        testbed.environment["HAL_DEVICE_" + TestbedPlan.variableName(channel.channel.id)] = node
        state.withLock { $0 = (node, frames.count, "\(first.width)×\(first.height) \(format.fourcc)") }
    }

    /// A frame's pixels, rows packed, in the served format.
    private func pixels(of frame: Frame, fourcc: String, bytesPerPixel: Int) throws -> [UInt8] {
        let row = frame.width * bytesPerPixel
        if frame.pixelFormat.rawValue == fourcc, let bytes = try rawBytes(of: frame) {
            let stride = max(row, frame.bytesPerRow)
            guard bytes.count >= stride * (frame.height - 1) + row else {
                throw ProgramError("camera channel '\(channel.channel.id)': frame \(frame.sequence) holds \(bytes.count) bytes, too few for its size")
            }
            if stride == row { return Array(bytes.prefix(row * frame.height)) }
            return (0..<frame.height).flatMap { bytes[($0 * stride)..<($0 * stride + row)] }
        }
        let image: CVImage
        do { image = try CVImage.image(of: frame, frameFolder: frameFolder, as: .bgr) } catch {
            throw ProgramError("camera channel '\(channel.channel.id)': frame \(frame.sequence): \(error)")
        }
        let bgr = image.pixels, stride = image.bytesPerRow
        var rgb = [UInt8](repeating: 0, count: row * frame.height)
        for y in 0..<frame.height {
            for x in 0..<frame.width {
                let from = y * stride + x * 3, to = y * row + x * 3
                (rgb[to], rgb[to + 1], rgb[to + 2]) = (bgr[from + 2], bgr[from + 1], bgr[from])
            }
        }
        return rgb
    }

    /// A raw frame's bytes, in memory or in its file (relative to the frame folder); `nil` for an encoded frame.
    private func rawBytes(of frame: Frame) throws -> [UInt8]? {
        guard !frame.pixelFormat.isCompressed else { return nil }
        switch frame.storage {
        case .bytes(let bytes): return bytes
        case .file(let path):
            let resolved = path.hasPrefix("/") ? path : (frameFolder.map { $0 + "/" + path } ?? path)
            do { return try TracePath.readFile(resolved) } catch {
                throw ProgramError("camera channel '\(channel.channel.id)': frame \(frame.sequence): cannot read \(resolved): \(error)")
            }
        }
    }

    private func estimatedRate(_ frames: [Frame]) -> Double? {
        guard frames.count > 1, let first = frames.first?.timestamp, let last = frames.last?.timestamp, last > first else { return nil }
        return Double(frames.count - 1) / first.duration(to: last).seconds
    }

    public func feed(_ run: FeedContext) async throws {
        // hal-testbed serves the frames from when the program streams; the channel's inputs end with its last frame.
        if let last = channel.records.last { try await run.wait(until: last.timestamp) }
    }

    public var delivered: String {
        let (node, frames, format) = state.withLock { $0 }
        return "camera \(node): \(frames) frames of \(format), served in a loop from when the program streams"
    }
}
