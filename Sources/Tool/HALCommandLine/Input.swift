import ArgumentParser
import FoundationEssentials
import InputEvents
import Interchange
import TraceFormat

/// `hal input …`: Linux input recordings.
struct InputCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "input", abstract: "Linux input (evdev) recordings.", subcommands: [Import.self])

    /// `hal input import FILE.evemu -o TRACE [--role ROLE…]`.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "import", 
            abstract: "Import an evemu recording (evemu-record's '# EVEMU 1.3' files) into a trace.",
            discussion: "Events are decoded as the evdev backend decodes the live device, one channel per role (pointer, keys, accel, gyro, stick), with the recorded kernel timestamps.")

        @Argument(help: "The evemu recording.")
        var file: String

        @Option(name: [.short, .long], help: "The trace file to write.")
        var out: String

        @Option(name: .customLong("role"), help: "A role to import (repeatable): pointer, keys, accel, gyro or stick. Default: all the device offers.")
        var roles: [String] = []

        func run() throws {
            let bytes = try FileReads.read(path: file, expecting: "an evemu recording ('# EVEMU 1.3')")
            let recording = try EvemuRecording(text: String(decoding: bytes, as: UTF8.self), file: file)
            var chosen: [InputRole]?
            if !roles.isEmpty {
                chosen = try roles.map { name in
                    guard let role = InputRole(rawValue: name) else {
                        throw ValidationError("unknown role '\(name)' (roles: \(InputRole.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                    return role
                }
            }
            let trace = try recording.trace(source: "file:\(file)", roles: chosen, metadata: ["imported-from": file])
            try write(trace, to: out)
            let perChannel = trace.channelSummaries.map { "\($0.channel.id) \($0.count)" }.joined(separator: ", ")
            printError("wrote \(trace.records.count) records (\(perChannel)) from \(recording.events.count) events of '\(recording.device.name)' to \(out)")
        }
    }
}
