import ArgumentParser
import FoundationEssentials
import HAL
import Interchange
import Replay
import Synthesis
import SystemSupport
import TraceFormat
import NMEA

/// `hal gps …`: walks for QA, file formats, and privacy.
struct GPSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gps",
        abstract: "Scripted GPS walks, NMEA and GPX files, and privacy scrubbing of recorded routes.",
        subcommands: [Walk.self, Export.self, Import.self, Scrub.self, Serve.self])

    /// `hal gps walk SCENARIO -o TRACE`.
    struct Walk: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "walk", 
            abstract: "Generate a trace from a GPS walk scenario (.walk.json). The same scenario and seed give the same bytes.")

        @Argument(help: "The walk scenario.")
        var scenario: String

        @Option(name: [.short, .long], help: "The trace file to write.")
        var out: String

        func run() throws {
            let (walk, places) = try WalkScenario.load(path: scenario)
            let trace = walk.generate(places: places, source: "sim:\(scenario)")
            try write(trace, to: out)
            let fixes = trace.records.compactMap { LocationFix($0.reading) }
            let lost = fixes.filter { $0.mode == FixMode.none }.count
            let headings = trace.records.count - fixes.count
            let pointing = headings > 0 ? " and \(headings) heading samples" : ""
            printError("wrote \(fixes.count) fixes (\(lost) without a fix)\(pointing), \(format3(trace.duration.seconds)) s, to \(out)")
        }
    }

    /// `hal gps export TRACE --gpx|--nmea [-o FILE]`.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "export", abstract: "Export a trace's location channel as GPX or as an NMEA log.")

        enum Format: String, EnumerableFlag {
            case gpx, nmea
        }

        @Argument(help: "The trace file: .jsonl or .mcap.")
        var trace: String

        @Flag(help: "The output format.")
        var format: Format

        @Option(help: "The location channel, when the trace has several.")
        var channel: String?

        @Option(name: [.short, .long], help: "The file to write; standard output when absent.")
        var out: String?

        func run() throws {
            let loaded = try Trace.load(path: trace)
            let track = try LocationTrack(trace: loaded, channel: channel)
            let name = loaded.header.metadata["title"] ?? URL(fileURLWithPath: trace).deletingPathExtension().lastPathComponent
            let text = format == .gpx ? track.gpx(name: name) : track.nmea()
            if let out {
                try FileWrites.write(Array(text.utf8), to: out)
                printError("wrote \(track.fixes.count) fixes as \(format.rawValue.uppercased()) to \(out)")
            } else {
                var output = StandardOutput()
                output.bytes(Array(text.utf8))
                output.flush()
            }
        }
    }

    /// `hal gps import FILE -o TRACE`.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "import", 
            abstract: "Import an NMEA log, a GPX file or a KML file into a trace.",
            discussion: "GPX and KML tracks with times keep them; routes and untimed tracks are walked at --speed. Waypoints and point placemarks can be written as a places library for walk scenarios with --places.")

        @Argument(help: "The file: .gpx, .kml, or an NMEA log (anything else).")
        var file: String

        @Option(name: [.short, .long], help: "The trace file to write.")
        var out: String

        @Option(help: "Walking speed in m/s for routes and tracks without times.")
        var speed: Double = 1.4

        @Option(help: "Also write the file's waypoints or point placemarks here, as a places library.")
        var places: String?

        func validate() throws {
            if !(speed > 0) { throw ValidationError("--speed takes a positive number of m/s") }
        }

        func run() throws {
            let bytes = try FileReads.read(path: file, expecting: "an NMEA log, a GPX file or a KML file")
            let lowercased = file.lowercased()
            if lowercased.hasSuffix(".gpx") || lowercased.hasSuffix(".kml") {
                let imported = lowercased.hasSuffix(".gpx")
                    ? try GeoFiles.importGPX(bytes, file: file, speed: speed) : try GeoFiles.importKML(bytes, file: file, speed: speed)
                if let places {
                    let library = WalkScenario.Library(places: imported.places)
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                    try FileWrites.write([UInt8](encoder.encode(library)), to: places)
                    printError("wrote \(imported.places.count) places to \(places)")
                }
                guard let track = imported.track else {
                    throw ValidationError("\(file) has no track or route to import (\(imported.places.count) places)")
                }
                try write(track.trace(source: "file:\(file)", metadata: ["imported-from": file]), to: out)
                printError("wrote \(track.fixes.count) fixes to \(out)")
                return
            }
            let imported = LocationTrack.importNMEA(String(decoding: bytes, as: UTF8.self))
            let statistics = imported.statistics
            guard statistics.epochs > 0 else { throw FileError(path: file, "no NMEA epochs in the file; expected an NMEA log, a GPX file or a KML file") }
            try write(imported.track.trace(source: "nmea:\(file)", metadata: ["imported-from": file]), to: out)
            for jump in imported.clockJumps { printError("warning: \(file): \(jump)") }
            let rejected = statistics.rejected.map { "\($0.value) \($0.key)" }.sorted().joined(separator: ", ")
            printError("wrote \(imported.track.fixes.count) fixes from \(statistics.epochs) epochs to \(out)"
                + (imported.skipped > 0 ? "; \(imported.skipped) epochs left out (no time)" : "")
                + (rejected.isEmpty ? "" : "; rejected: \(rejected)")
                + (statistics.resynchronised > 0 ? "; \(statistics.resynchronised) read after noise before their '$'" : ""))
        }
    }

    /// `hal gps scrub TRACE -o OUT --radius M [--decimals N]`.
    struct Scrub: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "scrub", 
            abstract: "Hide where a recorded route starts and ends, and optionally coarsen it, before sharing it.")

        @Argument(help: "The trace file: .jsonl or .mcap.")
        var trace: String

        @Option(name: [.short, .long], help: "The scrubbed trace file to write.")
        var out: String

        @Option(help: "Drop fixes within this many metres of the start and of the end.")
        var radius: Double

        @Option(help: "Round coordinates to this many decimal places (4 is about 11 m).")
        var decimals: Int?

        @Option(help: "The location channel, when the trace has several.")
        var channel: String?

        func validate() throws {
            if !(radius >= 0) { throw ValidationError("--radius takes metres, 0 or more") }
            if let decimals, !(0...9).contains(decimals) { throw ValidationError("--decimals takes 0 to 9") }
        }

        func run() throws {
            let loaded = try Trace.load(path: trace)
            let track = try LocationTrack(trace: loaded, channel: channel)
            let scrubbed = track.scrubbed(radius: radius, decimals: decimals)
            let channelInfo = loaded.header.channels.first { $0.id == track.channel }
            try write(scrubbed.trace(source: channelInfo?.source ?? "scrubbed", rate: channelInfo?.rate, metadata: ["scrubbed-radius-m": String(radius)]), to: out)
            printError("kept \(scrubbed.fixes.count) of \(track.fixes.count) fixes in \(out)")
        }
    }
}

