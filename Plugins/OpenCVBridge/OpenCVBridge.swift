import Foundation
import PackagePlugin

/// Builds the OpenCV bridge, `libhal-opencv.so`: the package's C API over OpenCV and libyuv
/// (`Sources/Camera/OpenCVBridge/hal_opencv.cpp`, declared in `COpenCV/include/hal_opencv.h`), compiled and linked
/// with the toolchain's clang++ into a library of its own, which FrameSources loads the first time a frame is
/// decoded. `hal` itself links no OpenCV library, so a command that opens no camera or video loads none of the
/// about 250 shared libraries OpenCV pulls in.
///
/// It also writes `OpenCVBridgeLocation.swift`, which tells FrameSources where the library was built.
@main struct OpenCVBridge: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let package = context.package.directoryURL
        let source = package.appending(path: "Sources/Camera/OpenCVBridge/hal_opencv.cpp")
        let header = package.appending(path: "Sources/Camera/COpenCV/include/hal_opencv.h")
        let library = context.pluginWorkDirectoryURL.appending(path: "libhal-opencv.so")
        let location = context.pluginWorkDirectoryURL.appending(path: "OpenCVBridgeLocation.swift")
        let compiler = try context.tool(named: "clang++").url
        let libraries = ["opencv_core", "opencv_imgproc", "opencv_imgcodecs", "opencv_videoio", "opencv_objdetect", "opencv_dnn", "yuv"]
        // One shell command so that the library and the file naming it are written together.
        let script = """
            "$0" -std=c++17 -O2 -g -fPIC -shared -Wall -Werror -I "$1" -I /usr/include/opencv4 -o "$2" "$3" \(libraries.map { "-l" + $0 }.joined(separator: " ")) \
            && printf '/// Where the OpenCV bridge was built: the last place FrameSources looks for it.\\nlet openCVBridgeBuildPath = "%s"\\n' "$2" > "$4"
            """
        return [
            .buildCommand(
                displayName: "Building the OpenCV bridge (libhal-opencv.so)",
                executable: URL(filePath: "/bin/sh"),
                arguments: ["-c", script, compiler.path, header.deletingLastPathComponent().path, library.path, source.path, location.path],
                inputFiles: [source, header],
                // The library is not declared an output: SwiftPM would take it for a resource, copy it and give
                // FrameSources a resource bundle on Foundation's Bundle, which `hal` would load at every start. It is
                // written with the file naming it, so it is rebuilt whenever that is.
                outputFiles: [location])
        ]
    }
}
