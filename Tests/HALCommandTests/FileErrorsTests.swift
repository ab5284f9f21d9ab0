import Foundation
import LibC
import Testing
import TestSupport

/// Plain errors everywhere: every option and argument of `hal` that takes a file is fed a missing file, a directory,
/// an empty file and a file it may not read (an output: a directory, a path in a missing folder and a folder it may
/// not write in; a folder: a missing one, a file and one it may not list). Each run must end at once with a non-zero
/// status and a message that names the path and says the cause in words, never a Foundation error's dump.
///
/// Left out, as they are not refusals: `run --speaker wav:FILE` (a speaker that fails during a run is a
/// `speaker.failed` event in the log), and the default `--search` folder, `traces`, which need not be where `hal` runs.
@Suite struct FileErrorsTests {
    /// What a path is for.
    enum Role: Sendable {
        /// A file `hal` reads.
        case input
        /// A file `hal` writes.
        case output
        /// A folder `hal` reads, or writes in.
        case folder
    }

    /// One bad path, and the cause its message must say.
    enum BadPath: String, Sendable, CaseIterable {
        case missing, directory, empty, unreadable
        case outputDirectory, outputInMissingFolder, outputInUnwritableFolder
        case missingFolder, fileNotFolder, unreadableFolder

        /// Whether `hal` must run without the right to read or write it: without capabilities when the test runs as root.
        var needsNoPermission: Bool { self == .unreadable || self == .outputInUnwritableFolder || self == .unreadableFolder }
    }

    /// An option or argument that takes a path.
    struct FileOption: Sendable, CustomTestStringConvertible {
        /// The command and the option, for the test's name.
        var name: String
        var role: Role
        /// The arguments, with `{FILE}` for the bad path, `{OUT}` for a folder anyone may write in, `{ROOT}` for the
        /// package, and `{SCENARIO}` for ``scenario``.
        var arguments: [String]
        /// The path's ending, which decides how some commands read it (`.mcap`, `.run.json`, `.gpx`).
        var suffix = ""
        /// The cause said of a directory, where a folder is taken and searched (`hal test`, `hal expressions`).
        var directoryCause = "is a directory"
        /// The cases that are refusals; by default all of the role's.
        var cases: [BadPath]?
        /// A scenario that names the path (with `{FILE}` and `{ROOT}` in it), written beside the bad path for
        /// `{SCENARIO}` in the arguments: for the files only a scenario names, such as its fault space.
        var scenario: String?

        var testDescription: String { name }

        /// The bad paths fed to it.
        var badPaths: [BadPath] {
            if let cases { return cases }
            switch role {
            case .input: return [.missing, .directory, .empty, .unreadable]
            case .output: return [.outputDirectory, .outputInMissingFolder, .outputInUnwritableFolder]
            case .folder: return [.missingFolder, .fileNotFolder, .unreadableFolder]
            }
        }

        /// The words the message of `bad` must hold (compared in lower case).
        func cause(of bad: BadPath) -> String {
            switch bad {
            case .missing: "no such file"
            case .directory: directoryCause
            case .empty: "empty"
            case .unreadable, .outputInUnwritableFolder, .unreadableFolder: "permission denied"
            case .outputDirectory: "is a directory"
            case .outputInMissingFolder: "no such"
            case .missingFolder: "no such folder"
            case .fileNotFolder: "not a folder"
            }
        }
    }

    static let lobby = "{ROOT}/traces/lobby-lookaround.jsonl"
    static let lobbyScript = "{ROOT}/traces/lobby-lookaround.motion.json"
    static let scenario = "{ROOT}/traces/viewer/school.run.json"
    static let walk = "{ROOT}/traces/ubc/main-mall-tour.walk.json"
    /// A trace with a location channel.
    static let located = "{ROOT}/traces/fieldguide/walk.jsonl"
    static let gpx = "{ROOT}/Fuzz/corpus/gpx/track.gpx"
    static let evemu = "{ROOT}/Tests/SensorsTests/Fixtures/ds4-gamepad.evemu"
    static let clip = "{ROOT}/traces/viewer/clips/bell.wav"
    static let image = "{ROOT}/models/astronaut.png"