extension GPSCommand {
    /// `hal gps serve SCENARIO|TRACE [--pty|--tcp PORT] [--rate N]`.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "serve", 
            abstract: "Serve a walk scenario or a trace's fixes as NMEA, paced like a live receiver, on a pty (for gpsd or any NMEA reader) or a loopback TCP port.",
            discussion: "With --pty, the slave's path is printed first: point gpsd at it (gpsd -N -n /dev/pts/N). With --tcp, clients of 127.0.0.1:PORT each get the stream.")

        @Argument(help: "A walk scenario (.walk.json) or a trace (.jsonl or .mcap).")
        var input: String

        @Flag(help: "Serve on a new pseudo-terminal (the default).")
        var pty = false

        @Option(help: "Serve on this TCP port on 127.0.0.1 instead.")
        var tcp: UInt16?

        @Option(help: "Serve N times faster than real time.")
        var rate: Double = 1

        @Option(help: "Seconds to wait for a reader before starting.")
        var wait: Double = 0

        func validate() throws {
            if pty && tcp != nil { throw ValidationError("--pty and --tcp are exclusive") }
            if !(rate > 0) { throw ValidationError("--rate takes a positive number") }
        }

        func run() async throws {
            let track = try LocationTrack(trace: Trace.loadInput(path: input))
            let pacing: ReplayPacing = rate == 1 ? .realtime : .rate(rate)
            if let port = tcp {
                let server = try TCPBroadcastServer(port: port)
                defer { server.close() }
                var announce = StandardOutput()
                announce.line("serving \(track.fixes.count) fixes as NMEA on tcp://127.0.0.1:\(server.port)")
                announce.flush()
                try await Task.sleep(for: .nanoseconds(Int64(wait * 1e9)))
                try await track.serveNMEA(pacing: pacing, clock: ContinuousClock()) { server.broadcast($0) }
            } else {
                let terminal = try PseudoTerminal()
                defer { terminal.close() }
                var announce = StandardOutput()
                announce.line(terminal.slavePath)
                announce.flush()
                printError("serving \(track.fixes.count) fixes as NMEA on \(terminal.slavePath)")
                try await Task.sleep(for: .nanoseconds(Int64(wait * 1e9)))
                try await track.serveNMEA(pacing: pacing, clock: ContinuousClock()) { try terminal.write($0) }
            }
        }
    }
}

/// Writes a whole trace to a file: MCAP for a `.mcap` name, JSON Lines otherwise.
func write(_ trace: Trace, to path: String) throws {
    try TraceConversion.write(trace, to: TraceFiles.makeWriter(path: path, header: trace.header, durability: .buffered))
}
