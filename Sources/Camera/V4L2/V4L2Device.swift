import LibC
import SystemSupport
public import HAL
import CV4L2

/// What a V4L2 device says it is.
public struct V4L2Capabilities: Sendable, Hashable {
    /// The driver, such as `vivid` or `uvcvideo`.
    public var driver: String
    /// The device's name, such as `vivid-000-vid-cap`.
    public var card: String
    /// Where it is attached.
    public var busInfo: String
    /// Whether it captures video.
    public var capturesVideo: Bool
    /// Whether it streams (mmap), which capture needs.
    public var streams: Bool
}

/// A pixel format a device offers.
public struct V4L2FormatDescription: Sendable, Hashable {
    /// The four-character code, such as `YUYV`.
    public var fourCC: String
    /// The driver's description.
    public var description: String
    /// Whether each frame is compressed.
    public var compressed: Bool
    /// The HAL's name for it, when the HAL knows the format.
    public var pixelFormat: PixelFormat? { PixelFormat(rawValue: fourCC) }
}

/// Frame sizes a device offers for a format.
public enum V4L2FrameSizes: Sendable, Hashable {
    /// A list of sizes.
    case discrete([V4L2Size])
    /// Any size in a range, in steps.
    case stepwise(minimum: V4L2Size, maximum: V4L2Size, step: V4L2Size)

    /// Whether a size is offered.
    public func contains(_ size: V4L2Size) -> Bool {
        switch self {
        case .discrete(let sizes): sizes.contains(size)
        case .stepwise(let minimum, let maximum, let step):
            (minimum.width...maximum.width).contains(size.width) && (minimum.height...maximum.height).contains(size.height)
                && (size.width - minimum.width) % max(1, step.width) == 0 && (size.height - minimum.height) % max(1, step.height) == 0
        }
    }
}

/// Width and height in pixels.
public struct V4L2Size: Sendable, Hashable, CustomStringConvertible {
    /// Width.
    public var width: Int
    /// Height.
    public var height: Int

    /// Creates a size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `640x480`.
    public var description: String { "\(width)x\(height)" }
}

/// The format a capture was set up with.
public struct V4L2Format: Sendable, Hashable {
    /// The pixel format.
    public var pixelFormat: PixelFormat
    /// Width and height.
    public var size: V4L2Size
    /// Bytes per row (0 for compressed formats).
    public var bytesPerRow: Int
    /// The largest frame, bytes.
    public var imageSize: Int
    /// Frames per second.
    public var framesPerSecond: Double
}

/// One control of a device, such as vivid's "Percentage of Dropped Buffers".
public struct V4L2Control: Sendable, Hashable {
    /// The control id.
    public var id: UInt32
    /// The driver's name for it.
    public var name: String
    /// Smallest value.
    public var minimum: Int
    /// Largest value.
    public var maximum: Int
    /// Whether it is a button (set to trigger).
    public var isButton: Bool
}

/// An open V4L2 node: queries, format negotiation and controls. Capture goes through ``V4L2Stream``.
///
/// Not `Sendable`: one thread uses it. Errors are ``HAL/DeviceError``s with the device's URI.
public final class V4L2Device {
    /// The node, such as `/dev/video0`.
    public let path: String
    /// The URI errors name.
    public let uri: String
    let descriptor: Int32

    /// What to do when the node cannot be opened for lack of permission.
    public static let accessHelp = "add the user to the 'video' group (sudo usermod -aG video $USER), then log in again"

    /// Opens the node, non-blocking.
    public init(path: String, uri: String? = nil) throws(DeviceError) {
        self.path = path
        self.uri = uri ?? "v4l2:\(path)"
        let descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw DeviceError(errno: errno, uri: self.uri, doing: "cannot open \(path)", access: Self.accessHelp) }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    func control(_ request: UInt, _ argument: UnsafeMutableRawPointer, doing action: String) throws(DeviceError) {
        let status = hal_v4l2_ioctl(descriptor, request, argument)
        guard status == 0 else { throw DeviceError(errno: status, uri: uri, doing: action, access: Self.accessHelp) }
    }

    /// What the device is.
    public func capabilities() throws(DeviceError) -> V4L2Capabilities {
        var capability = v4l2_capability()
        try control(HAL_VIDIOC_QUERYCAP, &capability, doing: "VIDIOC_QUERYCAP")
        let caps = capability.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? capability.device_caps : capability.capabilities
        return V4L2Capabilities(
            driver: Self.string(capability.driver), card: Self.string(capability.card), busInfo: Self.string(capability.bus_info),
            capturesVideo: caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0, streams: caps & UInt32(V4L2_CAP_STREAMING) != 0)
    }

