public import AppCore
import FoundationEssentials
public import HAL

/// The field guide's settings.
public struct FieldGuideConfig: Sendable, Hashable, Codable {
    /// The card's aspect ratio, `[width, height]`; 5:7 (a portrait card) by default.
    public var cardAspect: [Int]?
    /// The oldest fix a capture accepts, seconds; 10 by default.
    public var maxFixAge: Double?
    /// The oldest frame a capture accepts, seconds; 1 by default.
    public var maxFrameAge: Double?
    /// Whether a capture opens the crop view, where the box is moved and scaled before the entry is saved
    /// (PhyloDex's crop step); off by default, so that a capture saves the centred crop at once.
    public var cropBeforeSaving: Bool?

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
    /// When the photo was taken.
    public var taken: Timestamp
}

/// The field guide (PhyloDex): capture a camera frame together with the current location into an entry,
/// cropped to the card's aspect ratio.
///
/// A capture comes from the camera key (`KEY_CAMERA`, 212), a tap on the shutter (x 0.35–0.65,
/// y 0.85–1) or the `capture` command. It is refused, with the reason, when there is no frame, the frame
/// is older than ``FieldGuideConfig/maxFrameAge``, there is no fix (or the last fix was lost), or the fix
/// is older than ``FieldGuideConfig/maxFixAge``. A gap in frame sequence numbers shows `camera.framesDropped`;
/// a frame cut short (``HAL/Frame/damage``) shows `camera.frameDamaged` and is never captured.
///
/// **The crop view** (``FieldGuideConfig/cropBeforeSaving``): a capture shows the card-shaped box on the photo
/// (`crop.shown`). A one-finger drag on the photo moves it, a two-finger pinch scales it (spreading the fingers
/// zooms in: a smaller box), always in the card's ratio and inside the photo (`crop.changed`); the commands
/// `moveCrop dx dy` (pixels) and `scaleCrop factor` do the same. The shutter, the camera key or `capture` saves the
/// entry with that box (`capture.saved`); **Cancel** (x 0–0.3, y 0.85–1) or `cancelCrop` drops it (`capture.cancelled`).
///
/// **Entries are kept** in the app's ``AppCore/AppStorage``: each saved entry's photo as `entry-N.png` (or `.jpg`,
/// or `.raw` for pixels), and the list with the crops and fixes as ``storeFile``. A run restores them first
/// (`guide.started entries=N`), so numbering goes on across runs; `hal run fieldguide --storage DIR` keeps them in a
/// folder.
public struct FieldGuide: AppLogic {
    /// `fieldguide`.
    public static let name = "fieldguide"
    /// Every event the app emits and every command it takes, so that a scenario's typo is refused before the run.
    public static let vocabulary: AppVocabulary? = AppVocabulary(
        events: [
            "camera.frameDamaged", "camera.framesDropped", "capture.cancelled", "capture.refused", "capture.saved",
            "crop.changed", "crop.shown", "gps.acquired", "gps.lost", "guide.started",
        ],
        commands: ["capture", "saveCrop", "cancelCrop", "moveCrop", "scaleCrop"],
        attributes: [
            "camera.frameDamaged": ["frame", "problem"],
            "camera.framesDropped": ["count"],
            "capture.cancelled": ["entry"],
            "capture.refused": ["reason"],
            "capture.saved": ["accuracy", "crop", "entry", "fixAge", "frame", "lat", "lon"],
            "crop.changed": ["crop", "entry"],
            "crop.shown": ["crop", "entry"],
            "gps.acquired": [],
            "gps.lost": [],
            "guide.started": ["cardAspect", "entries"],
        ])
    /// The shutter button.
    public static let shutter = ScreenRegion(x: 0.35, y: 0.85, width: 0.3, height: 0.15)
    /// `KEY_CAMERA` in `linux/input-event-codes.h`.
    public static let cameraKey = 212
    /// The crop view's cancel button.
    public static let cancelButton = ScreenRegion(x: 0, y: 0.85, width: 0.3, height: 0.15)
    /// The smallest crop box, pixels wide.
    public static let minimumCropWidth = 16
    /// The entry list's file in the app's storage.
    public static let storeFile = "entries.json"

