// swift-tools-version: 6.1
//
// A hardware-abstraction layer and sensor simulator for Linux.
//
// The targets are grouped in folders that show the architecture (docs/architecture.md has the tree and the import
// rules, which `ArchitectureTests` checks):
//
//   Sources/HAL/        the protocols and values every other module builds on, and the one libc import
//   Sources/Sensors/    real devices: the system-call layer, IIO, evdev, GPS, NMEA, speaker output, motion fusion
//   Sources/Camera/     V4L2 capture, frame sources on OpenCV, the facial-expression pipeline
//   Sources/Simulator/  traces (JSON Lines; MCAP by registration), replay and faults, synthesis, interchange, plots
//   Sources/Apps/       what app authors touch: AppCore, Session, ScenarioSuite, and the five shipped apps
//   Sources/Tool/       the command line as a library, and `hal`
//
// Dependencies point one way: HAL is at the bottom, backends and the simulator build on it, app logic imports
// AppCore and HAL only, and the tool ties them together. Each C library sits behind one thin target beside the
// module that uses it.

import PackageDescription

/// Applied to every Swift target, below.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let systemPackage = Target.Dependency.product(name: "SystemPackage", package: "swift-system")

var targets: [Target] = []

// MARK: Sources/HAL

targets += [
    // Protocols and Sendable value types only: no C library, no device I/O.
    .target(name: "HAL", dependencies: ["LibC"], path: "Sources/HAL/HAL"),
    // The C library's Swift module (Glibc, Musl or Darwin), imported in one place.
    .target(name: "LibC", path: "Sources/HAL/LibC"),
]

// MARK: Sources/Sensors