    /// Every option and argument of `hal` that takes a path (`hal --help`, and each command's).
    static let options: [FileOption] = [
        FileOption(name: "info TRACE", role: .input, arguments: ["info", "{FILE}"], suffix: ".jsonl"),
        FileOption(name: "info TRACE (.mcap)", role: .input, arguments: ["info", "{FILE}"], suffix: ".mcap"),
        FileOption(name: "convert IN", role: .input, arguments: ["convert", "{FILE}", "{OUT}/converted.mcap", "--quiet"], suffix: ".jsonl"),
        FileOption(name: "convert IN (.mcap)", role: .input, arguments: ["convert", "{FILE}", "{OUT}/converted.jsonl", "--quiet"], suffix: ".mcap"),
        FileOption(name: "convert OUT (.mcap)", role: .output, arguments: ["convert", lobby, "{FILE}", "--quiet"], suffix: ".mcap"),
        FileOption(name: "convert OUT (.jsonl)", role: .output, arguments: ["convert", lobby, "{FILE}", "--quiet"], suffix: ".jsonl"),
        FileOption(name: "convert --sound", role: .folder, arguments: ["convert", lobby, "{OUT}/sound.mcap", "--quiet", "--sound", "{FILE}"]),
        FileOption(name: "plot TRACE", role: .input, arguments: ["plot", "{FILE}", "-o", "{OUT}/plot.svg", "--quiet"], suffix: ".jsonl"),
        FileOption(name: "plot --output", role: .output, arguments: ["plot", lobby, "-o", "{FILE}", "--quiet"], suffix: ".svg"),
        FileOption(name: "plot --walk", role: .input, arguments: ["plot", lobby, "-o", "{OUT}/plot.svg", "--quiet", "--walk", "{FILE}"], suffix: ".walk.json"),
        FileOption(name: "replay TRACE", role: .input, arguments: ["replay", "{FILE}"], suffix: ".jsonl"),
        FileOption(name: "replay TRACE (.mcap)", role: .input, arguments: ["replay", "{FILE}"], suffix: ".mcap"),
        FileOption(name: "replay --faults", role: .input, arguments: ["replay", lobby, "--faults", "{FILE}"], suffix: ".faults.json"),
        FileOption(name: "run SCENARIO", role: .input, arguments: ["run", "{FILE}"], suffix: ".run.json"),
        FileOption(name: "run APP SCENARIO", role: .input, arguments: ["run", "viewer", "{FILE}"], suffix: ".run.json"),
        FileOption(
            name: "run --config", role: .input,
            arguments: ["run", "viewer", "--config", "{FILE}", "--input", "{ROOT}/traces/viewer/school-tour.motion.json"], suffix: ".json"),
        FileOption(
            name: "run --input (.jsonl)", role: .input,
            arguments: ["run", "viewer", "--config", "{ROOT}/traces/viewer/school.json", "--input", "{FILE}"], suffix: ".jsonl"),
        FileOption(
            name: "run --input (.motion.json)", role: .input,
            arguments: ["run", "viewer", "--config", "{ROOT}/traces/viewer/school.json", "--input", "{FILE}"], suffix: ".motion.json"),
        FileOption(
            name: "run --input (.walk.json)", role: .input,
            arguments: ["run", "explorer", "--config", "{ROOT}/traces/ubc/explorer.json", "--input", "{FILE}"], suffix: ".walk.json"),
        FileOption(
            name: "run --input (.expressions.json)", role: .input,
            arguments: ["run", "trainer", "--config", "{ROOT}/traces/trainer/questions.json", "--input", "{FILE}"], suffix: ".expressions.json"),
        FileOption(name: "run --faults", role: .input, arguments: ["run", scenario, "--faults", "{FILE}"], suffix: ".json"),
        FileOption(name: "run --record", role: .output, arguments: ["run", scenario, "--record", "{FILE}"], suffix: ".jsonl"),
        // A missing storage folder is made on the first write.
        FileOption(
            name: "run --storage", role: .folder, arguments: ["run", "{ROOT}/traces/fieldguide/walk.run.json", "--storage", "{FILE}"],
            cases: [.fileNotFolder, .unreadableFolder]),
        // A folder is searched for scenarios: an empty one has none.
        FileOption(name: "test PATH", role: .input, arguments: ["test", "{FILE}"], suffix: ".run.json", directoryCause: "no scenarios"),
        // A scenario's fault space, which only --explore reads.
        FileOption(
            name: "test --explore (the scenario's explore file)", role: .input, arguments: ["test", "{SCENARIO}", "--explore", "1"],
            suffix: ".space.json",
            scenario: """
                {"app": "viewer", "config": "{ROOT}/traces/viewer/school.json", "inputs": ["{ROOT}/traces/viewer/school-tour.motion.json"],
                 "explore": "{FILE}", "expect": [{"event": "experience.completed", "count": 1}]}
                """),
        FileOption(name: "test --junit", role: .output, arguments: ["test", scenario, "--junit", "{FILE}"], suffix: ".xml"),
        FileOption(name: "test --json", role: .output, arguments: ["test", scenario, "--json", "{FILE}"], suffix: ".json"),
        FileOption(name: "camera grab --out", role: .output, arguments: ["camera", "grab", "pattern:bars", "-o", "{FILE}"], suffix: ".png"),
        FileOption(name: "devices --search", role: .folder, arguments: ["devices", "--search", "{FILE}"]),
        FileOption(name: "exec --search", role: .folder, arguments: ["exec", lobby, "--search", "{FILE}", "--", "true"]),
        FileOption(name: "camera grab video:FILE", role: .input, arguments: ["camera", "grab", "video:{FILE}", "-o", "{OUT}/grabbed.png"], suffix: ".mp4"),
        FileOption(name: "camera grab images:DIR", role: .folder, arguments: ["camera", "grab", "images:{FILE}", "-o", "{OUT}/grabbed.png"]),
        FileOption(name: "camera record --out", role: .output, arguments: ["camera", "record", "pattern:bars", "-o", "{FILE}", "--frames", "1"], suffix: ".jsonl"),
        // A folder of images is read as a stream: an empty one has none.
        FileOption(
            name: "expressions IMAGE", role: .input, arguments: ["expressions", "{FILE}", "--models", "{ROOT}/models"], suffix: ".png",
            directoryCause: "no images"),
        FileOption(
            name: "expressions --record", role: .output, arguments: ["expressions", image, "--models", "{ROOT}/models", "--record", "{FILE}"],
            suffix: ".jsonl"),
        FileOption(name: "record --out", role: .output, arguments: ["record", "-o", "{FILE}", "trace:\(lobby)#touch", "--quiet"], suffix: ".jsonl"),
        FileOption(name: "record trace:FILE", role: .input, arguments: ["record", "-o", "{OUT}/recorded.jsonl", "trace:{FILE}#touch", "--quiet"], suffix: ".jsonl"),
        FileOption(
            name: "record sim:FILE", role: .input, arguments: ["record", "-o", "{OUT}/recorded.jsonl", "sim:{FILE}#gyro", "--quiet"],
            suffix: ".motion.json"),
        FileOption(name: "exec INPUT", role: .input, arguments: ["exec", "{FILE}", "--", "true"], suffix: ".jsonl"),
        FileOption(name: "exec SCENARIO", role: .input, arguments: ["exec", "{FILE}"], suffix: ".run.json"),
        FileOption(name: "exec --input", role: .input, arguments: ["exec", lobby, "--input", "{FILE}", "--", "true"], suffix: ".motion.json"),
        FileOption(name: "exec --faults", role: .input, arguments: ["exec", lobby, "--faults", "{FILE}", "--", "true"], suffix: ".json"),
        FileOption(
            name: "exec --record", role: .output, arguments: ["exec", "--live", "trace:\(lobby)#touch", "--record", "{FILE}", "--", "true"],
            suffix: ".jsonl"),
        FileOption(name: "motion simulate SCRIPT", role: .input, arguments: ["motion", "simulate", "{FILE}", "-o", "{OUT}/motion.jsonl"], suffix: ".motion.json"),
        FileOption(name: "motion simulate --out", role: .output, arguments: ["motion", "simulate", lobbyScript, "-o", "{FILE}"], suffix: ".jsonl"),
        FileOption(name: "motion fuse TRACE", role: .input, arguments: ["motion", "fuse", "{FILE}", "--every", "0"], suffix: ".jsonl"),
        FileOption(name: "motion fuse --out", role: .output, arguments: ["motion", "fuse", lobby, "--every", "0", "--out", "{FILE}"], suffix: ".jsonl"),
        FileOption(name: "gps walk SCENARIO", role: .input, arguments: ["gps", "walk", "{FILE}", "-o", "{OUT}/walk.jsonl"], suffix: ".walk.json"),
        FileOption(name: "gps walk --out", role: .output, arguments: ["gps", "walk", walk, "-o", "{FILE}"], suffix: ".jsonl"),
        FileOption(name: "gps export TRACE", role: .input, arguments: ["gps", "export", "{FILE}", "--gpx"], suffix: ".jsonl"),
        FileOption(name: "gps export --out", role: .output, arguments: ["gps", "export", located, "--gpx", "-o", "{FILE}"], suffix: ".gpx"),
        FileOption(name: "gps import FILE (.gpx)", role: .input, arguments: ["gps", "import", "{FILE}", "-o", "{OUT}/imported.jsonl"], suffix: ".gpx"),
        FileOption(name: "gps import FILE (NMEA)", role: .input, arguments: ["gps", "import", "{FILE}", "-o", "{OUT}/imported.jsonl"], suffix: ".nmea"),
        FileOption(name: "gps import --out", role: .output, arguments: ["gps", "import", gpx, "-o", "{FILE}"], suffix: ".jsonl"),
        FileOption(name: "gps import --places", role: .output, arguments: ["gps", "import", gpx, "-o", "{OUT}/imported.jsonl", "--places", "{FILE}"], suffix: ".json"),
        FileOption(name: "gps scrub TRACE", role: .input, arguments: ["gps", "scrub", "{FILE}", "-o", "{OUT}/scrubbed.jsonl", "--radius", "10"], suffix: ".jsonl"),
        FileOption(name: "gps scrub --out", role: .output, arguments: ["gps", "scrub", located, "-o", "{FILE}", "--radius", "10"], suffix: ".jsonl"),
        FileOption(name: "gps serve SCENARIO", role: .input, arguments: ["gps", "serve", "{FILE}", "--tcp", "0"], suffix: ".walk.json"),
        FileOption(name: "gps serve TRACE", role: .input, arguments: ["gps", "serve", "{FILE}", "--tcp", "0"], suffix: ".jsonl"),
        FileOption(name: "input import FILE", role: .input, arguments: ["input", "import", "{FILE}", "-o", "{OUT}/input.jsonl"], suffix: ".evemu"),
        FileOption(name: "input import --out", role: .output, arguments: ["input", "import", evemu, "-o", "{FILE}"], suffix: ".jsonl"),
        FileOption(name: "say --out", role: .output, arguments: ["say", "hi", "--out", "{FILE}"], suffix: ".wav"),
        FileOption(name: "play FILE", role: .input, arguments: ["play", "{FILE}", "--out", "{OUT}/played.wav"], suffix: ".wav"),
        FileOption(name: "play --out", role: .output, arguments: ["play", clip, "--out", "{FILE}"], suffix: ".wav"),
        FileOption(name: "audio check FILE", role: .input, arguments: ["audio", "check", "{FILE}"], suffix: ".wav"),
    ]

