import Audio
import FoundationEssentials
public import HAL
import LibC
import SystemSupport

/// The program's speaker: an ALSA configuration (`ALSA_CONFIG_PATH`) whose default PCM is alsa-lib's `file` plugin
/// writing WAV into a FIFO that this device reads, over the `null` device. What the program plays through ALSA's
/// default device (`aplay`, `espeak-ng`, a `pyalsaaudio` stream) arrives here as it is written.
///
/// Each opening of the PCM is a clip: `speaker.started` when its first samples arrive (with `clip`, its number from
/// 1, `rate`, `channels`, `seconds` and `loudness`, the EBU R 128 integrated loudness in LUFS) and `speaker.stopped`
/// the clip's length later. Times are the trace's, as for every event of the run. The `null` device does not pace
/// playback, so the capture does: it reads the samples no faster than they play at the run's rate, and a program's
/// `aplay` takes as long as the clip (divided by the rate), as on a sound card.
public final class SpeakerCapture: ServedDevice {
    private let state = Locked<(file: Int32, clips: [Clip], reading: Bool, stopping: Bool, done: Bool)>((-1, [], false, false, false))

    /// A speaker not yet prepared.
    public init() {}

    public var summary: String { "speaker: ALSA's default PCM, captured (ALSA_CONFIG_PATH)" }

    public func prepare(_ testbed: inout TestbedPlan) throws {
        let fifo = testbed.folder + "/speaker.wav"
        guard mkfifo(fifo, 0o600) == 0 else { throw ProgramError("cannot make \(fifo): \(describeErrno(errno))") }
        let base = "/usr/share/alsa/alsa.conf"
        guard let configuration = try? Data(contentsOf: URL(fileURLWithPath: base)) else {
            throw ProgramError("cannot read \(base); install Debian's libasound2 (alsa-lib) for the program's speaker, or run without it")
        }
        let path = try testbed.write(
            "alsa.conf",
            String(decoding: configuration, as: UTF8.self)
                + "\n# hal exec: the default PCM writes what is played, as WAV, into a FIFO the run reads.\n"
                + "pcm.!default { type file; slave.pcm \"null\"; file \"\(fifo)\"; format \"wav\" }\n")
        testbed.environment["ALSA_CONFIG_PATH"] = path
        // This end is opened for reading and writing here, before the program starts: so the pipe is one page from
        // the first byte any program writes (it pauses a writer at one page, which the capture's pacing relies on;
        // a program started earlier could fill the default 64 KiB at time zero), and a writer closing is no end of
        // the stream (clips are told apart by their headers).
        let file = open(fifo, O_RDWR | O_CLOEXEC)
        guard file >= 0 else { throw ProgramError("cannot open \(fifo): \(describeErrno(errno))") }
        guard fcntl(file, 1031 /* F_SETPIPE_SZ */, 4096) >= 0 else {
            let reason = describeErrno(errno)
            close(file)
            throw ProgramError("cannot set the size of \(fifo) to one page: \(reason)")
        }
        state.withLock { $0.file = file }
    }

    public func feed(_ run: FeedContext) async throws {
        let file = state.withLock { state -> Int32 in
            state.reading = state.file >= 0
            return state.file
        }
        guard file >= 0 else { return }
        let pacing = run.clock.map { Self.traceClockPacing($0, file: file) } ?? Self.wallClockPacing()
        DetachedThread.start(name: "speaker capture") { [self] in
            var reader = ClipReader(context: run)
            var buffer = [UInt8](repeating: 0, count: 4096)
            var draining = false
            while true {
                if !draining, state.withLock({ $0.stopping }) {
                    // The program ended: what it wrote was played; take the rest at once.
                    draining = true
                    _ = fcntl(file, F_SETFL, fcntl(file, F_GETFL) | O_NONBLOCK)
                }
                var participant: TraceClock.Participant?
                if !draining {
                    switch pacing.pace(reader) {
                    case .again: continue
                    case .stop:
                        draining = true
                        _ = fcntl(file, F_SETFL, fcntl(file, F_GETFL) | O_NONBLOCK)
                        continue
                    case .read(let waited): participant = waited
                    }
                    var descriptor = pollfd(fd: file, events: Int16(POLLIN), revents: 0)
                    if poll(&descriptor, 1, participant == nil ? 50 : 0) <= 0 {
                        participant?.finish()
                        continue
                    }
                }
                pacing.busy.withLock { $0 = true }
                let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
                if count > 0 { reader.add(buffer[0..<count]) }
                pacing.busy.withLock { $0 = false }
                participant?.finish()
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
            }
            pacing.open.withLock { open in
                close(file)
                open = false
            }
            let clips = reader.finish()
            state.withLock {
                $0.clips = clips
                $0.done = true
            }
        }
    }

