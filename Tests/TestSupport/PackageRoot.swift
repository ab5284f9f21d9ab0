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
