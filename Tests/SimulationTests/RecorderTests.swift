import Foundation
import HAL
import Replay
import TraceFormat
import TestSupport
import Testing

@Suite struct RecorderTests {
    @Test func recordsReplayDevicesIntoATraceThatReadsBackTheSame() async throws {
        let folder = try makeScratchFolder()
        let shipped = try Trace.load(path: shippedTracePath)
        let sources = try ["gyro", "touch"].map { id in
            RecordingSource(id: id, device: try openReplayedChannel(trace: shipped, channel: id))
        }
        let recorder = try TraceRecorder(path: folder + "/rec.jsonl", sources: sources, metadata: ["note": "test"])
        let summary = try await recorder.run()
        #expect(summary.counts == [2091, 29])
        #expect(summary.failures.isEmpty)
        #expect(!summary.stopped)

        let recorded = try Trace.load(path: folder + "/rec.jsonl")
        #expect(recorded.header.channels.map(\.id) == ["gyro", "touch"])
        #expect(recorded.header.channels[0].source == "trace:\(shippedTracePath)#gyro")
        #expect(recorded.header.channels[0].rate == 100)
        #expect(recorded.header.metadata["note"] == "test")
        // Arrival order between devices may differ; replay order may not.
        var original: [Reading] = []
        try TraceReplay(trace: shipped, options: ReplayOptions(channels: ["gyro", "touch"])).forEach { original.append($0.reading) }
        var replayed: [Reading] = []
        try TraceReplay(trace: recorded).forEach { replayed.append($0.reading) }
        #expect(replayed == original)
    }

    @Test func aFailingDeviceEndsItsChannelAndTheRestIsKept() async throws {
        struct FlakyGyro: MotionSensor {
            var info: DeviceInfo { DeviceInfo(uri: "flaky:gyro", name: "Flaky", kind: .gyroscope, backend: "test") }
            func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<MotionSample, any Error> {
                AsyncThrowingStream { continuation in
                    for index in 0..<5 {
                        continuation.yield(MotionSample(timestamp: ts(Int64(index)), quantity: .angularVelocity, value: .zero))
                    }
                    continuation.finish(throwing: DeviceError(.disconnected, uri: "flaky:gyro", "unplugged"))
                }
            }
        }
        let folder = try makeScratchFolder()
        let shipped = try Trace.load(path: shippedTracePath)
        let recorder = try TraceRecorder(path: folder + "/flaky.jsonl", sources: [
            RecordingSource(id: "flaky", device: FlakyGyro()),
            RecordingSource(id: "touch", device: try openReplayedChannel(trace: shipped, channel: "touch")),
        ])
        let summary = try await recorder.run()
        #expect(summary.counts == [5, 29])
        #expect(summary.failures.map(\.channel) == ["flaky"])
        #expect((summary.failures.first?.error as? DeviceError)?.code == .disconnected)
        #expect(try Trace.load(path: folder + "/flaky.jsonl").records.count == 34)
    }

    /// A gyroscope that gives five samples from `start` and then goes away.
    struct UnpluggedGyro: MotionSensor {
        var start: Int64
        var info: DeviceInfo { DeviceInfo(uri: "flaky:gyro", name: "Flaky", kind: .gyroscope, backend: "test") }
        func readings(buffering: ReadingBuffering) -> AsyncThrowingStream<MotionSample, any Error> {
            AsyncThrowingStream { continuation in
                for index in start..<start + 5 {
                    continuation.yield(MotionSample(timestamp: ts(index), quantity: .angularVelocity, value: .zero))
                }
                continuation.finish(throwing: DeviceError(.disconnected, uri: "flaky:gyro", "unplugged"))
            }
        }
    }