    /// How the capture keeps its reads from running ahead of playback, on one clock or the other.
    private struct Pacing: Sendable {
        /// What to do before the next read.
        enum Step {
            /// Wait was done in part; look again.
            case again
            /// The run is ending; take the rest at once.
            case stop
            /// Read now; on the trace's clock, as the participant that waited for playback, finished after the read.
            case read(TraceClock.Participant?)
        }
        /// Set while a read is under way.
        let busy = Locked(false)
        /// Whether the FIFO is still open: it is closed, and asked, under this lock, so that a check on another thread
        /// never asks a number the system has handed out again.
        let open = Locked(true)
        /// Waits until what `reader` read has played, or a slice of that.
        let pace: @Sendable (ClipReader) -> Step
    }

    /// On the machine's clock: sleep (in slices of at most 50 ms) until what was read has played at the run's rate.
    private static func wallClockPacing() -> Pacing {
        Pacing { reader in
            if let wait = reader.waitBeforeReading(), wait > .zero {
                usleep(UInt32(min(50_000, wait.microseconds)))
                return .again
            }
            return .read(nil)
        }
    }

    /// On the trace's clock: it reads what is written at once, except while what it read has not yet played, when it
    /// waits for the trace's time to reach the end of it (a program writing more waits in its write). The scheduler
    /// lets time move only once the FIFO is empty and no read is under way, or the capture waits so.
    private static func traceClockPacing(_ clock: TraceClock, file: Int32) -> Pacing {
        let waiting = Locked(false)
        let pacing = Pacing { reader in
            guard let until = reader.playedUntilTime(), until > clock.now else { return .read(nil) }
            let participant = clock.participant(key: Int.max - 1)
            waiting.withLock { $0 = true }
            defer { waiting.withLock { $0 = false } }
            do { try participant.waitBlocking(until: until) } catch {
                participant.finish()
                return .stop
            }
            return .read(participant)
        }
        let busy = pacing.busy
        clock.addIdleCheck {
            if waiting.withLock({ $0 }) { return true }
            guard !busy.withLock({ $0 }) else { return false }
            return pacing.open.withLock { open in
                guard open else { return true }
                var pending: Int32 = 0
                return ioctl(file, UInt(FIONREAD), &pending) == 0 && pending == 0 && !busy.withLock { $0 }
            }
        }
        return pacing
    }

    public func finish() {
        let (started, unread) = state.withLock { state -> (Bool, Int32) in
            state.stopping = true
            // A device prepared but never fed closes its end here, once.
            let unread = state.reading ? -1 : state.file
            if !state.reading { state.file = -1 }
            return (state.reading, unread)
        }
        guard started else {
            if unread >= 0 { close(unread) }
            return
        }
        // The reader drains what is left and stops (it reads at most one page more, without blocking, once it sees
        // the stop): wait for that state. A minute is only a net for a reader that never gets the processor back.
        for _ in 0..<60_000 where !state.withLock({ $0.done }) { usleep(1_000) }
    }

    public var delivered: String {
        let clips = state.withLock { $0.clips }
        let seconds = clips.reduce(0.0) { $0 + Double($1.frames) / Double(max(1, $1.rate)) }
        return "speaker: \(clips.count) clip\(clips.count == 1 ? "" : "s") captured, " + printfFormat("%.2f s", seconds)
    }