    private let config: FieldGuideConfig
    private var frame: Frame?
    private var lastSequence: UInt64?
    private var fix: LocationFix?
    private var fixLost = false
    private var taps = TapDetector()
    private var keys = KeyPresses()
    /// The capture in the crop view: the whole frame and the box so far.
    private var pending: FieldEntry?
    /// Fingers down on the screen, for the pinch, and the distance between two when the second went down.
    private var fingers: [Int: (x: Double, y: Double)] = [:]
    private var pinchStart: Double?
    /// The entries captured so far.
    public private(set) var entries: [FieldEntry] = []

    /// Creates the guide with validated settings.
    public init(config: FieldGuideConfig) throws(AppConfigError) {
        try config.validate()
        self.config = config
    }

    public mutating func start(at time: Timestamp, output: inout AppOutput) {
        let aspect = config.cardAspect ?? [5, 7]
        output.emit("guide.started", at: time, ["cardAspect": .string("\(aspect[0]):\(aspect[1])"), "entries": .int(Int64(entries.count))])
    }

    /// One entry as ``storeFile`` keeps it; the photo is in its own file.
    struct StoredEntry: Codable {
        var number: Int
        var taken: Int64
        var crop: [Int]
        var photo: String
        var sequence: UInt64
        var width: Int
        var height: Int
        var format: PixelFormat
        var bytesPerRow: Int
        var fixTime: Int64
        var lat: Double
        var lon: Double
        var accuracy: Double?
    }

    /// Reads the entries an earlier run kept. Errors name the file and the field.
    public mutating func restore(from storage: any AppStorage) throws {
        guard let list = try storage.read(Self.storeFile) else { return }
        let stored: [StoredEntry]
        do {
            stored = try JSONDecoder().decode([StoredEntry].self, from: Data(list))
        } catch let error as DecodingError {
            throw AppConfigError(field: "\(Self.storeFile): \(Self.path(of: error))", "\(Self.reason(of: error))")
        }
        var numbers: Set<Int> = []
        entries = try stored.enumerated().map { index, entry in
            let field = "\(Self.storeFile): [\(index)]"
            guard entry.number > 0, numbers.insert(entry.number).inserted else {
                throw AppConfigError(field: "\(field).number", "\(entry.number); expected a number above 0 that no other entry has")
            }
            guard entry.crop.count == 4 else { throw AppConfigError(field: "\(field).crop", "expected [x, y, width, height]") }
            guard let photo = try storage.read(entry.photo) else {
                throw AppConfigError(field: "\(field).photo", "'\(entry.photo)' is not in the storage")
            }
            if !entry.format.isCompressed, photo.count < entry.bytesPerRow * entry.height {
                throw AppConfigError(field: "\(field).photo", "'\(entry.photo)' has \(photo.count) bytes; \(entry.width)×\(entry.height) needs \(entry.bytesPerRow * entry.height)")
            }
            let fix = LocationFix(
                timestamp: Timestamp(nanoseconds: entry.fixTime), mode: .threeDimensional,
                coordinate: GeoCoordinate(latitude: entry.lat, longitude: entry.lon), horizontalAccuracy: entry.accuracy)
            return FieldEntry(
                number: entry.number,
                frame: Frame(
                    timestamp: Timestamp(nanoseconds: entry.taken), sequence: entry.sequence, width: entry.width, height: entry.height,
                    pixelFormat: entry.format, bytesPerRow: entry.bytesPerRow, storage: .bytes(photo)),
                crop: FaceBox(x: entry.crop[0], y: entry.crop[1], width: entry.crop[2], height: entry.crop[3]), fix: fix,
                taken: Timestamp(nanoseconds: entry.taken))
        }
    }

    private static func path(of error: DecodingError) -> String {
        let path: [any CodingKey]
        switch error {
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
        @unknown default:
            path = []
        }
        return path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }

    private static func reason(of error: DecodingError) -> String {
        switch error {
        case .keyNotFound: "missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context): context.debugDescription
        @unknown default: "\(error)"
        }
    }

    private static func photoName(of entry: FieldEntry) -> String {
        "entry-\(entry.number)." + (entry.frame.pixelFormat == .png ? "png" : entry.frame.pixelFormat == .mjpeg ? "jpg" : "raw")
    }