    /// What a Foundation error's dump, or a Swift type's name, looks like in a message.
    static let dumps = ["CocoaError", "NSCocoaErrorDomain", "Error Domain=", "Code=", "POSIXError", "NSUnderlyingError", "NSFilePath"]

    static let setpriv = "/usr/bin/setpriv"

    /// `setpriv`'s arguments that run a program as root without a capability (util-linux, in Debian's base system):
    /// then a file's mode stops it as it stops its owner, wherever the package's folder is and whoever may enter it.
    static let withoutCapabilities = ["--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all"]

    /// Whether the test runs as root, whom no file mode stops: then `hal` runs without capabilities for the
    /// permission cases.
    static let runsAsRoot = getuid() == 0

    @Test(arguments: options) func aBadPathIsRefusedWithThePathAndTheCauseInWords(_ option: FileOption) async throws {
        let files = FileManager.default
        let folder = try makeScratchFolder()
        defer { try? files.removeItem(atPath: folder) }
        // Each case in a folder of its own, with one in it that anyone may write in, for the outputs of the other
        // options.
        try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
        for (index, bad) in option.badPaths.enumerated() {
            // Root reads and writes whatever the mode says: the case needs setpriv (util-linux, always on Debian) to
            // drop root's capabilities, and without it fails rather than pass untested.
            if bad.needsNoPermission && Self.runsAsRoot && !files.isExecutableFile(atPath: Self.setpriv) {
                Issue.record("\(Self.setpriv) is missing: the permission case of \(option.name) cannot run as root")
                continue
            }
            let place = folder + "/\(index)"
            let writable = place + "/out"
            try files.createDirectory(atPath: writable, withIntermediateDirectories: true)
            try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: place)
            try files.setAttributes([.posixPermissions: 0o777], ofItemAtPath: writable)
            let path = try Self.make(bad, suffix: option.suffix, in: place)
            defer { if bad == .unreadable || bad == .unreadableFolder { try? files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path) } }
            func filled(_ text: String) -> String {
                text.replacingOccurrences(of: "{FILE}", with: path).replacingOccurrences(of: "{OUT}", with: writable)
                    .replacingOccurrences(of: "{ROOT}", with: packageRoot).replacingOccurrences(of: "{SCENARIO}", with: place + "/s.run.json")
            }
            if let scenario = option.scenario { try Data(filled(scenario).utf8).write(to: URL(fileURLWithPath: place + "/s.run.json")) }
            let arguments = option.arguments.map(filled)
            let (program, line) = bad.needsNoPermission && Self.runsAsRoot
                ? (Self.setpriv, Self.withoutCapabilities + [halExecutable] + arguments) : (halExecutable, arguments)
            let run = try await runProcess(program, line, timeout: 60)
            let what = "hal \(arguments.joined(separator: " ")) (\(bad.rawValue)):\n\(run.output)"
            #expect(run.status != 0, "\(what)")
            #expect(run.output.contains(path), "the message names no path: \(what)")
            #expect(run.output.lowercased().contains(option.cause(of: bad)), "the message does not say '\(option.cause(of: bad))': \(what)")
            for dump in Self.dumps {
                #expect(!run.output.contains(dump), "the message holds a dump ('\(dump)'): \(what)")
            }
        }
    }

    /// Makes the bad path `bad` in `folder` (which holds only the writable `out`), and returns it.
    static func make(_ bad: BadPath, suffix: String, in folder: String) throws -> String {
        let files = FileManager.default
        // A name that says nothing, so that a message is not taken to say a cause because its path does.
        let path = folder + "/f" + suffix
        switch bad {
        case .missing, .missingFolder:
            return path
        case .directory, .outputDirectory:
            try files.createDirectory(atPath: path, withIntermediateDirectories: false)
            return path
        case .empty:
            try Data().write(to: URL(fileURLWithPath: path))
            return path
        case .fileNotFolder:
            try Data("x".utf8).write(to: URL(fileURLWithPath: path))
            return path
        case .unreadable:
            // What is in it does not matter: it cannot be opened.
            try Data("{}\n".utf8).write(to: URL(fileURLWithPath: path))
            try files.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path)
            return path
        case .unreadableFolder:
            try files.createDirectory(atPath: path, withIntermediateDirectories: false)
            try files.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path)
            return path
        case .outputInMissingFolder:
            return folder + "/gone/f" + suffix
        case .outputInUnwritableFolder:
            // Read-only for its owner, who (without capabilities, as root is here) cannot make a file in it.
            let locked = folder + "/shut"
            try files.createDirectory(atPath: locked, withIntermediateDirectories: false)
            try files.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked)
            return locked + "/f" + suffix
        }
    }
}
