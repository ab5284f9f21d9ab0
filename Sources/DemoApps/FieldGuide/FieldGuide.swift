public import AppCore
public import HAL

/// The field guide's settings.
public struct FieldGuideConfig: Sendable, Hashable, Codable {
    /// The card's aspect ratio, `[width, height]`; 5:7 (a portrait card) by default.
    public var cardAspect: [Int]?
    /// The oldest fix a capture accepts, seconds; 10 by default.
    public var maxFixAge: Double?
    /// The oldest frame a capture accepts, seconds; 1 by default.
    public var maxFrameAge: Double?

    /// Creates settings.
    public init(cardAspect: [Int] = [5, 7], maxFixAge: Double = 10, maxFrameAge: Double = 1) {
        self.cardAspect = cardAspect
        self.maxFixAge = maxFixAge
        self.maxFrameAge = maxFrameAge
    }

    /// Checks the settings, naming the first bad field.
    public func validate() throws(AppConfigError) {
        if let aspect = cardAspect, aspect.count != 2 || aspect.contains(where: { !(1...100).contains($0) }) {
            throw AppConfigError(field: "cardAspect", "expected [width, height], each 1…100")
        }
        if let age = maxFixAge, !(0.1...3600).contains(age) { throw AppConfigError(field: "maxFixAge", "\(age); expected 0.1…3600 seconds") }
        if let age = maxFrameAge, !(0.01...60).contains(age) { throw AppConfigError(field: "maxFrameAge", "\(age); expected 0.01…60 seconds") }
    }
}

/// One field-guide entry: a photo cropped to the card, and where it was taken.
public struct FieldEntry: Sendable, Hashable {
    /// 1, 2, …
    public var number: Int
    /// The photo. In-memory frames of packed or NV12 formats hold the cropped pixels; encoded frames
    /// (JPEG, PNG, frame files) keep the whole image, and ``crop`` says what to cut when it is decoded.
    public var frame: Frame
    /// The card-shaped rectangle of the original frame `(x, y, width, height)`, pixels.
    public var crop: FaceBox
    /// Where the photo was taken.
    public var fix: LocationFix
}

/// The field guide (PhyloDex): capture a camera frame together with the current location into an entry,
/// cropped to the card's aspect ratio.
///
/// A capture comes from the camera key (`KEY_CAMERA`, 212), a tap on the shutter (x 0.35–0.65,
/// y 0.85–1) or the `capture` command. It is refused, with the reason, when there is no frame, the frame
/// is older than ``FieldGuideConfig/maxFrameAge``, there is no fix (or the last fix was lost), or the fix
/// is older than ``FieldGuideConfig/maxFixAge``. A gap in frame sequence numbers shows `camera.framesDropped`;
/// a frame cut short (``HAL/Frame/damage``) shows `camera.frameDamaged` and is never captured.
public struct FieldGuide: AppLogic {
    /// `fieldguide`.
    public static let name = "fieldguide"
    /// The shutter button.
    public static let shutter = ScreenRegion(x: 0.35, y: 0.85, width: 0.3, height: 0.15)
    /// `KEY_CAMERA` in `linux/input-event-codes.h`.
    public static let cameraKey = 212

    private let config: FieldGuideConfig
    private var frame: Frame?
    private var lastSequence: UInt64?
    private var fix: LocationFix?
    private var fixLost = false
    private var taps = TapDetector()
    /// The entries captured so far.
    public private(set) var entries: [FieldEntry] = []

    /// Creates the guide with validated settings.
    public init(config: FieldGuideConfig) throws(AppConfigError) {
        try config.validate()
        self.config = config
    }

    public mutating func start(at time: Timestamp, output: inout AppOutput) {
        let aspect = config.cardAspect ?? [5, 7]
        output.emit("guide.started", at: time, ["cardAspect": .string("\(aspect[0]):\(aspect[1])")])
    }

    public mutating func handle(_ input: AppInput, output: inout AppOutput) {
        switch input {
        case .reading(.frame(let newFrame), _):
            if let last = lastSequence, newFrame.sequence > last, newFrame.sequence - last > 1 {
                output.emit("camera.framesDropped", at: newFrame.timestamp, ["count": .int(Int64(truncatingIfNeeded: newFrame.sequence - last - 1))])
            }
            lastSequence = newFrame.sequence
            if let damage = newFrame.damage {
                // Never captured: the last whole frame stays, and ages out by maxFrameAge.
                output.emit("camera.frameDamaged", at: newFrame.timestamp, ["frame": .int(Int64(truncatingIfNeeded: newFrame.sequence)), "problem": .string(damage)])
            } else {
                frame = newFrame
            }
        case .reading(.location(let newFix), _):
            if newFix.mode == .none || newFix.coordinate == nil {
                if !fixLost, fix != nil { output.emit("gps.lost", at: newFix.timestamp) }
                fixLost = true
            } else {
                if fixLost || fix == nil { output.emit("gps.acquired", at: newFix.timestamp) }
                fixLost = false
                fix = newFix
            }
        case .reading(.key(let key), _) where key.code == Self.cameraKey && key.state == .press:
            capture(at: key.timestamp, output: &output)
        case .reading(.pointer(let event), _):
            if let tap = taps.handle(event), Self.shutter.contains(x: tap.x, y: tap.y) { capture(at: event.timestamp, output: &output) }
        case .command(let command) where command.action == "capture":
            capture(at: command.timestamp, output: &output)
        case .command(let command):
            output.refuse(command, "unknown action")
        default:
            break
        }
    }

