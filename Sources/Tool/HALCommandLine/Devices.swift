import ArgumentParser
import HAL

/// `hal devices`: what the factory can open.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "List the backends and the devices they can open now.")

    @OptionGroup var search: SearchOptions

    func run() throws {
        let factory = makeDeviceFactory(searchFolders: search.folders)
        var out = StandardOutput()
        out.line("backends:")
        for backend in factory.backends { out.line("  \(pad(backend.scheme + ":", 8)) \(backend.summary)") }
        let discovery = factory.discover()
        out.line("devices:")
        for device in discovery.devices {
            var line = "  \(pad(device.uri, 48)) \(pad(device.kind.rawValue, 14)) \(device.name)"
            if let rate = device.rate { line += ", \(format3(rate)) Hz" }
            if device.capabilities.count > 1 { line += " (offers \(device.capabilities.joined(separator: ", ")))" }
            out.line(line)
            if let reason = device.unavailableReason { out.line("      cannot open: \(reason)") }
        }
        if discovery.devices.isEmpty { out.line("  (none found in \(search.folders.joined(separator: ", ")))") }
        out.flush()
        for problem in discovery.problems { printError("warning: \(problem)") }
    }
}
