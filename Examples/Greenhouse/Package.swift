// swift-tools-version: 6.1
//
// An example of a project built on swift-sensor-hal, as a user's own package would be: its own app logic, its own
// sensor kind (soil moisture), a shipped trace and scenario, and tests through the session library. It depends on
// the package by path, and on its light core alone (HAL, AppCore, Session and the trace format): it builds and
// tests with the Swift toolchain and no C library. Its command line is the separate package ../GreenhouseTool.

import PackageDescription

let package = Package(
    name: "greenhouse",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Greenhouse", targets: ["Greenhouse"]),
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
            ]),
        .testTarget(
            name: "GreenhouseTests",
            dependencies: [
                "Greenhouse",
                .product(name: "HAL", package: "swift-sensor-hal"),
                .product(name: "AppCore", package: "swift-sensor-hal"),
                .product(name: "Session", package: "swift-sensor-hal"),
                .product(name: "TraceFormat", package: "swift-sensor-hal"),
                .product(name: "Replay", package: "swift-sensor-hal"),
            ]),
    ]
)

for target in package.targets {
    target.swiftSettings = [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