    /// The capture formats, in the driver's order.
    public func formats() throws(DeviceError) -> [V4L2FormatDescription] {
        var formats: [V4L2FormatDescription] = []
        for index in 0..<256 {
            var description = v4l2_fmtdesc()
            description.index = UInt32(index)
            description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            let status = hal_v4l2_ioctl(descriptor, HAL_VIDIOC_ENUM_FMT, &description)
            if status == EINVAL { break }
            guard status == 0 else { throw DeviceError(errno: status, uri: uri, doing: "VIDIOC_ENUM_FMT", access: Self.accessHelp) }
            formats.append(V4L2FormatDescription(
                fourCC: FourCC.string(description.pixelformat), description: Self.string(description.description),
                compressed: description.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0))
        }
        return formats
    }

    /// The frame sizes offered for a format.
    public func frameSizes(fourCC: String) throws(DeviceError) -> V4L2FrameSizes {
        var sizes: [V4L2Size] = []
        for index in 0..<256 {
            var size = v4l2_frmsizeenum()
            size.index = UInt32(index)
            size.pixel_format = FourCC.code(fourCC)
            let status = hal_v4l2_ioctl(descriptor, HAL_VIDIOC_ENUM_FRAMESIZES, &size)
            if status == EINVAL { break }
            guard status == 0 else { throw DeviceError(errno: status, uri: uri, doing: "VIDIOC_ENUM_FRAMESIZES", access: Self.accessHelp) }
            if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                sizes.append(V4L2Size(width: Int(size.discrete.width), height: Int(size.discrete.height)))
            } else {
                let range = size.stepwise
                return .stepwise(
                    minimum: V4L2Size(width: Int(range.min_width), height: Int(range.min_height)),
                    maximum: V4L2Size(width: Int(range.max_width), height: Int(range.max_height)),
                    step: V4L2Size(width: Int(range.step_width), height: Int(range.step_height)))
            }
        }
        return .discrete(sizes)
    }

    /// The frame rates offered for a format and size, in frames per second (discrete intervals only;
    /// a stepwise range gives its fastest and slowest).
    public func frameRates(fourCC: String, size: V4L2Size) throws(DeviceError) -> [Double] {
        var rates: [Double] = []
        for index in 0..<256 {
            var interval = v4l2_frmivalenum()
            interval.index = UInt32(index)
            interval.pixel_format = FourCC.code(fourCC)
            interval.width = UInt32(size.width)
            interval.height = UInt32(size.height)
            let status = hal_v4l2_ioctl(descriptor, HAL_VIDIOC_ENUM_FRAMEINTERVALS, &interval)
            if status == EINVAL || status == ENOTTY { break }
            guard status == 0 else { throw DeviceError(errno: status, uri: uri, doing: "VIDIOC_ENUM_FRAMEINTERVALS", access: Self.accessHelp) }
            if interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                rates.append(Self.rate(interval.discrete))
            } else {
                rates += [Self.rate(interval.stepwise.min), Self.rate(interval.stepwise.max)]
                break
            }
        }
        return rates
    }

    /// Sets the format, size and rate, or explains what would fit.
    ///
    /// Each of `format`, `size` and `rate` may be left out: the format defaults to the first the HAL
    /// converts (YUYV, MJPG, NV12, GREY, RGB3, BGR3 in that order), the size to 640×480 when offered
    /// (else the largest under it, else the first), and the rate to the fastest at most 30 fps.
    public func negotiate(format requested: PixelFormat? = nil, size requestedSize: V4L2Size? = nil, rate requestedRate: Double? = nil)
        throws(DeviceError) -> V4L2Format
    {
        let offered = try formats()
        let usable = offered.compactMap(\.pixelFormat)
        let preference: [PixelFormat] = [.yuyv, .mjpeg, .nv12, .grey, .rgb24, .bgr24]
        guard let format = requested ?? preference.first(where: usable.contains) else {
            throw DeviceError(.unsupported, uri: uri, "no format the HAL converts; the device offers \(offered.map(\.fourCC).joined(separator: ", "))")
        }
        guard usable.contains(format) else {
            throw DeviceError(.unsupported, uri: uri, "no \(format.rawValue) format; the device offers \(offered.map(\.fourCC).joined(separator: ", "))")
        }
        let sizes = try frameSizes(fourCC: format.rawValue)
        let size: V4L2Size
        if let requestedSize {
            guard sizes.contains(requestedSize) else {
                throw DeviceError(.unsupported, uri: uri, "no \(format.rawValue) at \(requestedSize); the device offers \(Self.describe(sizes))")
            }
            size = requestedSize
        } else {
            size = Self.defaultSize(sizes)
        }
        let rates = try frameRates(fourCC: format.rawValue, size: size)
        var pixFormat = v4l2_format()
        pixFormat.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        pixFormat.fmt.pix.pixelformat = FourCC.code(format.rawValue)
        pixFormat.fmt.pix.width = UInt32(size.width)
        pixFormat.fmt.pix.height = UInt32(size.height)
        pixFormat.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try control(HAL_VIDIOC_S_FMT, &pixFormat, doing: "VIDIOC_S_FMT \(format.rawValue) \(size)")
        let set = V4L2Size(width: Int(pixFormat.fmt.pix.width), height: Int(pixFormat.fmt.pix.height))
        guard FourCC.string(pixFormat.fmt.pix.pixelformat) == format.rawValue, set == size else {
            throw DeviceError(.unsupported, uri: uri, "asked for \(format.rawValue) \(size), the driver set \(FourCC.string(pixFormat.fmt.pix.pixelformat)) \(set)")
        }
        var rate = 0.0
        if !rates.isEmpty {
            let chosen: Double
            if let requestedRate {
                guard let match = rates.first(where: { abs($0 - requestedRate) <= requestedRate * 0.01 }) else {
                    throw DeviceError(.unsupported, uri: uri, "no \(requestedRate) fps for \(format.rawValue) \(size); the device offers \(rates.map { Self.format($0) }.joined(separator: ", ")) fps")
                }
                chosen = match
            } else {
                chosen = rates.filter { $0 <= 30.5 }.max() ?? rates.min()!
            }
            rate = try setRate(chosen)
        } else if let requestedRate {
            throw DeviceError(.unsupported, uri: uri, "the device lists no frame rates for \(format.rawValue) \(size); cannot set \(requestedRate) fps")
        }
        return V4L2Format(
            pixelFormat: format, size: size, bytesPerRow: format.isCompressed ? 0 : Int(pixFormat.fmt.pix.bytesperline),
            imageSize: Int(pixFormat.fmt.pix.sizeimage), framesPerSecond: rate)
    }

    private func setRate(_ rate: Double) throws(DeviceError) -> Double {
        var parameters = v4l2_streamparm()
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        // A driver without V4L2_CAP_TIMEPERFRAME runs at its own rate: report it rather than fail.
        if hal_v4l2_ioctl(descriptor, HAL_VIDIOC_G_PARM, &parameters) == 0,
           parameters.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) == 0 {
            return Self.rate(parameters.parm.capture.timeperframe)
        }
        // An exact fraction for the common rates: 1/30, 1001/30000 and so on.
        let denominator = UInt32((rate * 1000).rounded())
        parameters.parm.capture.timeperframe = v4l2_fract(numerator: 1000, denominator: denominator)
        try control(HAL_VIDIOC_S_PARM, &parameters, doing: "VIDIOC_S_PARM \(rate) fps")
        return Self.rate(parameters.parm.capture.timeperframe)
    }

    /// The device's controls.
    public func controls() throws(DeviceError) -> [V4L2Control] {
        var controls: [V4L2Control] = []
        var query = v4l2_queryctrl()
        query.id = UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
        while hal_v4l2_ioctl(descriptor, HAL_VIDIOC_QUERYCTRL, &query) == 0 {
            if query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0, query.type != V4L2_CTRL_TYPE_CTRL_CLASS.rawValue {
                controls.append(V4L2Control(
                    id: query.id, name: Self.string(query.name), minimum: Int(query.minimum), maximum: Int(query.maximum),
                    isButton: query.type == V4L2_CTRL_TYPE_BUTTON.rawValue))
            }
            query.id |= UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
        }
        return controls
    }

    /// Sets a control by its name (case-insensitive), such as vivid's "Percentage of Dropped Buffers".
    public func setControl(named name: String, to value: Int) throws(DeviceError) {
        guard let found = try controls().first(where: { $0.name.lowercased() == name.lowercased() }) else {
            throw DeviceError(.unsupported, uri: uri, "no control named '\(name)'")
        }
        var setting = v4l2_control(id: found.id, value: Int32(value))
        try control(HAL_VIDIOC_S_CTRL, &setting, doing: "setting '\(found.name)' to \(value)")
    }

    static func rate(_ fraction: v4l2_fract) -> Double {
        fraction.numerator == 0 ? 0 : Double(fraction.denominator) / Double(fraction.numerator)
    }

    package static func format(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String((rate * 100).rounded() / 100)
    }

    package static func describe(_ sizes: V4L2FrameSizes) -> String {
        switch sizes {
        case .discrete(let list): list.map(\.description).joined(separator: ", ")
        case .stepwise(let minimum, let maximum, let step): "\(minimum) to \(maximum) in steps of \(step)"
        }
    }

    static func defaultSize(_ sizes: V4L2FrameSizes) -> V4L2Size {
        let wanted = V4L2Size(width: 640, height: 480)
        switch sizes {
        case .stepwise(let minimum, let maximum, _):
            return sizes.contains(wanted) ? wanted : V4L2Size(width: min(maximum.width, max(minimum.width, 640)), height: min(maximum.height, max(minimum.height, 480)))
        case .discrete(let list):
            if list.contains(wanted) { return wanted }
            return list.filter { $0.width * $0.height <= 640 * 480 }.max { $0.width * $0.height < $1.width * $1.height } ?? list.first ?? wanted
        }
    }

    /// A fixed-size C char array as a String.
    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// V4L2 four-character codes.
enum FourCC {
    static func code(_ text: String) -> UInt32 {
        text.utf8.prefix(4).enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    static func string(_ code: UInt32) -> String {
        String(decoding: (0..<4).map { UInt8((code >> (8 * $0)) & 0xff) }, as: UTF8.self)
    }
}
