public import HAL
import FoundationEssentials

/// Frames from files: a folder of images (`images:FOLDER?rate=N`), a video OpenCV can read
/// (`video:FILE`), or a synthetic pattern (`pattern:bars|gradient|checkers?width=&height=&format=&rate=&frames=`).
/// Timestamps start at 0 and step by 1/rate; frames come as fast as the consumer takes them.
public struct FileCamera: Camera {
    /// Where the frames come from.
    public enum Source: Sendable, Hashable {
        /// Image files, in name order: JPEG and PNG frames keep their encoded bytes; other images are decoded to BGR.
        case images([String])
        /// A video file, decoded to BGR.
        case video(String)
        /// A test pattern, `frames` long.
        case pattern(TestPattern, frames: Int)
    }

    /// The device.
    public let info: DeviceInfo
    /// Where the frames come from.
    public let source: Source
    /// Frames per second, for timestamps.
    public let rate: Double

    /// Creates the camera.
    public init(source: Source, rate: Double, uri: String) {
        self.source = source
        self.rate = rate
        let name: String
        switch source {
        case .images(let files): name = "\(files.count) images"
        case .video(let path): name = "video \(path)"
        case .pattern(let pattern, _): name = "\(pattern.kind.rawValue) pattern \(pattern.width)x\(pattern.height) \(pattern.format.rawValue)"
        }
        info = DeviceInfo(uri: uri, name: name, kind: .camera, backend: "files", rate: rate)
    }