    public func events() -> [AppEvent] {
        var events: [AppEvent] = []
        for (index, clip) in state.withLock({ $0.clips }).enumerated() {
            let seconds = Double(clip.frames) / Double(max(1, clip.rate))
            var started: [String: AppEventValue] = [
                "clip": .int(Int64(index + 1)), "rate": .int(Int64(clip.rate)), "channels": .int(Int64(clip.channels)),
                "seconds": .double((seconds * 1000).rounded() / 1000),
            ]
            if clip.loudness.isFinite { started["loudness"] = .double((clip.loudness * 10).rounded() / 10) }
            events.append(AppEvent(timestamp: clip.started, name: "speaker.started", attributes: started))
            events.append(AppEvent(timestamp: clip.started + .nanoseconds(Int64(seconds * 1e9)), name: "speaker.stopped", attributes: ["clip": .int(Int64(index + 1))]))
        }
        return events
    }
}

/// One clip the speaker captured.
struct Clip {
    var started: Timestamp
    var rate: Int
    var channels: Int
    var frames: Int
    var loudness: Double
}

/// Cuts the captured stream into clips: each WAV header starts one, and its samples follow until the next header.
///
/// A clip starts when its samples arrive, or when the clip before it has played, whichever is later (a sound card
/// plays one stream after another). Reading is paced: the next read waits until what was read has played at the
/// run's rate, so a program waiting for its sound to end waits as long as with a sound card.
struct ClipReader {
    let context: FeedContext
    private var bytes: [UInt8] = []
    private var header: WAVStream?
    private var started: (time: Timestamp, instant: ContinuousClock.Instant)?
    private var checked = 0
    private var playedUntil = ContinuousClock().now
    /// On the trace's clock, the trace time at which what was read has played.
    private var clipsEndTime: Timestamp?
    private var clips: [Clip] = []

    init(context: FeedContext) {
        self.context = context
    }

    /// How long to wait before the next read so that it does not run ahead of playback; `nil` between clips.
    func waitBeforeReading() -> Duration? {
        guard let header, let started, bytes.count > header.dataOffset else { return nil }
        let played = Double(bytes.count - header.dataOffset) / Double(header.bytesPerSecond) / context.rate
        return ContinuousClock().now.duration(to: started.instant + .nanoseconds(Int64(played * 1e9)))
    }

    /// On the trace's clock, the trace time at which what was read so far has played; `nil` between clips.
    func playedUntilTime() -> Timestamp? {
        guard let header, let started, bytes.count > header.dataOffset else { return nil }
        return started.time + Self.duration(bytes: bytes.count - header.dataOffset, of: header)
    }

    /// How long `bytes` of samples play.
    private static func duration(bytes: Int, of header: WAVStream) -> Duration {
        .nanoseconds(Int64(bytes) * 1_000_000_000 / Int64(header.bytesPerSecond))
    }

    /// Takes bytes read from the stream.
    mutating func add(_ chunk: ArraySlice<UInt8>) {
        bytes += chunk
        if header == nil {
            header = WAVStream(bytes)
            checked = header?.dataOffset ?? 0
        }
        guard var current = header else { return }
        if started == nil, bytes.count > current.dataOffset { started = begin() }
        // A new header at a frame boundary starts the next clip.
        var offset = checked
        while offset + 12 <= bytes.count {
            if bytes[offset] == 0x52, WAVStream.startsHeader(bytes, at: offset) {
                finishClip(at: offset)
                bytes.removeFirst(offset)
                header = WAVStream(bytes)
                started = nil
                offset = 0
                guard let next = header else { break }
                current = next
                offset = next.dataOffset
                if bytes.count > next.dataOffset { started = begin() }
                continue
            }
            offset += current.channels * max(1, current.bits / 8)
        }
        checked = offset
    }

    /// The clips, the last one ended where the stream did.
    mutating func finish() -> [Clip] {
        finishClip(at: bytes.count)
        return clips
    }

    private func begin() -> (time: Timestamp, instant: ContinuousClock.Instant) {
        if let clock = context.clock { return (max(clock.now, clipsEndTime ?? clock.now), ContinuousClock().now) }
        let instant = max(ContinuousClock().now, playedUntil)
        return (context.traceTime(of: instant), instant)
    }