    /// Writes the entry's photo and the whole list to the storage.
    private func store(_ entry: FieldEntry, output: inout AppOutput) {
        let photo = Self.photoName(of: entry)
        switch entry.frame.storage {
        case .bytes(let bytes): output.store(.bytes(bytes), as: photo)
        case .file(let path): output.store(.copy(ofFile: path), as: photo)
        }
        let list = entries.map { entry in
            StoredEntry(
                number: entry.number, taken: entry.taken.nanoseconds, crop: [entry.crop.x, entry.crop.y, entry.crop.width, entry.crop.height],
                photo: Self.photoName(of: entry),
                sequence: entry.frame.sequence, width: entry.frame.width, height: entry.frame.height, format: entry.frame.pixelFormat,
                bytesPerRow: entry.frame.bytesPerRow, fixTime: entry.fix.timestamp.nanoseconds, lat: entry.fix.coordinate!.latitude,
                lon: entry.fix.coordinate!.longitude, accuracy: entry.fix.horizontalAccuracy)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        do {
            output.store(.bytes([UInt8](try encoder.encode(list))), as: Self.storeFile)
        } catch {
            // The list on disk stays as it was rather than lose the entries it holds.
            output.emit("storage.failed", at: entry.taken, ["file": .string(Self.storeFile), "error": .string("\(error)")])
        }
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
        case .reading(.key(let key), _) where key.code == Self.cameraKey:
            if keys.isPress(key) { capture(at: key.timestamp, output: &output) }
        case .reading(.pointer(let event), _):
            handle(event, output: &output)
        case .command(let command):
            handle(command, output: &output)
        default:
            break
        }
    }

    private mutating func handle(_ command: AppCommand, output: inout AppOutput) {
        let time = command.timestamp
        switch command.action {
        case "capture", "saveCrop":
            capture(at: time, output: &output)
        case "cancelCrop":
            guard pending != nil else { return output.refuse(command, "no capture is being cropped") }
            cancel(at: time, output: &output)
        case "moveCrop", "scaleCrop":
            guard pending != nil else { return output.refuse(command, "no capture is being cropped") }
            let number = { (key: String, fallback: Double) in command.arguments[key].map { Double($0) } ?? fallback }
            guard let dx = number("dx", 0), let dy = number("dy", 0), let factor = number("factor", 1),
                  abs(dx) <= 100_000, abs(dy) <= 100_000, (0.01...100).contains(factor) else {
                return output.refuse(command, "dx and dy are pixels (at most 100000 either way), factor 0.01…100")
            }
            adjustCrop(moveX: dx, moveY: dy, scale: factor, at: time, output: &output)
        default:
            output.refuse(command, "unknown action")
        }
    }

    private mutating func handle(_ event: PointerEvent, output: inout AppOutput) {
        let time = event.timestamp
        switch event.phase {
        case .press, .move:
            fingers[event.pointer] = (event.x, event.y)
        case .release, .cancel:
            break
        }
        if event.phase == .press, fingers.count == 2 {
            pinchStart = fingerSpread
            taps = TapDetector()  // two fingers down: no tap, no drag
        }
        if event.phase == .release || event.phase == .cancel {
            if let start = pinchStart {
                // The pinch ends with the first finger up; the other finger's release is then nothing. Forgetting both
                // also forgets a finger whose release was lost, which would make every later touch a pinch.
                pinchStart = nil
                fingers[event.pointer] = (event.x, event.y)
                if pending != nil, start > 0, let end = fingerSpread, end > 0 {
                    adjustCrop(moveX: 0, moveY: 0, scale: start / end, at: time, output: &output)
                }
                fingers.removeAll()
                return
            }
            fingers.removeAll()
        }
        guard pinchStart == nil else { return }
        switch taps.gesture(event) {
        case .tap(let x, let y):
            if Self.shutter.contains(x: x, y: y) {
                capture(at: time, output: &output)
            } else if pending != nil, Self.cancelButton.contains(x: x, y: y) {
                cancel(at: time, output: &output)
            }
        case .swipe(let x, let y, let dx, let dy):
            guard let entry = pending, y < Self.shutter.y, x >= 0 else { return }
            adjustCrop(moveX: dx * Double(entry.frame.width), moveY: dy * Double(entry.frame.height), scale: 1, at: time, output: &output)
        case .longPress, nil:
            break
        }
    }

    /// How far apart two fingers on the screen are, in screen widths.
    private var fingerSpread: Double? {
        guard fingers.count == 2 else { return nil }
        let points = Array(fingers.values)
        let dx = points[0].x - points[1].x, dy = points[0].y - points[1].y
        return (dx * dx + dy * dy).squareRoot()
    }