    /// The frames.
    public func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<Frame, any Error> {
        let source = source, period = 1 / rate, uri = info.uri
        return AsyncThrowingStream(bufferingPolicy: buffering.asyncThrowingStreamPolicy(Frame.self)) { continuation in
            let task = Task {
                func time(_ index: Int) -> Timestamp { Timestamp(nanoseconds: Int64((Double(index) * period * 1e9).rounded())) }
                do {
                    switch source {
                    case .images(let files):
                        for (index, file) in files.enumerated() {
                            try Task.checkCancellation()
                            continuation.yield(try Self.imageFrame(file, index: index, at: time(index), uri: uri))
                        }
                    case .video(let path):
                        let video = try VideoFile(path: path, uri: uri)
                        while true {
                            try Task.checkCancellation()
                            guard let frame = video.read(at: time(video.nextIndex)) else { break }
                            continuation.yield(frame)
                        }
                    case .pattern(let pattern, let frames):
                        for index in 0..<frames {
                            try Task.checkCancellation()
                            continuation.yield(pattern.frame(index, at: time(index)))
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The image files in a folder, in name order: what `images:FOLDER` delivers. `nil` when there is no such folder.
    public static func imageFiles(in folder: String) -> [String]? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        let extensions = [".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff"]
        return names.filter { name in extensions.contains(where: name.lowercased().hasSuffix) }.sorted().map { folder + "/" + $0 }
    }

    static func imageFrame(_ file: String, index: Int, at timestamp: Timestamp, uri: String) throws -> Frame {
        let lowercased = file.lowercased()
        if lowercased.hasSuffix(".jpg") || lowercased.hasSuffix(".jpeg") || lowercased.hasSuffix(".png") {
            guard let data = FileManager.default.contents(atPath: file) else { throw DeviceError(.notFound, uri: uri, "cannot read \(file)") }
            let bytes = [UInt8](data)
            let format: PixelFormat = lowercased.hasSuffix(".png") ? .png : .mjpeg
            let image: CVImage
            do {
                image = try CVImage(converting: Frame(timestamp: timestamp, sequence: 0, width: 0, height: 0, pixelFormat: format, bytesPerRow: 0, storage: .bytes(bytes)), to: .gray)
            } catch {
                throw DeviceError(.ioFailure, uri: uri, "\(file): not a readable image (\(error))")
            }
            return Frame(timestamp: timestamp, sequence: UInt64(index), width: image.width, height: image.height, pixelFormat: format, bytesPerRow: 0, storage: .bytes(bytes))
        }
        let image = try CVImage(path: file, as: .bgr)
        return Frame(timestamp: timestamp, sequence: UInt64(index), width: image.width, height: image.height, pixelFormat: .bgr24, bytesPerRow: image.width * 3, storage: .bytes(image.pixels))
    }
}

/// Opens `images:FOLDER[?rate=N]` cameras: a folder of PNG or JPEG files, in name order.
public struct ImagesCameraBackend: DeviceBackend {
    /// `images`.
    public var scheme: String { "images" }
    /// What `hal devices` says about the backend.
    public var summary: String { "a folder of images as a camera: images:FOLDER[?rate=N]" }

    /// Creates the backend.
    public init() {}

    /// Opens the folder the URI names.
    public func open(_ uri: DeviceURI) throws -> any Device {
        let rate = try FileCameraOptions(uri, allowing: []).rate
        try CameraFiles.check(uri.body, isFolder: true, uri: uri.description)
        guard let files = FileCamera.imageFiles(in: uri.body) else { throw DeviceError(.notFound, uri: uri.description, "cannot list \(uri.body)") }
        guard !files.isEmpty else { throw DeviceError(.notFound, uri: uri.description, "no images in \(uri.body)") }
        return FileCamera(source: .images(files), rate: rate ?? 30, uri: uri.description)
    }

    /// Opened by URI, not discovered.
    public func discover() throws -> [DeviceInfo] { [] }
}

/// Opens `video:FILE[?rate=N]` cameras: a video file OpenCV reads, at its own rate unless told.
public struct VideoCameraBackend: DeviceBackend {
    /// `video`.
    public var scheme: String { "video" }
    /// What `hal devices` says about the backend.
    public var summary: String { "a video file OpenCV reads, as a camera: video:FILE" }

    /// Creates the backend.
    public init() {}

    /// Opens the file the URI names.
    public func open(_ uri: DeviceURI) throws -> any Device {
        let rate = try FileCameraOptions(uri, allowing: []).rate
        try CameraFiles.check(uri.body, isFolder: false, uri: uri.description)
        let stated = try rate ?? VideoFile(path: uri.body, uri: uri.description).rate
        return FileCamera(source: .video(uri.body), rate: stated, uri: uri.description)
    }

    /// Opened by URI, not discovered.
    public func discover() throws -> [DeviceInfo] { [] }
}

/// Opens `pattern:` cameras: a synthetic picture in a chosen size and raw format.
public struct PatternCameraBackend: DeviceBackend {
    /// `pattern`.
    public var scheme: String { "pattern" }
    /// What `hal devices` says about the backend.
    public var summary: String {
        "a synthetic camera: pattern:bars|gradient|checkers[?width=W&height=H&format=YUYV|NV12|GREY|RGB3|BGR3&rate=N&frames=N]"
    }

    /// Creates the backend.
    public init() {}

    /// Opens the pattern the URI names.
    public func open(_ uri: DeviceURI) throws -> any Device {
        let options = try FileCameraOptions(uri, allowing: ["width", "height", "frames", "format"])
        guard let kind = TestPattern.Kind(rawValue: uri.body) else {
            throw DeviceError(.invalidURI, uri: uri.description, "no pattern '\(uri.body)'; the patterns are bars, gradient, checkers")
        }
        let pattern = TestPattern(kind: kind, width: options.width, height: options.height, format: options.format)
        return FileCamera(source: .pattern(pattern, frames: options.frames), rate: options.rate ?? 30, uri: uri.description)
    }

    /// Opened by URI, not discovered.
    public func discover() throws -> [DeviceInfo] { [] }
}

/// The query options of a file camera's URI: `rate` for all, and the keys in `allowing`; any other key is refused.
struct FileCameraOptions {
    var rate: Double?
    var width = 640, height = 480, frames = 300
    var format = PixelFormat.yuyv

    init(_ uri: DeviceURI, allowing keys: Set<String>) throws(DeviceError) {
        for (key, value) in uri.query {
            guard key == "rate" || keys.contains(key) else { throw DeviceError(.invalidURI, uri: uri.description, "unknown option '\(key)'") }
            switch key {
            case "rate":
                guard let number = Double(value), number > 0 else { throw DeviceError(.invalidURI, uri: uri.description, "rate=\(value): expected a positive number") }
                rate = number
            case "format":
                guard let value = PixelFormat(rawValue: value.uppercased()), !value.isCompressed else {
                    throw DeviceError(.invalidURI, uri: uri.description, "format=\(value): expected YUYV, NV12, GREY, RGB3 or BGR3")
                }
                format = value
            default:
                guard let number = Int(value), number > 0, number <= 8192 else { throw DeviceError(.invalidURI, uri: uri.description, "\(key)=\(value): expected 1…8192") }
                if key == "width" { width = number } else if key == "height" { height = number } else { frames = number }
            }
        }
    }
}
