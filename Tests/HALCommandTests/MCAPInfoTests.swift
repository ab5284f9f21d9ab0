import Foundation
import Testing
import TestSupport

/// `hal info` on an MCAP file that holds no trace (neither the HAL's profile, nor ROS 2, nor Foxglove's schemas):
/// what `mcap info` shows of it, and which commands read it. The files are the MCAP conformance files PyPI `mcap`
/// writes (`Tests/MCAPTests/Fixtures/mcap_conformance.py`).
@Suite struct MCAPInfoTests {
    /// The conformance files, in a scratch folder.
    static func conformanceFiles() async throws -> String {
        let folder = try makeScratchFolder()
        let run = try await runProcess("/usr/bin/env", ["python3", packageRoot + "/Tests/MCAPTests/Fixtures/mcap_conformance.py", "write", folder], timeout: 120)
        try #require(run.status == 0, "\(run.output)")
        return folder
    }

    static let usableBy = "usable by:   hal info only; hal replay, run, test, plot, convert, exec and trace: devices read an MCAP file that holds a HAL trace (profile 'hal'), a ROS 2 recording or a recording in Foxglove's schemas"

    @Test func infoSummarisesAnyMCAPFile() async throws {
        let folder = try await Self.conformanceFiles()
        let run = try hal("info", folder + "/chunked-none.mcap")
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == """
            file:        \(folder)/chunked-none.mcap
            library:     mcap_conformance.py
            profile:     conformance
            messages:    40
            start:       1970-01-01T00:00:01Z (1000000000 ns)
            end:         1970-01-01T00:00:01.390Z (1390000000 ns)
            duration:    0.39 s (390000000 ns)
            chunks:      6
              none: 6 chunks, 1808 bytes
            channels:    2
              (1) /gyro  20 msgs (51.282 Hz)  schema test.Gyro [jsonschema]  messages json
              (2) /pose  20 msgs (51.282 Hz)  schema test.Pose [jsonschema]  messages json
            attachments: 0
            metadata:    0
            \(Self.usableBy)

            """)
        // Attachments and metadata; a schemaless channel; figures by a scan where the summary has no indexes.
        let attached = try hal("info", folder + "/attachments-and-metadata-no-indexes.mcap")
        #expect(attached.status == 0, "\(attached.errors)")
        #expect(attached.output.contains("""
            summary:     none, or without statistics or an index: figures from a scan of the data section
            """))
        #expect(attached.output.contains("""
            attachments: 2
              calibration-5.txt   text/plain  12 bytes  log time 1000000005 ns
              calibration-25.txt  text/plain  13 bytes  log time 1000000025 ns
            metadata:    2
              run-5
              run-25
            \(Self.usableBy)
            """), "\(attached.output)")
        let schemaless = try hal("info", folder + "/schemaless.mcap")
        #expect(schemaless.status == 0 && schemaless.output.contains("  (3) /raw   13 msgs (33.333 Hz)  schema none  messages raw\n"), "\(schemaless.output)")
    }

    /// A damaged MCAP file is still an error, naming the file and the byte.
    @Test func aDamagedMCAPFileIsAnError() async throws {
        let folder = try await Self.conformanceFiles()
        let bytes = try #require(FileManager.default.contents(atPath: folder + "/chunked-zstd.mcap"))
        #expect(FileManager.default.createFile(atPath: folder + "/cut.mcap", contents: bytes.prefix(bytes.count / 2)))
        let run = try hal("info", folder + "/cut.mcap")
        #expect(run.status != 0 && run.output.isEmpty)
        #expect(run.errors.contains("\(folder)/cut.mcap: byte ") && run.errors.contains("cut short"), "\(run.errors)")
    }
}
