import ArgumentParser
import V4L2
import FrameSources
import HAL
import TraceFormat

/// `hal camera list|grab|record`.
struct CameraCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "camera", abstract: "List cameras, grab a frame, or record frames into a trace.",
        subcommands: [List.self, Grab.self, RecordFrames.self])

    /// `hal camera list`: V4L2 capture nodes with their formats, sizes and rates.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List V4L2 cameras with their formats, sizes and frame rates.")

        func run() throws {
            var out = StandardOutput()
            let cameras = try V4L2Backend().discover()
            if cameras.isEmpty { out.line("no V4L2 capture devices") }
            for camera in cameras {
                out.line("\(camera.uri)  \(camera.name)")
                if let reason = camera.unavailableReason {
                    out.line("    cannot open: \(reason)")
                    continue
                }
                let device = try V4L2Device(path: String(camera.uri.dropFirst("v4l2:".count)))
                for format in try device.formats() where format.pixelFormat != nil {
                    let sizes = try device.frameSizes(fourCC: format.fourCC)
                    var line = "    \(format.fourCC) \(format.description):"
                    switch sizes {
                    case .discrete(let list):
                        for size in list.prefix(8) {
                            let rates = try device.frameRates(fourCC: format.fourCC, size: size)
                            line += " \(size)@\(rates.map { V4L2Device.format($0) }.joined(separator: "/"))"
                        }
                    case .stepwise:
                        line += " \(V4L2Device.describe(sizes))"
                    }
                    out.line(line)
                }
            }
            out.flush()
        }
    }

    /// `hal camera grab URI -o FILE`: one frame as an image file.
    struct Grab: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "grab", abstract: "Save one frame as an image file (.png or .jpg).")

        @Argument(help: "The camera: v4l2:/dev/video0?…, pattern:bars, images:FOLDER, video:FILE, trace:FILE#CHANNEL.")
        var uri: String

        @Option(name: [.short, .long], help: "The image to write (.png or .jpg).")
        var out: String

        @Option(help: "Skip this many frames first (a camera's first frames can be dark).")
        var skip = 0

        func run() async throws {
            try FileWrites.checkWritable(out)
            let camera = try makeDeviceFactory().open(uri, as: (any Camera).self)
            var seen = 0
            for try await frame in camera.readings(buffering: .unbounded) {
                if seen < skip { seen += 1; continue }
                try CVImage.image(of: frame, frameFolder: frameFolder(uri), as: .bgr).write(to: out)
                printError("wrote frame \(frame.sequence) (\(frame.width)x\(frame.height) \(frame.pixelFormat.rawValue)) to \(out)")
                return
            }
            throw ValidationError("\(uri) gave no frame")
        }
    }

    /// `hal camera record URI -o TRACE --frames N`: frames into a trace, as PNG or JPEG files beside it.
    struct RecordFrames: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "record", abstract: "Record frames into a trace; they are saved as PNG or JPEG files in TRACE.frames/ beside it.")

        @Argument(help: "The camera URI.")
        var uri: String

        @Option(name: [.short, .long], help: "The trace to write.")
        var out: String

        @Option(help: "How many frames.")
        var frames = 30

        @Option(help: "How raw frames are stored: png (lossless) or jpg.")
        var encode = "png"

        func validate() throws {
            guard ["png", "jpg"].contains(encode) else { throw ValidationError("--encode takes png or jpg") }
            guard frames > 0 else { throw ValidationError("--frames takes a positive number") }
        }

        func run() async throws {
            let camera = try makeDeviceFactory().open(uri, as: (any Camera).self)
            var channel = TraceChannel(id: "camera", device: camera.info)
            channel.units = nil
            let writer = try TraceFiles.makeWriter(path: out, header: TraceHeader(channels: [channel], metadata: ["recorded-by": "\(HALCommandLine.toolName) camera record"]))
            var count = 0
            for try await frame in camera.readings(buffering: .unbounded) {
                var stored = frame
                if !frame.pixelFormat.isCompressed || frame.storage.isFile {
                    let encoded = try CVImage.image(of: frame, frameFolder: frameFolder(uri), as: .bgr).encoded(as: "." + encode)
                    stored.pixelFormat = encode == "png" ? .png : .mjpeg
                    stored.bytesPerRow = 0
                    stored.storage = .bytes(encoded)
                }
                try writer.write(.frame(stored), channel: "camera")
                count += 1
                if count == frames { break }
            }
            try writer.close()
            printError("wrote \(count) frames to \(out)\((writer as? TraceWriter).map { " and \($0.frameFolder)/" } ?? "")")
            if let v4l2 = camera as? V4L2Camera {
                let counts = v4l2.statistics
                printError("the camera delivered \(counts.delivered) frames (\(counts.repeated) with a repeated sequence number), dropped \(counts.dropped), skipped \(counts.errors) as errors")
            }
        }
    }
}

/// The folder relative frame files are in, for a `trace:` camera.
func frameFolder(_ uri: String) -> String? {
    guard let parsed = try? DeviceURI(uri), parsed.scheme == "trace" else { return nil }
    return TracePath.folder(ofTraceAt: parsed.body)
}

extension FrameStorage {
    var isFile: Bool {
        if case .file = self { return true }
        return false
    }
}
