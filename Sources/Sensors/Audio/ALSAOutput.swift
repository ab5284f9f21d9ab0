import LibC
import CALSA
import Synchronization
public import HAL

/// Playback through alsa-lib (`alsa:default`, `alsa:hw:1,0`, `alsa:plughw:0`): 16-bit interleaved
/// PCM at the clip's rate and channel count. alsa-lib's plug layer resamples and converts when the
/// hardware needs it (`snd_pcm_set_params` with soft resampling); an underrun or a suspend is
/// recovered with `snd_pcm_recover` and counted; a device that goes away is
/// ``HAL/DeviceError/Code/disconnected``.
public final class ALSAOutput: PCMOutput {
    /// The ALSA PCM name.
    public let device: String
    /// Seconds of audio the device buffers.
    public let latency: Double
    /// How many underruns (`EPIPE`) were recovered since the output opened. Read from any thread.
    public var underruns: Int { underrunCount.load(ordering: .relaxed) }
    private let underrunCount = Atomic<Int>(0)
    private let uri: String
    private var pcm: OpaquePointer?
    private var channelCount = 1
    private var buffer: [Int16] = []

    /// An output for an ALSA PCM name.
    public init(device: String, latency: Double = 0.1, uri: String? = nil) {
        self.device = device
        self.latency = latency
        self.uri = uri ?? "alsa:\(device)"
    }

    deinit { abort() }

    private func failure(_ code: Int32, _ action: String) -> DeviceError {
        let reason = "\(action): \(String(cString: snd_strerror(code)))"
        switch -code {
        case ENODEV, ENXIO, EBADFD, ESTRPIPE: return DeviceError(.disconnected, uri: uri, "the device went away (\(reason))")
        case ENOENT: return DeviceError(.notFound, uri: uri, reason)
        case EACCES, EPERM: return DeviceError(.permissionDenied, uri: uri, "\(reason); add the user to the 'audio' group")
        case EBUSY: return DeviceError(.ioFailure, uri: uri, "\(reason) (another program is using it)")
        case EINVAL: return DeviceError(.unsupported, uri: uri, reason)
        default: return DeviceError(.ioFailure, uri: uri, reason)
        }
    }

    public func start(sampleRate: Int, channelCount: Int) throws(DeviceError) {
        abort()
        if let failure = CALSA_load(nil) { throw DeviceError(.unsupported, uri: uri, String(cString: failure)) }
        var handle: OpaquePointer?
        let opened = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0)
        guard opened == 0, let handle else { throw failure(opened, "cannot open '\(device)'") }
        let configured = snd_pcm_set_params(
            handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, UInt32(channelCount), UInt32(sampleRate), 1,
            UInt32(latency * 1_000_000))
        guard configured == 0 else {
            snd_pcm_close(handle)
            throw failure(configured, "no configuration for \(channelCount) channels at \(sampleRate) Hz, 16-bit")
        }
        pcm = handle
        self.channelCount = channelCount
    }

    public func write(_ samples: ArraySlice<Float>) throws(DeviceError) {
        guard let pcm else { throw DeviceError(.closed, uri: uri, "write before start") }
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: samples.lazy.map(\.pcm16))
        var offset = 0
        let frames = buffer.count / channelCount
        while offset < frames {
            let written = buffer.withUnsafeBufferPointer { pointer -> Int in
                guard let base = pointer.baseAddress else { return 0 }
                return snd_pcm_writei(pcm, base + offset * channelCount, snd_pcm_uframes_t(frames - offset))
            }
            if written >= 0 {
                offset += Int(written)
                continue
            }
            let code = Int32(written)
            if code == -EPIPE || code == -ESTRPIPE || code == -EINTR {
                let recovered = snd_pcm_recover(pcm, code, 1)
                if recovered == 0 {
                    if code == -EPIPE { underrunCount.add(1, ordering: .relaxed) }
                    continue
                }
                throw failure(recovered, "cannot recover from \(String(cString: snd_strerror(code)))")
            }
            throw failure(code, "write failed")
        }
    }

    public func finish() throws(DeviceError) {
        guard let pcm else { return }
        self.pcm = nil
        let drained = snd_pcm_drain(pcm)
        snd_pcm_close(pcm)
        if drained < 0 && drained != -EPIPE { throw failure(drained, "drain failed") }
    }

    public func abort() {
        guard let pcm else { return }
        self.pcm = nil
        snd_pcm_drop(pcm)
        snd_pcm_close(pcm)
    }
}
