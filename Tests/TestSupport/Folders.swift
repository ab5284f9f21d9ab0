import Foundation

/// The package's root folder, found from this file's path: tests read `traces/` and the
/// built `hal` from here, never from outside the package.
public let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
    }
    fatalError("Package.swift not found above \(#filePath)")
}()

/// A fresh empty folder for one test, under the system's temporary folder.
public func makeScratchFolder() throws -> String {
    let path = NSTemporaryDirectory() + "hal-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// The script that reads and writes HAL traces in MCAP with PyPI `mcap` and `mcap-protobuf-support`, for the tests
/// that check our files against them.
public let mcapTracePeer = packageRoot + "/Tests/SimulationTests/Fixtures/mcap_trace_peer.py"