    private mutating func capture(at time: Timestamp, output: inout AppOutput) {
        func refuse(_ reason: String) { output.emit("capture.refused", at: time, ["reason": .string(reason)]) }
        guard let frame else { return refuse("no camera frame") }
        let frameAge = frame.timestamp.duration(to: time).seconds
        guard frameAge <= config.maxFrameAge ?? 1 else {
            return refuse("the last camera frame is \(Self.format(frameAge)) s old; at most \(Self.format(config.maxFrameAge ?? 1)) s")
        }
        guard let fix, !fixLost else { return refuse(fixLost ? "the GPS fix is lost" : "no GPS fix yet") }
        let fixAge = fix.timestamp.duration(to: time).seconds
        guard fixAge <= config.maxFixAge ?? 10 else {
            return refuse("the GPS fix is \(Self.format(fixAge)) s old; at most \(Self.format(config.maxFixAge ?? 10)) s")
        }
        let aspect = config.cardAspect ?? [5, 7]
        let crop = Self.cardCrop(width: frame.width, height: frame.height, aspect: (aspect[0], aspect[1]), format: frame.pixelFormat)
        let entry = FieldEntry(number: entries.count + 1, frame: Self.cropped(frame, to: crop), crop: crop, fix: fix)
        entries.append(entry)
        output.emit("capture.saved", at: time, [
            "entry": .int(Int64(entry.number)), "frame": .int(Int64(frame.sequence)),
            "lat": .rounded(fix.coordinate!.latitude, places: 6), "lon": .rounded(fix.coordinate!.longitude, places: 6),
            "accuracy": fix.horizontalAccuracy.map { .rounded($0) } ?? .string("unknown"), "fixAge": .rounded(fixAge),
            "crop": .string("\(crop.x),\(crop.y),\(crop.width),\(crop.height)"),
        ])
    }

    private static func format(_ seconds: Double) -> String { "\((seconds * 10).rounded() / 10)" }

    /// The largest centred rectangle of the card's aspect ratio, with even edges for subsampled formats.
    public static func cardCrop(width: Int, height: Int, aspect: (Int, Int), format: PixelFormat) -> FaceBox {
        let even = format == .yuyv || format == .nv12
        func align(_ value: Int) -> Int { even ? value & ~1 : value }
        if width * aspect.1 > height * aspect.0 {  // too wide: cut the sides
            let cropWidth = align(height * aspect.0 / aspect.1)
            return FaceBox(x: align((width - cropWidth) / 2), y: 0, width: cropWidth, height: height)
        }
        let cropHeight = align(width * aspect.1 / aspect.0)
        return FaceBox(x: 0, y: align((height - cropHeight) / 2), width: width, height: cropHeight)
    }

    /// The frame cut to `crop`, when its pixels are in memory in a format that can be cut without decoding.
    public static func cropped(_ frame: Frame, to crop: FaceBox) -> Frame {
        guard case .bytes(let bytes) = frame.storage else { return frame }
        let bytesPerPixel: Int
        switch frame.pixelFormat {
        case .grey: bytesPerPixel = 1
        case .yuyv: bytesPerPixel = 2
        case .rgb24, .bgr24: bytesPerPixel = 3
        case .nv12: return croppedNV12(frame, bytes: bytes, to: crop)
        case .mjpeg, .png: return frame
        }
        let needed = (crop.y + crop.height - 1) * frame.bytesPerRow + (crop.x + crop.width) * bytesPerPixel
        guard crop.height > 0, bytes.count >= needed else { return frame }
        var pixels: [UInt8] = []
        pixels.reserveCapacity(crop.width * crop.height * bytesPerPixel)
        for row in crop.y..<(crop.y + crop.height) {
            let start = row * frame.bytesPerRow + crop.x * bytesPerPixel
            pixels += bytes[start..<(start + crop.width * bytesPerPixel)]
        }
        var result = frame
        result.width = crop.width
        result.height = crop.height
        result.bytesPerRow = crop.width * bytesPerPixel
        result.storage = .bytes(pixels)
        return result
    }

    private static func croppedNV12(_ frame: Frame, bytes: [UInt8], to crop: FaceBox) -> Frame {
        let stride = frame.bytesPerRow
        guard bytes.count >= stride * frame.height * 3 / 2 else { return frame }
        var pixels: [UInt8] = []
        for row in crop.y..<(crop.y + crop.height) {
            let start = row * stride + crop.x
            pixels += bytes[start..<(start + crop.width)]
        }
        let chroma = stride * frame.height
        for row in (crop.y / 2)..<((crop.y + crop.height) / 2) {
            let start = chroma + row * stride + crop.x
            pixels += bytes[start..<(start + crop.width)]
        }
        var result = frame
        result.width = crop.width
        result.height = crop.height
        result.bytesPerRow = crop.width
        result.storage = .bytes(pixels)
        return result
    }
}
