// swift-tools-version: 6.1
//
// The greenhouse example's own command line, `greenhouse`: the sensor HAL's command line under its own name, with
// the greenhouse app and the soil-moisture kind. A package of its own, because the command line links every
// backend (and so their C libraries), which the app and its tests (../Greenhouse) do without.

import PackageDescription

let package = Package(
    name: "greenhouse-tool",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "greenhouse", targets: ["greenhouse"]),
    ],
    dependencies: [
        .package(name: "swift-sensor-hal", path: "../.."),
        .package(name: "greenhouse", path: "../Greenhouse"),
    ],
    targets: [
        .executableTarget(
            name: "greenhouse",
            dependencies: [
                .product(name: "Greenhouse", package: "greenhouse"),
                .product(name: "HALCommandLine", package: "swift-sensor-hal"),
            ]),
        .testTarget(name: "GreenhouseToolTests", dependencies: ["greenhouse"]),
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