    @Test func withReconnectionADeviceThatGoesAwayIsOpenedAgainAndItsChannelGoesOn() async throws {
        let folder = try makeScratchFolder()
        // Opened again three times: absent (not found) once, then back twice; the third time it stays away.
        let attempts = Locked(0)
        let reopen: @Sendable () throws -> any ReadingSource = {
            let attempt = attempts.withLock { value in
                value += 1
                return value
            }
            switch attempt {
            case 1: throw DeviceError(.notFound, uri: "flaky:gyro", "no such device")
            case 2: return UnpluggedGyro(start: 100)
            case 3: return UnpluggedGyro(start: 200)
            default: throw DeviceError(.notFound, uri: "flaky:gyro", "no such device")
            }
        }
        let heard = Locked<[String]>([])
        let recorder = try TraceRecorder(
            path: folder + "/reconnected.jsonl",
            sources: [RecordingSource(id: "gyro", device: UnpluggedGyro(start: 0), reopen: reopen)],
            reconnect: .every(0.01),
            onInterruption: { interruption in heard.withLock { $0.append(interruption.back == nil ? "lost" : "back") } })
        let task = Task { try await recorder.run() }
        // Cancelled once the recorder has tried twice after the third loss: every reconnection the test counts is done.
        let triedAgain = try await waitUntil { attempts.withLock { $0 } >= 5 }
        task.cancel()
        try #require(triedAgain)
        let summary = try await task.value
        #expect(summary.counts == [15])
        #expect(summary.failures.isEmpty)
        #expect(summary.interruptions.count == 3)
        #expect(summary.interruptions.prefix(2).allSatisfy { $0.back != nil && $0.lost <= $0.back! })
        #expect(summary.interruptions.last?.back == nil)
        #expect(summary.interruptions.allSatisfy { $0.error.code == .disconnected && $0.channel == "gyro" })
        #expect(heard.withLock { $0 } == ["lost", "back", "lost", "back", "lost"])
        let times = try Trace.load(path: folder + "/reconnected.jsonl").records.map(\.reading.timestamp)
        #expect(times == ([0, 1, 2, 3, 4, 100, 101, 102, 103, 104, 200, 201, 202, 203, 204] as [Int64]).map(ts))
    }

    @Test func withoutReconnectionTheChannelEndsAtTheFirstDisconnection() async throws {
        let folder = try makeScratchFolder()
        let recorder = try TraceRecorder(
            path: folder + "/ended.jsonl",
            sources: [RecordingSource(id: "gyro", device: UnpluggedGyro(start: 0), reopen: { UnpluggedGyro(start: 100) })])
        let summary = try await recorder.run()
        #expect(summary.counts == [5] && summary.interruptions.isEmpty)
        #expect((summary.failures.first?.error as? DeviceError)?.code == .disconnected)
    }

    @Test func stoppingARecordingClosesAReadableFile() async throws {
        let folder = try makeScratchFolder()
        let shipped = try Trace.load(path: shippedTracePath)
        let endless = try ReplayedChannel<MotionSample>(trace: shipped, channel: "gyro", options: ReplayOptions(pacing: .rate(50), loops: nil))
        let recorder = try TraceRecorder(path: folder + "/stopped.jsonl", sources: [RecordingSource(id: "gyro", device: endless)])
        let task = Task { try await recorder.run() }
        let recording = try await waitUntil { recorder.counts[0] >= 10 }
        task.cancel()
        try #require(recording)
        let summary = try await task.value
        #expect(summary.stopped)
        let trace = try Trace.load(path: folder + "/stopped.jsonl")
        #expect(trace.truncation == nil)
        #expect(trace.records.count == summary.counts[0])
        #expect(trace.records.count >= 10)
    }

    /// A recording cut off at any byte is readable up to its last whole record.
    @Test func aFileCutAtAnyByteKeepsEveryWholeRecord() throws {
        let shipped = try Trace.load(path: shippedTracePath)
        let trace = Trace(header: shipped.header, records: Array(shipped.records.prefix(1_200)))
        let bytes = try trace.encoded()
        let newlines = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\n") }
        let headerEnd = newlines[0] + 1
        // Every cut inside the last three records, and a stride through the rest.
        let cuts = Array(stride(from: headerEnd, to: bytes.count, by: 97)) + Array(newlines[newlines.count - 4]...bytes.count)
        for cut in cuts {
            let prefix = Array(bytes[..<cut])
            let read = try Trace.decode(prefix, file: "cut.jsonl")
            // Lines whose newline made it, plus a last line cut just before its newline: that one is whole JSON.
            let expected = newlines.dropFirst().filter { $0 < cut }.count + (newlines.contains(cut) ? 1 : 0)
            #expect(read.records.count == expected, "cut at \(cut)")
            #expect(Array(read.records) == Array(trace.records.prefix(read.records.count)), "cut at \(cut)")
            let partial = cut < bytes.count && !newlines.contains(cut - 1) && !newlines.contains(cut)
            #expect((read.truncation != nil) == partial, "cut at \(cut)")
        }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs Linux's /dev/full"))
    func theWriterReportsAFullDisk() throws {
        do {
            let writer = try TraceWriter(path: "/dev/full", header: everyKindHeader)
            _ = writer
            Issue.record("wrote a header to a full disk")
        } catch {
            #expect(error.kind == .io)
            #expect(error.description.contains("the disk is full"))
        }
    }
}
