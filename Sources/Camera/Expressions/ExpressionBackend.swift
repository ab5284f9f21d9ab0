public import HAL

/// Opens `expressions:CAMERA-URI` devices: the HAL ``HAL/ExpressionSensor`` over any camera the factory
/// can open, through fer's pipeline. `smooth=N`, `fast=1`, `redetect=N` (frames between full face detections,
/// 10 by default; 1 detects every frame in full) and `models=DIR` are the sensor's own options; the
/// rest of the URI is the camera's: `expressions:v4l2:/dev/video0?format=YUYV&smooth=5`,
/// `expressions:trace:session.jsonl?fast=1#camera`.
public struct ExpressionBackend: DeviceBackend {
    /// Opens the camera a URI names, and says where its frame files are (a trace's folder).
    public typealias CameraOpener = @Sendable (String) throws -> (camera: any Camera, frameFolder: String?)

    /// `expressions`.
    public var scheme: String { "expressions" }
    /// What `hal devices` says about the backend.
    public var summary: String { "facial expressions from a camera: expressions:CAMERA-URI[?smooth=N&fast=1&redetect=N&models=DIR]" }
    /// The default models folder.
    public let models: String
    private let openCamera: CameraOpener

    /// Creates the backend.
    public init(models: String = "models", openCamera: @escaping CameraOpener) {
        self.models = models
        self.openCamera = openCamera
    }

    /// Opens the camera and wraps it.
    public func open(_ uri: DeviceURI) throws -> any Device {
        var smoothing = 1, fast = false, models = models, redetect = 10
        var cameraQuery: [String] = []
        for (key, value) in uri.query {
            switch key {
            case "smooth":
                guard let window = Int(value), (1...100).contains(window) else {
                    throw DeviceError(.invalidURI, uri: uri.description, "smooth=\(value): expected 1…100 frames")
                }
                smoothing = window
            case "fast": fast = value != "0"
            case "redetect":
                guard let frames = Int(value), (1...1000).contains(frames) else {
                    throw DeviceError(.invalidURI, uri: uri.description, "redetect=\(value): expected 1…1000 frames")
                }
                redetect = frames
            case "models": models = value
            default: cameraQuery.append(value.isEmpty ? key : "\(key)=\(value)")
            }
        }
        let inner = uri.body + (cameraQuery.isEmpty ? "" : "?" + cameraQuery.joined(separator: "&")) + (uri.fragment.map { "#" + $0 } ?? "")
        let (camera, folder) = try openCamera(inner)
        let classifier: ExpressionClassifier
        do {
            classifier = try ExpressionClassifier(files: .folder(models), detection: fast ? .fast : .init())
        } catch {
            throw DeviceError(.notFound, uri: uri.description, "\(error)")
        }
        return Self.sensor(camera, classifier: classifier, smoothing: smoothing, folder: folder, redetect: redetect)
    }

    private static func sensor<Source: Camera>(
        _ camera: Source, classifier: ExpressionClassifier, smoothing: Int, folder: String?, redetect: Int
    ) -> any ExpressionSensor {
        CameraExpressionSensor(
            camera: camera, classifier: classifier, smoothing: smoothing, frameFolder: folder,
            detection: StreamingDetection(redetectEvery: redetect))
    }

    /// Expression sensors are opened by URI over a camera, not discovered.
    public func discover() throws -> [DeviceInfo] { [] }
}
