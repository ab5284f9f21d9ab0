// swift-tools-version: 6.1
//
// An example of a project built on swift-sensor-hal, as a user's own package would be: its own app logic, its own
// sensor kind (soil moisture), a shipped trace and scenario, tests through the session library, and its own
// hal-compatible command line. It depends on the package by path.

import PackageDescription

let strictSwift6: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "greenhouse",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Greenhouse", targets: ["Greenhouse"]),
        .executable(name: "greenhouse", targets: ["greenhouse"]),
    ],
    dependencies: [
        .package(name: "swift-sensor-hal", path: "../.."),
    ],
    targets: [
        // The app and its sensor kind: depends on the app protocol and the HAL only.
        .target(
            name: "Greenhouse",
            dependencies: [
                .product(name: "HAL", package: "swift-sensor-hal"),
                .product(name: "AppCore", package: "swift-sensor-hal"),
            ],
            swiftSettings: strictSwift6),
        // `greenhouse`: the package's command line, knowing this app and this kind.
        .executableTarget(
            name: "greenhouse",
            dependencies: ["Greenhouse", .product(name: "HALCommandLine", package: "swift-sensor-hal")],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "GreenhouseTests",
            dependencies: [
                "Greenhouse", "greenhouse",
                .product(name: "HAL", package: "swift-sensor-hal"),
                .product(name: "AppCore", package: "swift-sensor-hal"),
                .product(name: "Session", package: "swift-sensor-hal"),
                .product(name: "TraceFormat", package: "swift-sensor-hal"),
                .product(name: "Replay", package: "swift-sensor-hal"),
            ],
            swiftSettings: strictSwift6),
    ]
)
