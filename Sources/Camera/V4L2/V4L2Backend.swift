public import HAL
import FoundationEssentials

/// Opens `v4l2:/dev/videoN?format=…&width=…&height=…&fps=…&buffers=…&convert=gray|bgr` cameras, and lists
/// the video-capture nodes in sysfs.
public struct V4L2Backend: DeviceBackend {
    /// `v4l2`.
    public var scheme: String { "v4l2" }
    /// What `hal devices` says about the backend.
    public var summary: String { "V4L2 cameras: v4l2:/dev/videoN[?format=YUYV|MJPG|NV12|GREY|RGB3|BGR3&width=W&height=H&fps=N&buffers=N&convert=gray|bgr]" }
    /// Where sysfs lists video nodes.
    public var sysfsClass: String

    /// Creates the backend.
    public init(sysfsClass: String = "/sys/class/video4linux") {
        self.sysfsClass = sysfsClass
    }

    /// Opens the camera a URI names.
    public func open(_ uri: DeviceURI) throws -> any Device {
        guard uri.body.hasPrefix("/") else { throw DeviceError(.invalidURI, uri: uri.description, "expected v4l2:/dev/videoN") }
        return try V4L2Camera(path: uri.body, options: V4L2CaptureOptions(uri: uri), uri: "v4l2:\(uri.body)")
    }

    /// The capture nodes, with their formats, or why they cannot be opened.
    public func discover() throws -> [DeviceInfo] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: sysfsClass) else { return [] }
        var devices: [DeviceInfo] = []
        for name in names.filter({ $0.hasPrefix("video") }).sorted(by: { (Int($0.dropFirst(5)) ?? .max, $0) < (Int($1.dropFirst(5)) ?? .max, $1) }) {
            let path = "/dev/\(name)"
            do throws(DeviceError) {
                let camera = try V4L2Camera(path: path)
                devices.append(camera.info)
            } catch {
                if error.code == .wrongKind { continue }  // metadata or output nodes
                let label = (try? String(contentsOfFile: "\(sysfsClass)/\(name)/name", encoding: .utf8))?.trimmedWhitespace
                devices.append(DeviceInfo(uri: "v4l2:\(path)", name: label ?? name, kind: .camera, backend: "v4l2", unavailableReason: error.message))
            }
        }
        return devices
    }
}