    private mutating func finishClip(at end: Int) {
        guard let header, let started, end > header.dataOffset else { return }
        playedUntil = started.instant + .nanoseconds(Int64(Double(end - header.dataOffset) / Double(header.bytesPerSecond) / context.rate * 1e9))
        clipsEndTime = started.time + Self.duration(bytes: end - header.dataOffset, of: header)
        let audio = header.audio(Array(bytes[header.dataOffset..<end]))
        clips.append(Clip(
            started: started.time, rate: audio.sampleRate, channels: audio.channelCount, frames: audio.samples.count / max(1, audio.channelCount),
            loudness: Loudness(measuring: audio).integrated))
    }
}

extension Duration {
    /// The duration in whole microseconds, at least 0.
    var microseconds: Int64 { max(0, components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000) }
}

/// The header of a WAV stream as alsa-lib's `file` plugin writes it: `RIFF`, `WAVE`, a `fmt ` chunk and the start
/// of the `data` chunk, whose length is not known while the stream is written.
struct WAVStream {
    var format: UInt16
    var channels: Int
    var rate: Int
    var bits: Int
    var dataOffset: Int

    init?(_ bytes: [UInt8]) {
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else { return nil }
        var offset = 12
        var found: (UInt16, Int, Int, Int)?
        while offset + 8 <= bytes.count {
            let size = Int(u32(offset + 4))
            let id = bytes[offset..<offset + 4]
            if id.elementsEqual("fmt ".utf8) {
                guard offset + 24 <= bytes.count else { return nil }
                found = (u16(offset + 8), Int(u16(offset + 10)), Int(u32(offset + 12)), Int(u16(offset + 22)))
            } else if id.elementsEqual("data".utf8) {
                guard let (format, channels, rate, bits) = found, channels > 0, bits > 0 else { return nil }
                (self.format, self.channels, self.rate, self.bits, dataOffset) = (format, channels, rate, bits, offset + 8)
                return
            }
            offset += 8 + size + (size & 1)
        }
        return nil
    }

    /// Whether `bytes` holds the start of a WAV header (`RIFF`, a length, `WAVE`) at `offset`.
    static func startsHeader(_ bytes: [UInt8], at offset: Int) -> Bool {
        offset + 12 <= bytes.count && bytes[offset..<offset + 4].elementsEqual("RIFF".utf8) && bytes[offset + 8..<offset + 12].elementsEqual("WAVE".utf8)
    }

    /// Bytes of samples per second of sound.
    var bytesPerSecond: Int { max(1, rate * channels * max(1, bits / 8)) }

    /// The samples as floats in [-1, 1]: 8-bit unsigned, 16-, 24- and 32-bit signed, or 32-bit float.
    func audio(_ data: [UInt8]) -> PCMAudio {
        let width = bits / 8
        let count = width > 0 ? data.count / width / channels * channels : 0
        var samples = [Float](repeating: 0, count: count)
        for index in 0..<count {
            let at = index * width
            switch (format, bits) {
            case (3, 32):
                samples[index] = Float(bitPattern: UInt32(data[at]) | UInt32(data[at + 1]) << 8 | UInt32(data[at + 2]) << 16 | UInt32(data[at + 3]) << 24)
            case (_, 8): samples[index] = (Float(data[at]) - 128) / 128
            case (_, 16): samples[index] = Float(Int16(bitPattern: UInt16(data[at]) | UInt16(data[at + 1]) << 8)) / 32768
            case (_, 24):
                let value = Int32(bitPattern: UInt32(data[at]) << 8 | UInt32(data[at + 1]) << 16 | UInt32(data[at + 2]) << 24) >> 8
                samples[index] = Float(value) / 8_388_608
            case (_, 32):
                samples[index] = Float(Int32(bitPattern: UInt32(data[at]) | UInt32(data[at + 1]) << 8 | UInt32(data[at + 2]) << 16 | UInt32(data[at + 3]) << 24)) / 2_147_483_648
            default: break
            }
        }
        return PCMAudio(sampleRate: rate, channelCount: channels, samples: samples)
    }
}
