import TraceMCAP
import LibC
import MCAP
import Foundation
import HAL
import Interchange
import Synthesis
import TraceFormat
import Testing
import TestSupport

struct Run {
    var status: Int32
    var output: String
    var errors: String
}

/// Runs `hal` in the package root and waits for it, with `environment` added to the test's.
func hal(_ arguments: String..., environment: [String: String] = [:]) throws -> Run {
    try hal(arguments, environment: environment)
}

/// Runs `hal` in the package root and waits for it, with `environment` added to the test's.
func hal(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: halExecutable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: packageRoot)
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self), errors: String(decoding: errData, as: UTF8.self))
}

@Suite(.serialized) struct HALToolTests {
    /// MCAP traces are read through the registered container, as `hal` registers it.
    init() { TraceContainers.register(MCAPTraceContainer()) }

    @Test func replayWithoutArgumentsPlaysTheShippedTrace() throws {
        let run = try hal("replay")
        #expect(run.status == 0, "\(run.errors)")
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 4211)
        #expect(lines.first == "0.000000000 gyro     0.0 0.0 0.0")
        #expect(lines.contains("5.500000000 touch    press pointer=0 x=0.52 y=0.46"))
    }

    @Test func replayPrintsTheSameAtAnyRate() throws {
        let fast = try hal("replay")
        let paced = try hal("replay", "--rate", "200")
        #expect(paced.status == 0)
        #expect(paced.output == fast.output)
    }

    @Test func replayAsJSONLinesGivesBackTheTraceFile() throws {
        let run = try hal("replay", "--jsonl", "traces/lobby-lookaround.jsonl")
        let file = try String(contentsOfFile: packageRoot + "/traces/lobby-lookaround.jsonl", encoding: .utf8)
        #expect(run.output == file)
    }

    @Test func replayFiltersChannels() throws {
        let run = try hal("replay", "--channels", "touch", "--offset", "13.3")
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 9)
        #expect(lines.allSatisfy { $0.contains(" touch ") })
    }

    @Test func infoSummarisesTheTrace() throws {
        let run = try hal("info", "traces/lobby-lookaround.jsonl")
        #expect(run.status == 0)
        #expect(run.output.contains("duration: 20.900 s"))
        #expect(run.output.contains("records:  4211"))
        #expect(run.output.contains("gyro       gyroscope      2091    records  units rad/s  nominal 100.000 Hz  measured 100.000 Hz"))
    }

    @Test func aBadTraceFailsWithFileLineAndField() throws {
        let folder = try makeScratchFolder()
        let header = try String(contentsOfFile: packageRoot + "/traces/lobby-lookaround.jsonl", encoding: .utf8).split(separator: "\n")[0]
        try "\(header)\n{\"t\":1,\"ch\":\"gyro\",\"v\":[1,2]}\n".write(toFile: folder + "/bad.jsonl", atomically: true, encoding: .utf8)
        let run = try hal("replay", folder + "/bad.jsonl")
        #expect(run.status != 0)
        #expect(run.errors.contains("\(folder)/bad.jsonl:2: field 'v': expected 3 numbers"))
    }

    @Test func simulateWritesTheShippedTraceByteForByte() throws {
        let folder = try makeScratchFolder()
        let run = try hal("motion", "simulate", "traces/lobby-lookaround.motion.json", "-o", folder + "/again.jsonl")
        #expect(run.status == 0, "\(run.errors)")
        let again = try Data(contentsOf: URL(fileURLWithPath: folder + "/again.jsonl"))
        let shipped = try Data(contentsOf: URL(fileURLWithPath: packageRoot + "/traces/lobby-lookaround.jsonl"))
        #expect(again == shipped)
    }

    @Test func motionFuseReportsTheErrorAgainstGroundTruth() throws {
        let folder = try makeScratchFolder()
        _ = try hal("motion", "simulate", "traces/fusion-reference.motion.json", "-o", folder + "/reference.jsonl")
        let run = try hal("motion", "fuse", folder + "/reference.jsonl", "--skip", "15", "--every", "0", "--out", folder + "/fused.jsonl")
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("fused 13001 attitudes (9-axis, ENU)"))
        #expect(run.output.contains("error over 11501 samples from t ≥ 15.000 s (degrees):"))
        let total = run.output.split(separator: "\n").first { $0.contains("total    RMS") }.map(String.init) ?? ""
        let rms = Double(total.split(separator: " ")[2]) ?? 99
        #expect(rms < 0.5)
        let info = try hal("info", folder + "/fused.jsonl")
        #expect(info.output.contains("fused      attitude       13001   records"))
    }

    @Test func aCampusWalkExportsAsGPXThatGpxpyReads() throws {
        let folder = try makeScratchFolder()
        let walk = try hal("gps", "walk", "traces/ubc/main-mall-tour.walk.json", "-o", folder + "/walk.jsonl")
        #expect(walk.status == 0, "\(walk.errors)")
        #expect(walk.errors.contains("wrote 1431 fixes (150 without a fix) and 110 heading samples"))
        let export = try hal("gps", "export", folder + "/walk.jsonl", "--gpx", "-o", folder + "/walk.gpx")
        #expect(export.status == 0, "\(export.errors)")
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", """
            import gpxpy, sys
            g = gpxpy.parse(open(sys.argv[1]))
            points = [p for t in g.tracks for s in t.segments for p in s.points]
            print(len(points), points[0].time.isoformat(), points[-1].elevation is not None)
            """, folder + "/walk.gpx"]
        let output = Pipe()
        python.standardOutput = output
        try python.run()
        python.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(python.terminationStatus == 0)
        #expect(printed == "1281 2026-09-08T17:00:00+00:00 True\n")
    }

    @Test func nmeaImportScrubAndExport() throws {
        let folder = try makeScratchFolder()
        let imported = try hal("gps", "import", "Tests/NMEATests/Fixtures/gpsd-nmea/ublox-8.log", "-o", folder + "/ublox.jsonl")
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.errors.contains("rejected: 1 no checksum (truncated); 1 read after noise before their '$'"), "\(imported.errors)")
        let scrub = try hal("gps", "scrub", folder + "/ublox.jsonl", "-o", folder + "/shared.jsonl", "--radius", "5", "--decimals", "4")
        #expect(scrub.status == 0, "\(scrub.errors)")
        let nmea = try hal("gps", "export", folder + "/shared.jsonl", "--nmea")
        #expect(nmea.output.hasPrefix("$GPRMC,"))
        #expect(nmea.output.contains("\r\n$GPGGA,"))
    }

    /// A log of two sessions spliced, the second an hour earlier than the first: every epoch is imported, and a
    /// warning names the line where the clock went back.
    @Test func nmeaImportWarnsWhereTheClockGoesBack() throws {
        let folder = try makeScratchFolder()
        func sentence(_ body: String) -> String {
            "$\(body)*\(String(format: "%02X", body.utf8.reduce(UInt8(0), ^)))"
        }
        func epoch(_ time: String, _ minutes: Int) -> [String] {
            let latitude = String(format: "4915.%03d", 600 + minutes)
            return [sentence("GPRMC,\(time),A,\(latitude),N,12314.760,W,0.5,90.0,271126,,,A"),
                    sentence("GPGGA,\(time),\(latitude),N,12314.760,W,1,08,1.0,70.0,M,-17.0,M,,")]
        }
        let lines = ["120000.00", "120001.00", "120002.00", "120003.00"].enumerated().flatMap { epoch($0.element, $0.offset) }
            + ["110000.00", "110001.00"].enumerated().flatMap { epoch($0.element, 10 + $0.offset) }
        let log = folder + "/spliced.nmea"
        try (lines.joined(separator: "\r\n") + "\r\n").write(toFile: log, atomically: true, encoding: .utf8)
        let imported = try hal("gps", "import", log, "-o", folder + "/spliced.jsonl")
        #expect(imported.status == 0, "\(imported.errors)")
        let warnings = imported.errors.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
        #expect(warnings.count == 1 && warnings[0].hasPrefix("warning: \(log): line 9: the receiver's clock went back 3603.0 s"), "\(imported.errors)")
        // Every epoch, the two after the jump that the import once left out among them.
        #expect(imported.errors.contains("wrote 6 fixes from 6 epochs"), "\(imported.errors)")
    }

    @Test func serveStreamsAWalkAsNMEAOverTCP() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: halExecutable)
        process.arguments = ["gps", "serve", "traces/ubc/main-mall-tour.walk.json", "--tcp", "0", "--rate", "50", "--wait", "1"]
        process.currentDirectoryURL = URL(fileURLWithPath: packageRoot)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate() }
        // The first line names the port: "serving 1431 fixes as NMEA on tcp://127.0.0.1:PORT".
        var announced = Data()
        while !announced.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            announced.append(chunk)
        }
        let line = String(decoding: announced, as: UTF8.self)
        #expect(line.hasPrefix("serving 1431 fixes as NMEA on tcp://127.0.0.1:"))
        let port = UInt16(line.split(separator: ":").last!.trimmingCharacters(in: .whitespacesAndNewlines))!
        let socket = try #require(connectToLoopback(port: port))
        defer { close(socket) }
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 2000 {
            let count = read(socket, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        // The server starts after `--wait 1` whether or not a reader is there, so a reader that connected later (a
        // loaded machine) gets the walk from a later epoch on. What it gets is the walk's NMEA, byte for byte, from
        // the first sentence of an epoch on: the test checks that, not where it began.
        let walk = try LocationTrack(trace: Trace.loadInput(path: packageRoot + "/traces/ubc/main-mall-tour.walk.json")).nmea()
        #expect(walk.hasPrefix("$GPRMC,170000.000,A,4916.16"))  // 17:00:00 at the Rose Garden, 49°16.16' N
        let whole = text[..<(text.range(of: "\r\n", options: .backwards)?.upperBound ?? text.startIndex)]
        #expect(whole.hasPrefix("$GPRMC,") && whole.count > 1000 && walk.contains(whole), "\(text.prefix(200))")
        #expect(text.contains("$GPGGA,"))
    }

    @Test func devicesListsTheBackendsAndWhatTheyCanOpen() throws {
        let run = try hal("devices")
        #expect(run.status == 0)
        #expect(run.output.contains("trace:   replay a trace channel"))
        #expect(run.output.contains("trace:traces/lobby-lookaround.jsonl#gyro"))
        #expect(run.output.contains("sim:traces/lobby-lookaround.motion.json#touch"))
    }

    @Test func recordWritesEachDeviceToItsChannel() throws {
        let folder = try makeScratchFolder()
        let run = try hal("record", "--out", folder + "/rec.jsonl", "sim:traces/lobby-lookaround.motion.json#gyro", "trace:traces/lobby-lookaround.jsonl#touch")
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.contains("gyro 2091  touch 29"))
        #expect(run.errors.contains("wrote 2120 records to \(folder)/rec.jsonl"))
        let info = try hal("info", folder + "/rec.jsonl")
        #expect(info.output.contains("source sim:traces/lobby-lookaround.motion.json#gyro"))
        let replayed = try hal("replay", "--channels", "touch", folder + "/rec.jsonl")
        let original = try hal("replay", "--channels", "touch")
        #expect(replayed.output == original.output)
    }

    @Test func recordTakesASimURIsListOfChannels() throws {
        let folder = try makeScratchFolder()
        let run = try hal("record", "--out", folder + "/drop.jsonl", "sim:traces/walk-and-fall.motion.json#accel,baro")
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.contains("accel 1401  baro 351"), "\(run.errors)")
        let info = try hal("info", folder + "/drop.jsonl")
        #expect(info.output.contains("source sim:traces/walk-and-fall.motion.json#baro"))
    }

    @Test func recordStopsAfterItsDuration() throws {
        let folder = try makeScratchFolder()
        let run = try hal("record", "--quiet", "--duration", "0.3", "--out", folder + "/timed.jsonl", "trace:traces/lobby-lookaround.jsonl?realtime&loop=0#gyro")
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.contains("(stopped)"))
        let info = try hal("info", folder + "/timed.jsonl")
        #expect(info.status == 0)
        #expect(!info.output.contains("warning"))
    }

    /// `hal record --quiet --out PATH SOURCES…` started in the package's folder, its errors dropped.
    private func startRecording(into path: String, _ sources: String...) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: halExecutable)
        process.arguments = ["record", "--quiet", "--out", path] + sources
        process.currentDirectoryURL = URL(fileURLWithPath: packageRoot)
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// A recording killed with SIGKILL is readable up to its last whole record.
    @Test func aKilledRecordingIsReadableUpToItsLastRecord() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/killed.jsonl"
        let process = try startRecording(into: path, "trace:traces/lobby-lookaround.jsonl?rate=20&loop=0#gyro")
        // Killed once the file holds 49 whole records. A line still being written is not counted: the file only grows,
        // so at least those 49 are in it when the kill comes.
        let written = blockUntil(every: 0.02) { wholeRecords(inTrace: path) >= 49 }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(written, "\(wholeRecords(inTrace: path)) records")
        let run = try hal("info", path)
        #expect(run.status == 0, "\(run.errors)")
        let count = run.output.split(separator: "\n").first { $0.hasPrefix("records:") }.map { Int($0.split(separator: " ").last!)! } ?? 0
        #expect(count >= 49)
    }

    /// Killed at 20 seeded random moments, a recording is always readable: every whole record, and at most
    /// one partial line at the end, reported as a truncation.
    @Test func aRecordingKilledAtRandomMomentsIsAlwaysReadable() throws {
        let folder = try makeScratchFolder()
        var random = SeededRandom(seed: 20261121)
        for attempt in 0..<20 {
            let path = folder + "/killed-\(attempt).jsonl"
            let process = try startRecording(
                into: path, "trace:traces/lobby-lookaround.jsonl?rate=50&loop=0#gyro", "trace:traces/lobby-lookaround.jsonl?rate=50&loop=0#touch")
            Thread.sleep(forTimeInterval: 0.05 + random.unit() * 0.4)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            guard FileManager.default.fileExists(atPath: path) else { continue }  // killed before it made the file
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let wholeLines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().count
            guard wholeLines > 0 else { continue }  // killed before the header was whole
            let trace = try Trace.load(path: path)
            #expect(trace.records.count == wholeLines - 1, "attempt \(attempt)")
            if bytes.last != UInt8(ascii: "\n") { #expect(trace.truncation != nil, "attempt \(attempt)") }
        }
    }

    /// An endless unpaced replay leaves its consumers time to run: the recorder writes while it replays, not once it
    /// ends. The file grows past 10,000 records (a state the test waits for) while the command still runs, and Ctrl-C
    /// then ends it with a readable trace holding at least those.
    @Test func anEndlessUnpacedReplayIsRecordedWhileItRuns() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/endless.jsonl"
        let process = try startRecording(into: path, "trace:traces/lobby-lookaround.jsonl?loop=0#gyro")
        let written = blockUntil(every: 0.02) { wholeRecords(inTrace: path) >= 10_000 }
        let runningThen = process.isRunning
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(written && runningThen, "\(wholeRecords(inTrace: path)) records")
        #expect(process.terminationStatus == 0 || process.terminationStatus == 130, "status \(process.terminationStatus)")
        let trace = try Trace.load(path: path)
        #expect(trace.records.count >= 10_000)
    }

    /// A recording that fills its disk (a 64 KB tmpfs) stops with a clear error, and what it wrote stays readable.
    @Test(.enabled(if: geteuid() == 0, "mounting a small tmpfs needs root"))
    func aFullDiskStopsTheRecordingWithAClearErrorAndKeepsWhatWasWritten() throws {
        let folder = try makeScratchFolder()
        let disk = folder + "/small-disk"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let mount = try runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", disk], timeout: 30)
        try #require(mount.status == 0, "\(mount.output)")
        defer { _ = try? runProcess("/bin/umount", [disk], timeout: 30) }
        let path = disk + "/full.jsonl"
        let run = try hal("record", "--quiet", "--out", path, "trace:traces/lobby-lookaround.jsonl?rate=50&loop=0#gyro")
        #expect(run.status != 0)
        #expect(run.errors.contains("the disk is full; records up to line"), "\(run.errors)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count > 60_000)
        let wholeLines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().count
        let trace = try Trace.load(path: path)
        #expect(trace.records.count == wholeLines - 1)
        #expect(trace.records.count > 500)
    }

    @Test func inputImportWritesOneChannelPerRoleFromAnEvemuRecording() throws {
        let folder = try makeScratchFolder()
        let run = try hal("input", "import", "Tests/SensorsTests/Fixtures/ds4-gamepad.evemu", "-o", folder + "/pad.jsonl")
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.contains("wrote 5 records (stick 3, keys 2) from 11 events of 'Sony Interactive Entertainment Wireless Controller'"), "\(run.errors)")
        let info = try hal("info", folder + "/pad.jsonl")
        #expect(info.output.contains("stick") && info.output.contains("keys"), "\(info.output)")
        let keysOnly = try hal("input", "import", "Tests/SensorsTests/Fixtures/ds4-gamepad.evemu", "-o", folder + "/keys.jsonl", "--role", "keys")
        #expect(keysOnly.errors.contains("wrote 2 records (keys 2)"), "\(keysOnly.errors)")
        let bad = try hal("input", "import", "Tests/SensorsTests/Fixtures/ds4-gamepad.evemu", "-o", folder + "/x.jsonl", "--role", "gyro")
        #expect(bad.status != 0)
        #expect(bad.errors.contains("'Sony Interactive Entertainment Wireless Controller' is not usable as gyro (it offers: stick, keys)"), "\(bad.errors)")
    }

    // MARK: MCAP traces

    /// `hal record --out FILE.mcap`, then `hal info`, `replay`, a `trace:` URI and `convert` read it.
    @Test func recordWritesMCAPThatEveryCommandReads() throws {
        let folder = try makeScratchFolder()
        let run = try hal("record", "--quiet", "--out", folder + "/rec.mcap", "sim:traces/lobby-lookaround.motion.json#gyro", "trace:traces/lobby-lookaround.jsonl#touch")
        #expect(run.status == 0, "\(run.errors)")
        let trace = try Trace.load(path: folder + "/rec.mcap")
        #expect(trace.truncation == nil && trace.header.channels.map(\.id) == ["gyro", "touch"] && trace.header.metadata["recorded-by"] == "hal record")
        let counts = trace.channelSummaries.map(\.count)
        #expect(counts[0] > 1000 && counts[1] > 0, "\(counts)")
        let info = try hal("info", folder + "/rec.mcap")
        #expect(info.status == 0 && info.output.contains("gyro") && info.output.contains("touch"), "\(info.output)\(info.errors)")
        // A trace: URI replays a channel of it into another recording.
        let again = try hal("record", "--quiet", "--out", folder + "/again.jsonl", "trace:\(folder)/rec.mcap#touch")
        #expect(again.status == 0, "\(again.errors)")
        #expect(try Trace.load(path: folder + "/again.jsonl").records.count == counts[1])
        // Converted to JSON Lines, it is the recording `hal record` makes as JSON Lines.
        let convert = try hal("convert", "--quiet", folder + "/rec.mcap", folder + "/rec.jsonl")
        #expect(convert.status == 0 && convert.errors.contains("\(counts.reduce(0, +)) records on 2 channels"), "\(convert.errors)")
        #expect(try Trace.load(path: folder + "/rec.jsonl") == { var t = trace; t.path = folder + "/rec.jsonl"; return t }())
    }

    /// `hal info` lists an MCAP trace's attachments, and still reads the trace: a HAL trace copied record by record
    /// with a calibration attached.
    @Test func infoListsAnMCAPTracesAttachments() throws {
        let folder = try makeScratchFolder()
        #expect(try hal("convert", "--quiet", "traces/lobby-lookaround.jsonl", folder + "/lobby.mcap").status == 0)
        let reader = try MCAPReader(path: folder + "/lobby.mcap")
        var options = MCAPWriter.Options()
        options.profile = try reader.header().profile
        let writer = try MCAPWriter(path: folder + "/attached.mcap", options: options)
        try reader.scan { record in
            switch record {
            case .schema(let schema): _ = try writer.addSchema(name: schema.name, encoding: schema.encoding, data: schema.data)
            case .channel(let channel):
                _ = try writer.addChannel(topic: channel.topic, messageEncoding: channel.messageEncoding, schemaID: channel.schemaID, metadata: channel.metadata)
            case .metadata(let metadata): try writer.addMetadata(metadata)
            case .message(let message, _): try writer.add(message)
            default: break
            }
        }
        try writer.addAttachment(MCAPAttachment(logTime: 5, createTime: 6, name: "imu-calibration.yaml", mediaType: "application/yaml", data: Array("bias: [0, 0, 0]\n".utf8)))
        try writer.finish()
        let info = try hal("info", folder + "/attached.mcap")
        #expect(info.status == 0, "\(info.errors)")
        #expect(info.output.contains("attachments:\n  imu-calibration.yaml application/yaml         16 bytes  log time 5 ns"), "\(info.output)")
        let plain = try hal("info", folder + "/lobby.mcap")
        #expect(plain.status == 0 && !plain.output.contains("attachments:"))
        // The same trace either way: the lines before the attachments differ only in the file's name.
        let lines = { (text: String) in text.split(separator: "\n").filter { !$0.hasPrefix("trace:") && !$0.hasPrefix("  imu") && $0 != "attachments:" } }
        #expect(lines(info.output) == lines(plain.output) && info.output.contains("records:  4211"), "\(info.output)")
    }

    /// `hal replay --offset` prints the same lines from a trace and from its MCAP conversion.
    @Test func replayFromAnOffsetIsTheSameInBothContainers() throws {
        let folder = try makeScratchFolder()
        let convert = try hal("convert", "traces/lobby-lookaround.jsonl", folder + "/lobby.mcap")
        #expect(convert.status == 0, "\(convert.errors)")
        #expect(convert.errors.contains("converting: reading 100%") && convert.errors.contains(" records 100%"), "the progress line: \(convert.errors)")
        for offset in ["0", "7.5", "1000"] {
            let fromJSON = try hal("replay", "--jsonl", "--offset", offset, "traces/lobby-lookaround.jsonl")
            let fromMCAP = try hal("replay", "--jsonl", "--offset", offset, folder + "/lobby.mcap")
            #expect(fromJSON.status == 0 && fromMCAP.status == 0, "\(fromJSON.errors)\(fromMCAP.errors)")
            // Past the end (1000 s) only the header line is left.
            #expect(fromJSON.output == fromMCAP.output && (fromJSON.output.split(separator: "\n").count > 1) == (offset != "1000"), "offset \(offset)")
        }
        let whole = try hal("replay", "--jsonl", folder + "/lobby.mcap")
        #expect(whole.output == (try String(contentsOfFile: packageRoot + "/traces/lobby-lookaround.jsonl", encoding: .utf8)))
    }

    /// A shipped scenario whose input is the MCAP conversion of its trace (frames in memory) passes `hal test` with
    /// its golden log: `hal run`, `hal test` and the session library read MCAP.
    @Test func aScenarioRunsOnAnMCAPInput() throws {
        let folder = try makeScratchFolder() + "/fieldguide"
        try FileManager.default.copyItem(atPath: packageRoot + "/traces/fieldguide", toPath: folder)
        let convert = try hal("convert", "--quiet", folder + "/walk.jsonl", folder + "/walk.mcap")
        #expect(convert.status == 0, "\(convert.errors)")
        try FileManager.default.removeItem(atPath: folder + "/walk.jsonl")
        try FileManager.default.removeItem(atPath: folder + "/frames")
        let scenario = try String(contentsOfFile: folder + "/walk.run.json", encoding: .utf8)
        try scenario.replacingOccurrences(of: "walk.jsonl", with: "walk.mcap").write(toFile: folder + "/walk.run.json", atomically: true, encoding: .utf8)
        let run = try hal("test", folder)
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.output.contains("1 passed"), "\(run.output)")
    }

    /// `hal convert --sound` renders what a speaker channel played beside it as Foxglove's RawAudio, which PyPI
    /// `mcap-protobuf-support` decodes; the trace read back is unchanged.
    @Test func convertRendersTheSpeakersSoundAsRawAudio() async throws {
        let folder = try makeScratchFolder()
        let header = TraceHeader(channels: [TraceChannel(id: "speaker", kind: .speaker, source: "capture:")])
        let writer = try TraceWriter(path: folder + "/spoken.jsonl", header: header)
        func at(_ ms: Int64) -> Timestamp { Timestamp(nanoseconds: ms * 1_000_000) }
        // welcome.wav is 1 s at 16 kHz: 0.5 s played, paused for 0.5 s, then the rest. bell.wav (0.6 s) is stopped
        // after 0.25 s. The words play to their end.
        for (ms, phase, item) in [
            (1000, PlaybackPhase.started, PlaybackItem.clip(name: "welcome.wav")), (1500, .paused, .clip(name: "welcome.wav")),
            (2000, .resumed, .clip(name: "welcome.wav")), (2500, .finished, .clip(name: "welcome.wav")),
            (3000, .started, .clip(name: "bell.wav")), (3250, .stopped, .clip(name: "bell.wav")),
            (4000, .started, .clip(name: "no-such.wav")),
            (5000, .started, .speech(text: "hello", voice: "en")),
        ] as [(Int64, PlaybackPhase, PlaybackItem)] {
            try writer.write(.playback(PlaybackEvent(timestamp: at(ms), phase: phase, item: item)), channel: "speaker")
        }
        try writer.close()
        let run = try hal("convert", "--quiet", "--sound", "traces/viewer/clips", folder + "/spoken.jsonl", folder + "/spoken.mcap")
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.contains("no sound for clip 'no-such.wav'"), "\(run.errors)")
        let peer = try await runProcess("/usr/bin/env", ["python3", mcapTracePeer, "sound", folder + "/spoken.mcap"], timeout: 60)
        #expect(peer.status == 0, "\(peer.output)")
        let words = try #require(peer.output.split(separator: "\n").first { $0.hasPrefix("speaker.audio ") }, "\(peer.output)")
        let fields = words.split(separator: " ")
        func field(_ name: String) -> Int? { fields.firstIndex(of: Substring(name)).flatMap { Int(fields[$0 + 1]) } }
        // 16,000 frames of welcome.wav and 4,000 of bell.wav at 16 kHz, then espeak-ng's "hello" (22,050 Hz): the
        // blocks are a tenth of a second of whichever rate; the first starts at 1 s.
        #expect(field("first") == 1_000_000_000 && field("channels") == 1, "\(words)")
        let frames = try #require(field("frames"))
        #expect(frames > 20_000 + 5_000 && frames < 20_000 + 40_000, "\(words)")
        #expect((field("energy") ?? 0) > 0 && words.hasSuffix("derived-from speaker"), "\(words)")
        let schemas = try await runProcess("/usr/bin/env", ["python3", mcapTracePeer, "schemas", folder + "/spoken.mcap"], timeout: 60)
        #expect(schemas.status == 0 && schemas.output.contains("match: RawAudio\n"), "\(schemas.output)")
        // Read back as a trace, the sound channel is not there, and JSON Lines comes back the same.
        let back = try hal("convert", "--quiet", folder + "/spoken.mcap", folder + "/back.jsonl")
        #expect(back.status == 0, "\(back.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/back.jsonl")) == (try Data(contentsOf: URL(fileURLWithPath: folder + "/spoken.jsonl"))))
    }

}
