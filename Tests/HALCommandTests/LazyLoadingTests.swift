import Foundation
import Testing
import TestSupport

/// `hal` loads its C libraries (OpenCV through the bridge, alsa-lib, libsndfile, espeak-ng, libebur128, libiio,
/// libevdev, libxml2) when a command first uses one, not at start-up: what the dynamic loader says it loaded, per
/// command, and the error when a library cannot be loaded.
@Suite struct LazyLoadingTests {
    /// The libraries loaded lazily, by the soname the loader reports.
    static let lazyLibraries = [
        "libhal-opencv.so", "libopencv_core.so", "libasound.so", "libsndfile.so", "libespeak-ng.so", "libebur128.so", "libiio.so",
        "libevdev.so", "libxml2.so",
    ]

    /// The shared libraries `hal ARGUMENTS` loaded, from the dynamic loader's own report (`LD_DEBUG=files`), by file
    /// name without its directory.
    static func librariesLoaded(by arguments: String...) throws -> (run: Run, libraries: Set<String>) {
        try librariesLoaded(by: arguments)
    }

    /// The shared libraries `hal ARGUMENTS` loaded; `$TMP` in an argument is a folder removed afterwards.
    static func librariesLoaded(by arguments: [String]) throws -> (run: Run, libraries: Set<String>) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lazy-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var arguments = arguments
        for index in arguments.indices { arguments[index] = arguments[index].replacingOccurrences(of: "$TMP", with: folder) }
        let run = try hal(arguments, environment: ["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": folder + "/ld"])
        var libraries: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasPrefix("ld.") {
            for line in try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(separator: "\n") {
                guard let start = line.range(of: "file=") else { continue }
                let path = line[start.upperBound...].prefix { $0 != " " && $0 != "\t" && $0 != ";" }
                libraries.insert(String(path.split(separator: "/").last ?? path))
            }
        }
        return (run, libraries)
    }

    /// The lazily loaded libraries among `libraries`, by the names above (a soname's version left out).
    static func lazy(in libraries: Set<String>) -> Set<String> {
        Set(lazyLibraries.filter { name in libraries.contains { $0.hasPrefix(name) } })
    }

    @Test(arguments: [
        ["--help"],
        ["info", "traces/lobby-lookaround.jsonl"],
        ["replay", "--channels", "touch", "traces/lobby-lookaround.jsonl"],
        ["gps", "walk", "traces/ubc/main-mall-tour.walk.json", "--out", "$TMP/walk.jsonl"],
    ])
    func aCommandThatTouchesNoDeviceLoadsNoCLibrary(_ arguments: [String]) throws {
        let (run, libraries) = try Self.librariesLoaded(by: arguments)
        #expect(run.status == 0, "\(run.errors)")
        #expect(!libraries.isEmpty, "the loader reported nothing")
        #expect(Self.lazy(in: libraries) == [], "\(arguments)")
    }

    /// The check can fail: commands that use a library load it, and not the libraries of other devices. (A library
    /// may bring others of the list itself: espeak-ng's audio output links alsa-lib, and OpenCV's video I/O libxml2.)
    @Test func aCommandLoadsWhatItUses() throws {
        let spoken = try Self.librariesLoaded(by: "say", "hello", "--out", "$TMP/hello.wav")
        #expect(spoken.run.status == 0, "\(spoken.run.errors)")
        #expect(Self.lazy(in: spoken.libraries).isSuperset(of: ["libespeak-ng.so", "libsndfile.so"]))
        #expect(Self.lazy(in: spoken.libraries).isDisjoint(with: ["libhal-opencv.so", "libopencv_core.so", "libiio.so", "libevdev.so", "libxml2.so"]))

        let read = try Self.librariesLoaded(by: "expressions", "traces/fieldguide/frames/cam-00.png")
        #expect(read.run.status == 0, "\(read.run.errors)")
        #expect(Self.lazy(in: read.libraries).isSuperset(of: ["libhal-opencv.so", "libopencv_core.so"]))
        #expect(Self.lazy(in: read.libraries).isDisjoint(with: ["libespeak-ng.so", "libsndfile.so", "libebur128.so", "libiio.so", "libevdev.so"]))

        let imported = try Self.librariesLoaded(by: "gps", "import", "Fuzz/corpus/gpx/track.gpx", "--out", "$TMP/track.jsonl")
        #expect(imported.run.status == 0, "\(imported.run.errors)")
        #expect(Self.lazy(in: imported.libraries) == ["libxml2.so"])
    }

    /// A library that cannot be loaded is an error naming it and the Debian package to install, not a crash: a file
    /// that is not a library stands in for it, first on the loader's path (or as the bridge).
    @Test func aLibraryThatCannotBeLoadedNamesItsDebianPackage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["libespeak-ng.so.1", "libxml2.so.2", "libhal-opencv.so"] {
            try "not a library".write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        }
        let cases: [(arguments: [String], environment: [String: String], message: String)] = [
            (["say", "hello", "--out", folder + "/hello.wav"], ["LD_LIBRARY_PATH": folder],
             "espeak-ng (libespeak-ng.so.1) could not be loaded"),
            (["gps", "import", "Fuzz/corpus/gpx/track.gpx", "--out", folder + "/track.jsonl"], ["LD_LIBRARY_PATH": folder],
             "libxml2 (libxml2.so.2) could not be loaded"),
            (["expressions", "traces/fieldguide/frames/cam-00.png"], ["HAL_OPENCV_BRIDGE": folder + "/libhal-opencv.so"],
             "the OpenCV bridge (libhal-opencv.so) could not be loaded"),
        ]
        let packages = ["install Debian's libespeak-ng1", "install Debian's libxml2", "install Debian's libopencv-dev and libyuv-dev"]
        for (entry, package) in zip(cases, packages) {
            let run = try hal(entry.arguments, environment: entry.environment)
            #expect(run.status != 0 && run.status < 128, "\(entry.arguments): \(run.status)")
            #expect(run.errors.contains(entry.message), "\(entry.arguments): \(run.errors)")
            #expect(run.errors.contains(package), "\(entry.arguments): \(run.errors)")
            #expect(run.errors.contains("invalid ELF header") || run.errors.contains("too short"), "\(run.errors)")
        }
    }
}