    private mutating func cancel(at time: Timestamp, output: inout AppOutput) {
        guard let entry = pending else { return }
        pending = nil
        output.emit("capture.cancelled", at: time, ["entry": .int(Int64(entry.number))])
    }

    private mutating func adjustCrop(moveX: Double, moveY: Double, scale: Double, at time: Timestamp, output: inout AppOutput) {
        guard var entry = pending else { return }
        let aspect = config.cardAspect ?? [5, 7]
        entry.crop = Self.adjusted(
            entry.crop, moveX: moveX, moveY: moveY, scale: scale, width: entry.frame.width, height: entry.frame.height,
            aspect: (aspect[0], aspect[1]), format: entry.frame.pixelFormat)
        pending = entry
        output.emit("crop.changed", at: time, ["entry": .int(Int64(entry.number)), "crop": .string(Self.describe(entry.crop))])
    }

    private static func describe(_ crop: FaceBox) -> String { "\(crop.x),\(crop.y),\(crop.width),\(crop.height)" }

    /// `box` moved by `moveX`, `moveY` pixels and scaled by `scale` about its centre, in the card's ratio, at least
    /// ``minimumCropWidth`` wide, at most the largest card that fits, and inside the frame.
    public static func adjusted(
        _ box: FaceBox, moveX: Double, moveY: Double, scale: Double, width: Int, height: Int, aspect: (Int, Int), format: PixelFormat
    ) -> FaceBox {
        let align = pixelAlignment(format)
        let largest = cardCrop(width: width, height: height, aspect: aspect, format: format)
        let smallest = min(largest.width, minimumCropWidth)
        let newWidth = align(min(largest.width, max(smallest, Int((Double(box.width) * scale).rounded()))))
        let newHeight = newWidth == largest.width ? largest.height : max(1, align(newWidth * aspect.1 / aspect.0))
        let centreX = Double(box.x) + Double(box.width) / 2 + moveX
        let centreY = Double(box.y) + Double(box.height) / 2 + moveY
        let x = align(min(max(0, Int((centreX - Double(newWidth) / 2).rounded())), width - newWidth))
        let y = align(min(max(0, Int((centreY - Double(newHeight) / 2).rounded())), height - newHeight))
        return FaceBox(x: x, y: y, width: newWidth, height: newHeight)
    }

    private mutating func capture(at time: Timestamp, output: inout AppOutput) {
        if let entry = pending {
            pending = nil
            return save(entry, at: time, output: &output)
        }
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
        let entry = FieldEntry(number: (entries.map(\.number).max() ?? 0) + 1, frame: frame, crop: crop, fix: fix, taken: time)
        guard config.cropBeforeSaving == true else { return save(entry, at: time, output: &output) }
        pending = entry
        output.emit("crop.shown", at: time, ["entry": .int(Int64(entry.number)), "crop": .string(Self.describe(crop))])
    }

    /// Saves `entry` (whose frame is still whole) cut to its crop.
    private mutating func save(_ entry: FieldEntry, at time: Timestamp, output: inout AppOutput) {
        var saved = entry
        saved.frame = Self.cropped(entry.frame, to: entry.crop)
        entries.append(saved)
        store(saved, output: &output)
        let fix = entry.fix
        output.emit("capture.saved", at: time, [
            "entry": .int(Int64(entry.number)), "frame": .int(Int64(entry.frame.sequence)),
            "lat": .rounded(fix.coordinate!.latitude, places: 6), "lon": .rounded(fix.coordinate!.longitude, places: 6),
            "accuracy": fix.horizontalAccuracy.map { .rounded($0) } ?? .string("unknown"),
            "fixAge": .rounded(fix.timestamp.duration(to: entry.taken).seconds), "crop": .string(Self.describe(entry.crop)),
        ])
    }

    private static func format(_ seconds: Double) -> String { "\((seconds * 10).rounded() / 10)" }

    /// Rounds a pixel position down to what the format can be cut at: even for the subsampled YUYV and NV12.
    private static func pixelAlignment(_ format: PixelFormat) -> (Int) -> Int {
        format == .yuyv || format == .nv12 ? { $0 & ~1 } : { $0 }
    }

    /// The largest centred rectangle of the card's aspect ratio, with even edges for subsampled formats.
    public static func cardCrop(width: Int, height: Int, aspect: (Int, Int), format: PixelFormat) -> FaceBox {
        let align = pixelAlignment(format)
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
