import COpenCV
import FoundationEssentials
import HAL

/// The OpenCV bridge: the package's C API over OpenCV and libyuv, built by the `OpenCVBridge` plugin into
/// `libhal-opencv.so` and loaded the first time a frame is converted, an image or video is read, or a model is
/// loaded. `hal` links no OpenCV library, so a command that never touches a camera, an image or a video never loads
/// the about 250 shared libraries OpenCV pulls in.
///
/// The library is looked for, in order:
/// 1. at `HAL_OPENCV_BRIDGE`, when that is set;
/// 2. beside the running program, as `libhal-opencv.so` (how an installed `hal` carries it);
/// 3. where the plugin built it.
public enum OpenCVBridge {
    /// The library's file name.
    public static let fileName = "libhal-opencv.so"

    /// The places the library is looked for, in order.
    public static var searchPaths: [String] {
        var paths: [String] = []
        if let path = ProcessInfo.processInfo.environment["HAL_OPENCV_BRIDGE"], !path.isEmpty { paths.append(path) }
        if let folder = runningProgramFolder() { paths.append(folder + "/" + fileName) }
        paths.append(openCVBridgeBuildPath)
        return paths
    }

    /// Whether the bridge, and so OpenCV, is loaded in this process.
    public static var isLoaded: Bool { COpenCV_is_loaded() != 0 }

    /// Loads the bridge unless it is loaded: the first place in ``searchPaths`` holding the file. Throws when none
    /// does, or when it cannot be loaded (an OpenCV library missing), saying what to install.
    public static func load() throws(CameraError) {
        if isLoaded { return }
        let paths = searchPaths
        guard let path = paths.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw CameraError(
                "the OpenCV bridge (\(fileName)) is in none of: \(paths.joined(separator: ", ")); it is built with the package "
                    + "(swift build), and an installed hal keeps it beside itself")
        }
        if let failure = COpenCV_load(path) { throw CameraError(String(cString: failure)) }
    }
}
