import SystemSupport
public import HAL
public import FrameSources

/// What a V4L2 capture asks for: `v4l2:/dev/video0?format=YUYV&width=640&height=480&fps=30&buffers=4&convert=gray`.
public struct V4L2CaptureOptions: Sendable, Hashable {
    /// The pixel format; the device's first that the HAL converts when absent.
    public var format: PixelFormat?
    /// The size; 640×480 (or the nearest smaller) when absent.
    public var size: V4L2Size?
    /// The rate; the fastest at most 30 fps when absent.
    public var framesPerSecond: Double?
    /// mmap buffers, 4 by default.
    public var bufferCount = 4
    /// Converts each frame with OpenCV before delivery (to 8-bit gray or BGR), straight from the driver's buffer.
    public var convert: ImageTarget?

    /// The defaults.
    public init() {}

    /// Reads the options of a `v4l2:` URI, refusing unknown ones.
    public init(uri: DeviceURI) throws(DeviceError) {
        for (key, value) in uri.query {
            switch key {
            case "format":
                guard let format = PixelFormat(rawValue: value.uppercased()), !format.isCompressed || format == .mjpeg else {
                    throw DeviceError(.invalidURI, uri: uri.description, "format=\(value): expected YUYV, MJPG, GREY, NV12, RGB3 or BGR3")
                }
                self.format = format
            case "width", "height":
                guard let number = Int(value), number > 0 else { throw DeviceError(.invalidURI, uri: uri.description, "\(key)=\(value): expected a positive whole number") }
                var size = self.size ?? V4L2Size(width: 0, height: 0)
                if key == "width" { size.width = number } else { size.height = number }
                self.size = size
            case "fps":
                guard let rate = Double(value), rate > 0 else { throw DeviceError(.invalidURI, uri: uri.description, "fps=\(value): expected a positive number") }
                framesPerSecond = rate
            case "buffers":
                guard let count = Int(value), (2...32).contains(count) else { throw DeviceError(.invalidURI, uri: uri.description, "buffers=\(value): expected 2…32") }
                bufferCount = count
            case "convert":
                switch value {
                case "gray": convert = .gray
                case "bgr": convert = .bgr
                default: throw DeviceError(.invalidURI, uri: uri.description, "convert=\(value): expected gray or bgr")
                }
            default:
                throw DeviceError(.invalidURI, uri: uri.description, "unknown option '\(key)'; the options are format, width, height, fps, buffers, convert")
            }
        }
        if let size, size.width == 0 || size.height == 0 {
            throw DeviceError(.invalidURI, uri: uri.description, "give both width and height")
        }
    }
}

/// A V4L2 camera as a HAL ``HAL/Camera``: each frame's bytes are copied once out of the driver's buffer
/// into the ``HAL/Frame`` (or converted by OpenCV straight from it, with `convert=`). Capture runs on its own
/// thread; ending the stream stops streaming and frees the buffers. A device that goes away ends the
/// stream with ``HAL/DeviceError/Code/disconnected``; dropped and error buffers are counted in
/// ``statistics``. For zero-copy access use ``V4L2Stream`` directly.
public final class V4L2Camera: Camera {
    /// The device.
    public let info: DeviceInfo
    /// The node.
    public let path: String
    /// The options.
    public let options: V4L2CaptureOptions
    private let counts = StatisticsBox()

    /// Opens the node to check it and describe it; capture opens it again per stream.
    public init(path: String, options: V4L2CaptureOptions = V4L2CaptureOptions(), uri: String? = nil) throws(DeviceError) {
        self.path = path
        self.options = options
        let device = try V4L2Device(path: path, uri: uri)
        let capabilities = try device.capabilities()
        guard capabilities.capturesVideo, capabilities.streams else {
            throw DeviceError(.wrongKind, uri: device.uri, "\(capabilities.card) does not stream video capture")
        }
        info = DeviceInfo(
            uri: device.uri, name: capabilities.card, kind: .camera, backend: "v4l2", rate: options.framesPerSecond,
            capabilities: try device.formats().compactMap(\.pixelFormat).map(\.rawValue))
    }

    /// The last stream's counts: delivered, dropped, errors.
    public var statistics: V4L2Statistics { counts.value }

    /// Frames as they are captured.
    public func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<Frame, any Error> {
        let path = path, options = options, uri = info.uri, counts = counts
        return DeviceThread.stream(name: "v4l2 \(path)", buffering: buffering) { stop, yield in
            let device = try V4L2Device(path: path, uri: uri)
            let format = try device.negotiate(format: options.format, size: options.size, rate: options.framesPerSecond)
            let stream = try V4L2Stream(device: device, format: format, bufferCount: options.bufferCount)
            defer { stream.stop() }
            var undecodable = 0
            while !stop.isSet {
                try stream.next(timeout: 200) { borrowed in
                    if let target = options.convert {
                        // A frame that does not convert (a corrupt MJPEG transfer) is skipped and counted.
                        guard let frame = try? Self.converted(borrowed, to: target) else {
                            undecodable += 1
                            return
                        }
                        yield(frame)
                    } else {
                        yield(borrowed.copied())
                    }
                }
                var statistics = stream.statistics
                statistics.errors += undecodable
                counts.value = statistics
            }
        }
    }

    /// A lent frame converted by OpenCV straight from the driver's buffer.
    static func converted(_ borrowed: BorrowedFrame, to target: ImageTarget) throws(CameraError) -> Frame {
        let image = try CVImage(borrowing: borrowed.bytes, format: borrowed.format.pixelFormat, width: borrowed.format.size.width,
                                height: borrowed.format.size.height, bytesPerRow: borrowed.format.bytesPerRow, to: target)
        return Frame(
            timestamp: borrowed.timestamp, sequence: borrowed.sequence, width: image.width, height: image.height,
            pixelFormat: target == .gray ? .grey : .bgr24, bytesPerRow: image.width * image.channels, storage: .bytes(image.pixels))
    }
}

/// The last stream's counts, shared with its capture thread.
final class StatisticsBox: Sendable {
    private let state = Locked(V4L2Statistics())
    var value: V4L2Statistics {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