targets += [
    // The one system-call layer, on swift-system: file descriptors and errno as typed errors, the device thread
    // that keeps blocking I/O off the cooperative pool, line reading with timeouts, TCP and pseudo-terminals.
    .target(
        name: "SystemSupport", dependencies: ["HAL", "LibC", "CPseudoTerminal", systemPackage],
        path: "Sources/Sensors/SystemSupport"),
    // posix_openpt needs _XOPEN_SOURCE, which Swift's Glibc module does not expose.
    .target(name: "CPseudoTerminal", path: "Sources/Sensors/CPseudoTerminal"),

    // IIO motion and single-quantity sensors through libiio, local or through iiod (`iio:`).
    .target(name: "IIO", dependencies: ["HAL", "LibC", "SystemSupport", "CIIO"], path: "Sources/Sensors/IIO"),
    .systemLibrary(name: "CIIO", path: "Sources/Sensors/CIIO", pkgConfig: "libiio", providers: [.apt(["libiio-dev"])]),

    // evdev input devices through libevdev (`evdev:`).
    .target(name: "Evdev", dependencies: ["HAL", "LibC", "SystemSupport", "InputEvents", "CEvdev"], path: "Sources/Sensors/Evdev"),
    .systemLibrary(name: "CEvdev", path: "Sources/Sensors/CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
    // Linux input events: device descriptions, decoding into pointer, key and motion readings, and evemu
    // recordings. Pure logic, shared by the evdev backend and the evemu importer.
    .target(name: "InputEvents", dependencies: ["HAL"], path: "Sources/Sensors/InputEvents"),

    // GPS receivers over NMEA (serial, file, TCP) and gpsd clients (`nmea:`, `gpsd://`).
    .target(name: "GPS", dependencies: ["HAL", "LibC", "SystemSupport", "NMEA"], path: "Sources/Sensors/GPS"),
    // NMEA 0183: sentences, epochs and fixes. Pure parsing, shared by receivers and importers.
    .target(name: "NMEA", dependencies: ["HAL"], path: "Sources/Sensors/NMEA"),

    // Speaker output: ALSA playback, WAV files, espeak-ng text-to-speech, EBU R 128 loudness and its guard.
    .target(
        name: "Audio", dependencies: ["HAL", "LibC", "HALTestDoubles", "CALSA", "CSndfile", "CEspeakNG", "CEbur128"],
        path: "Sources/Sensors/Audio"),
    .systemLibrary(name: "CALSA", path: "Sources/Sensors/CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
    .systemLibrary(name: "CSndfile", path: "Sources/Sensors/CSndfile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
    .systemLibrary(name: "CEspeakNG", path: "Sources/Sensors/CEspeakNG", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"])]),
    .systemLibrary(name: "CEbur128", path: "Sources/Sensors/CEbur128", pkgConfig: "libebur128", providers: [.apt(["libebur128-dev"])]),

    // Orientation fusion and the panorama's motion controls: pure logic on HAL values.
    .target(name: "Motion", dependencies: ["HAL", "LibC"], path: "Sources/Sensors/Motion"),
]

// MARK: Sources/Camera

targets += [
    // V4L2 capture with mmap streaming (`v4l2:`).
    .target(name: "V4L2", dependencies: ["HAL", "LibC", "SystemSupport", "FrameSources", "CV4L2"], path: "Sources/Camera/V4L2"),
    // V4L2's request codes and a non-variadic ioctl, which Swift cannot import from the kernel headers.
    .target(name: "CV4L2", path: "Sources/Camera/CV4L2"),

    // Frames from files on OpenCV: image sequences, videos, the test pattern, the video screen, the video writer.
    .target(name: "FrameSources", dependencies: ["HAL", "HALTestDoubles", "COpenCV"], path: "Sources/Camera/FrameSources"),
    // The facial-expression input: Haar face detection and the mini-Xception FER model through OpenCV's dnn module.
    .target(name: "Expressions", dependencies: ["HAL", "FrameSources", "COpenCV"], path: "Sources/Camera/Expressions"),
    // A C API over OpenCV 4.6 (Debian's libopencv-dev), and libyuv (libyuv-dev) for YUV frames, so that Swift
    // reaches them without C++ interop.
    .target(
        name: "COpenCV", path: "Sources/Camera/COpenCV",
        cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4"])],
        linkerSettings: ["opencv_core", "opencv_imgproc", "opencv_imgcodecs", "opencv_videoio", "opencv_objdetect", "opencv_dnn", "yuv"]
            .map { .linkedLibrary($0) }),
]

// MARK: Sources/Simulator

targets += [
    // The trace format: channels, records, the JSON Lines reader and writer with its JSON scanner, the JSON file
    // helpers (script and config files with errors that name the line and field), and the registry other
    // containers plug into.
    .target(name: "TraceFormat", dependencies: ["HAL", "LibC", systemPackage], path: "Sources/Simulator/TraceFormat"),
    // Traces in MCAP (Foxglove's and the HAL's protobuf schemas, from proto/) and ROS 2 recordings in MCAP: a
    // registered trace container.
    .target(name: "TraceMCAP", dependencies: ["HAL", "TraceFormat", "MCAP", systemPackage], path: "Sources/Simulator/TraceMCAP"),
    // The MCAP container (https://mcap.dev/spec): records, chunks in zstd or lz4, message and chunk indexes,
    // statistics, the summary and its CRCs. A reader with indexed seeking and a writer; no HAL types.
    .target(name: "MCAP", dependencies: ["CCompression", systemPackage], path: "Sources/Simulator/MCAP"),
    // Debian's libzstd, liblz4 (frame format) and libdeflate (CRC-32), for MCAP's chunks.
    .systemLibrary(
        name: "CCompression", path: "Sources/Simulator/CCompression", providers: [.apt(["libzstd-dev", "liblz4-dev", "libdeflate-dev"])]),

    // Driving the HAL from traces: replay on a virtual clock, seeded faults, the recorder, the
    // trace: backend.
    .target(name: "Replay", dependencies: ["HAL", "LibC", "TraceFormat", "HALTestDoubles"], path: "Sources/Simulator/Replay"),
    // Test doubles on the HAL alone, as NIOEmbedded is on NIOCore: the virtual clock, a capturing speaker, a
    // scripted screen.
    .target(name: "HALTestDoubles", dependencies: ["HAL", "LibC"], path: "Sources/Simulator/HALTestDoubles"),
    // Seeded synthesis of inputs: motion scripts and trajectories, IMU noise, GPS walks, expression timelines,
    // and the sim: backend that replays what they generate.
    .target(name: "Synthesis", dependencies: ["HAL", "LibC", "TraceFormat", "Replay"], path: "Sources/Simulator/Synthesis"),
    // Other programs' files and devices: GPX and KML, NMEA logs in and out, NMEA served on a pty or TCP for
    // gpsd, and evemu recordings.
    .target(
        name: "Interchange", dependencies: ["HAL", "LibC", "TraceFormat", "Replay", "Synthesis", "NMEA", "InputEvents", "SystemSupport"],
        path: "Sources/Simulator/Interchange"),
    // Pictures of traces: routes, time series, expression scores and event lanes as SVG (`hal plot`).
    .target(name: "Plotting", dependencies: ["HAL", "LibC", "TraceFormat"], path: "Sources/Simulator/Plotting"),
]

// MARK: Sources/Apps

targets += [
    // The app protocol: AppLogic, its inputs and outputs, the runner, expectations, event logs and the scenario
    // file format. What a third party's app depends on; it imports HAL only.
    .target(name: "AppCore", dependencies: ["HAL"], path: "Sources/Apps/AppCore"),
    // Runs any AppLogic against replayed or live inputs, scripted commands, faults and a speaker, on a virtual or
    // the monotonic clock: the event log, expectation results and a recording. What hal run, hal test and users'
    // tests call. No C library beneath it: real speakers and screens are handed to it.
    .target(
        name: "Session", dependencies: ["HAL", "AppCore", "TraceFormat", "Replay", "Synthesis", "HALTestDoubles"],
        path: "Sources/Apps/Session"),
    // Scenario suites for CI: discovery, shards, parallel runs through the session, golden logs and their diffs,
    // the determinism check, JUnit and JSON reports. What hal test calls.
    .target(
        name: "ScenarioSuite", dependencies: ["HAL", "AppCore", "Session", "TraceFormat", "Replay", "HALTestDoubles"],
        path: "Sources/Apps/ScenarioSuite"),
    // Seeded exploration of a scenario's faults and noise, and shrinking a failing variant to a minimal case: what
    // hal test --explore and --shrink call, and what a user's tests call.
    .target(
        name: "Exploration", dependencies: ["HAL", "AppCore", "Session", "ScenarioSuite", "TraceFormat", "Replay", "Synthesis"],
        path: "Sources/Apps/Exploration"),
    // The five apps of the original specs as state machines over AppCore, with Motion for the panorama's motion
    // controls (pure logic, no I/O), never a backend.
    .target(name: "DemoApps", dependencies: ["HAL", "LibC", "AppCore", "Motion"], path: "Sources/Apps/DemoApps"),
]

// MARK: Sources/Tool

targets += [
    // The `hal` command line as a library: every subcommand, over the libraries, with the apps, kinds and backends
    // handed to it, so that a project builds its own hal-compatible tool in one line.
    .target(
        name: "HALCommandLine",
        dependencies: [
            "HAL", "LibC", "TraceFormat", "TraceMCAP", "MCAP", "Replay", "Synthesis", "Interchange", "Motion", "IIO", "Evdev",
            "GPS", "InputEvents", "Audio", "AppCore", "Session", "ScenarioSuite", "Exploration", "V4L2", "FrameSources", "Expressions",
            "SystemSupport", "Plotting", "HALTestDoubles", argumentParser,
        ],
        path: "Sources/Tool/HALCommandLine"),
    // The `hal` tool: the command line with the five shipped apps.
    .executableTarget(name: "hal", dependencies: ["HALCommandLine", "DemoApps"], path: "Sources/Tool/hal"),
]

// MARK: Benchmarks and fuzzing

targets += [
    // Replay throughput: `Benchmarks/run` (JSON Lines) and `Benchmarks/mcap` build this in release and run it beside
    // its peers.
    .executableTarget(
        name: "ReplayThroughput", dependencies: ["HAL", "LibC", "TraceFormat", "TraceMCAP", "MCAP", "Replay", "Synthesis", "Interchange"],
        path: "Benchmarks/ReplayThroughput"),
    // Attitude-fusion cost: `Benchmarks/fusion` builds this in release and runs it beside x-io Fusion.
    .executableTarget(
        name: "FusionUpdate", dependencies: ["HAL", "LibC", "Motion", "TraceFormat", "Replay", "Synthesis", "Interchange"],
        path: "Benchmarks/FusionUpdate"),
    // Device read cost: `Benchmarks/devices` builds this in release and runs it under umockdev beside a C loop.
    .executableTarget(
        name: "DeviceRead", dependencies: ["HAL", "IIO", "Evdev", "InputEvents", "UmockdevFixtures"], path: "Benchmarks/DeviceRead"),
    // Time to first sound: `Benchmarks/first-sound` builds this in release and runs it beside aplay and espeak-ng.
    .executableTarget(name: "FirstSound", dependencies: ["HAL", "Audio"], path: "Benchmarks/FirstSound"),
    // The camera pipeline's cost: `Benchmarks/camera` builds this in release and runs it beside fer's Python pipeline.
    .executableTarget(
        name: "CameraPipeline", dependencies: ["HAL", "FrameSources", "Expressions", "FaceScenes"], path: "Benchmarks/CameraPipeline"),
    // Place lookups: `Benchmarks/spatial` builds this in release and runs it beside SQLite's R*Tree.
    .executableTarget(
        name: "SpatialLookup",
        dependencies: ["HAL", "AppCore", "DemoApps", "TraceFormat", "Replay", "Synthesis", "Interchange", "CSQLite"],
        path: "Benchmarks/SpatialLookup"),
    // SQLite's headers, for the R*Tree peer of the place-lookup benchmark only.
    .systemLibrary(name: "CSQLite", path: "Benchmarks/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    // Exploration and shrinking: `Benchmarks/explore` builds this in release to time shrinking the planted failure.
    .executableTarget(
        name: "ExploreShrink", dependencies: ["HAL", "AppCore", "Session", "Replay", "Exploration", "PlantedBug"], path: "Benchmarks/ExploreShrink"),
    // NMEA decode throughput: `Benchmarks/nmea` builds this in release and runs it beside pynmea2.
    .executableTarget(name: "NMEADecode", dependencies: ["HAL", "NMEA"], path: "Benchmarks/NMEADecode"),

    // Fuzz entry points over every parser: `scripts/fuzz` builds them with libFuzzer's instrumentation.
    .target(
        name: "FuzzEntries",
        dependencies: ["TraceFormat", "TraceMCAP", "MCAP", "Replay", "Synthesis", "Interchange", "NMEA", "InputEvents", "AppCore", "DemoApps"],
        path: "Fuzz/FuzzEntries"),
]

// MARK: Tests

targets += [
    // What several test targets share: where the package is, waiting for a state.
    .target(name: "TestSupport", dependencies: ["LibC"], path: "Tests/TestSupport"),
    // Files that make umockdev emulate input devices (from evemu descriptions) and IIO buffers: shared by the
    // device tests and the device-read benchmark.
    .target(name: "UmockdevFixtures", dependencies: ["InputEvents"], path: "Tests/UmockdevFixtures"),
    // Pictures composed from the shipped test face, for the camera tests and the camera benchmark.
    .target(name: "FaceScenes", dependencies: ["FrameSources", "Expressions"], path: "Tests/FaceScenes"),
    // An app with a planted bug only two overlapping faults reach, and its scenario: for the exploration tests and the
    // shrink benchmark.
    .target(name: "PlantedBug", dependencies: ["HAL", "AppCore"], path: "Tests/PlantedBug"),
    // The V4L2 checks that need the vivid driver: CameraTests runs this inside a qemu guest.
    .executableTarget(name: "VividChecks", dependencies: ["HAL", "V4L2", "FrameSources"], path: "Tests/VividChecks"),

    // The package's shape: the import rules of docs/architecture.md and the light core's dependency closure.
    .testTarget(name: "ArchitectureTests", dependencies: ["TestSupport"]),
    .testTarget(name: "MCAPTests", dependencies: ["MCAP", "TestSupport"], exclude: ["Fixtures"]),
    .testTarget(name: "HALTests", dependencies: ["HAL", "HALTestDoubles", "TestSupport"], exclude: ["Fixtures"]),
    .testTarget(name: "HALTestDoublesTests", dependencies: ["HAL", "HALTestDoubles"]),
    .testTarget(
        name: "SimulationTests",
        dependencies: ["HAL", "TraceFormat", "TraceMCAP", "MCAP", "Replay", "Synthesis", "Interchange", "HALTestDoubles", "TestSupport"],
        resources: [.copy("Fixtures")]),
    .testTarget(name: "NMEATests", dependencies: ["HAL", "NMEA", "TestSupport"], resources: [.copy("Fixtures")]),
    .testTarget(
        name: "SensorsTests",
        dependencies: [
            "HAL", "LibC", "NMEA", "IIO", "Evdev", "GPS", "SystemSupport", "TraceFormat", "Replay", "Synthesis", "Interchange",
            "InputEvents", "HALTestDoubles", "TestSupport", "UmockdevFixtures",
        ],
        exclude: ["Fixtures"]),
    .testTarget(
        name: "AudioTests",
        dependencies: ["HAL", "LibC", "Audio", "CSndfile", "TraceFormat", "Replay", "Synthesis", "Interchange", "HALTestDoubles", "hal", "TestSupport"],
        exclude: ["Fixtures"]),
    .testTarget(name: "InputEventsTests", dependencies: ["HAL", "InputEvents"]),
    .testTarget(
        name: "MotionTests", dependencies: ["HAL", "HALTestDoubles", "Motion", "TraceFormat", "Replay", "Synthesis", "Interchange", "TestSupport"]),
    .testTarget(
        name: "CameraTests",
        dependencies: ["HAL", "LibC", "V4L2", "FrameSources", "Expressions", "TraceFormat", "Replay", "Synthesis", "Interchange", "TestSupport", "FaceScenes"]),
    .testTarget(
        name: "DemoAppsTests",
        dependencies: [
            "HAL", "LibC", "AppCore", "DemoApps", "Session", "FrameSources", "Expressions", "TraceFormat", "Replay", "Synthesis", "Interchange",
            "Audio", "HALTestDoubles", "HALCommandLine", "TestSupport",
        ]),
    .testTarget(
        name: "ScenarioSuiteTests",
        dependencies: ["HAL", "AppCore", "Session", "ScenarioSuite", "DemoApps", "HALTestDoubles", "HALCommandLine", "TestSupport"]),
    .testTarget(
        name: "ExplorationTests",
        dependencies: ["HAL", "AppCore", "Session", "ScenarioSuite", "Exploration", "TraceFormat", "Replay", "PlantedBug", "TestSupport"]),
    .testTarget(
        name: "HALCommandTests",
        dependencies: ["hal", "HAL", "LibC", "TraceFormat", "TraceMCAP", "MCAP", "Replay", "Synthesis", "Interchange", "Plotting", "TestSupport"],
        exclude: ["Fixtures"]),
]

/// The C targets, which take no Swift settings.
let cTargets: Set<String> = ["CPseudoTerminal", "CV4L2", "COpenCV"]
for target in targets where target.type != .system && !cTargets.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}

let package = Package(
    name: "swift-sensor-hal",
    platforms: [.macOS(.v15)],
    products: [
        // The core: no C library beneath any of these.
        .library(name: "HAL", targets: ["HAL"]),
        .library(name: "HALTestDoubles", targets: ["HALTestDoubles"]),
        .library(name: "AppCore", targets: ["AppCore"]),
        .library(name: "Session", targets: ["Session"]),
        .library(name: "TraceFormat", targets: ["TraceFormat"]),
        .library(name: "Replay", targets: ["Replay"]),
        .library(name: "Synthesis", targets: ["Synthesis"]),
        .library(name: "ScenarioSuite", targets: ["ScenarioSuite"]),
        .library(name: "Exploration", targets: ["Exploration"]),
        .library(name: "Motion", targets: ["Motion"]),
        .library(name: "NMEA", targets: ["NMEA"]),
        .library(name: "InputEvents", targets: ["InputEvents"]),
        .library(name: "Plotting", targets: ["Plotting"]),
        // Real devices and file formats over C libraries.
        .library(name: "SystemSupport", targets: ["SystemSupport"]),
        .library(name: "IIO", targets: ["IIO"]),
        .library(name: "Evdev", targets: ["Evdev"]),
        .library(name: "GPS", targets: ["GPS"]),
        .library(name: "Audio", targets: ["Audio"]),
        .library(name: "V4L2", targets: ["V4L2"]),
        .library(name: "FrameSources", targets: ["FrameSources"]),
        .library(name: "Expressions", targets: ["Expressions"]),
        .library(name: "MCAP", targets: ["MCAP"]),
        .library(name: "TraceMCAP", targets: ["TraceMCAP"]),
        .library(name: "Interchange", targets: ["Interchange"]),
        .library(name: "DemoApps", targets: ["DemoApps"]),
        .library(name: "HALCommandLine", targets: ["HALCommandLine"]),
        .executable(name: "hal", targets: ["hal"]),
        // The parsers' fuzz entry points, for `scripts/fuzz` (built with -sanitize=fuzzer there).
        .library(name: "FuzzEntries", type: .dynamic, targets: ["FuzzEntries"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        // `swift package generate-documentation`: the DocC catalogs, which scripts/test builds with warnings as errors.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: targets
)
