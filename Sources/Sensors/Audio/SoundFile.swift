import CSndfile
public import HAL

/// Audio files through libsndfile: WAV, FLAC and OGG Vorbis in, 16-bit WAV out.
public enum SoundFile {
    /// The longest clip read, seconds: a header may claim any length, and memory follows what is read.
    public static let maximumDuration = 600.0

    /// Reads a whole file as 32-bit float samples, in blocks, so memory follows the audio actually in the
    /// file, never a length its header claims. Longer than ``maximumDuration`` is an error.
    public static func read(_ path: String) throws(AudioFileError) -> PCMAudio {
        if let failure = CSndfile_load(nil) { throw AudioFileError(path: path, String(cString: failure)) }
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileError(path: path, String(cString: sf_strerror(nil)))
        }
        defer { sf_close(file) }
        guard info.channels > 0, info.samplerate > 0, info.frames >= 0 else {
            throw AudioFileError(path: path, "no audio (\(info.channels) channels at \(info.samplerate) Hz)")
        }
        let limit = Int64(maximumDuration * Double(info.samplerate))
        guard info.frames <= limit else {
            throw AudioFileError(path: path, "\(info.frames) frames is longer than \(Int(maximumDuration)) s at \(info.samplerate) Hz; clips are at most \(Int(maximumDuration)) s")
        }
        let channels = Int(info.channels), blockFrames = 65_536
        var samples: [Float] = []
        var block = [Float](repeating: 0, count: blockFrames * channels)
        var read: Int64 = 0
        while read < info.frames {
            let wanted = min(Int64(blockFrames), info.frames - read)
            let got = block.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, wanted) }
            if got <= 0 { break }
            samples += block[0..<(Int(got) * channels)]
            read += got
        }
        guard read == info.frames else {
            throw AudioFileError(path: path, "truncated: \(read) of \(info.frames) frames read")
        }
        return PCMAudio(sampleRate: Int(info.samplerate), channelCount: channels, samples: samples)
    }

    /// Writes audio as a 16-bit PCM WAV file.
    public static func writeWAV(_ audio: PCMAudio, to path: String) throws(AudioFileError) {
        let writer = try WAVWriter(path: path, sampleRate: audio.sampleRate, channelCount: audio.channelCount)
        try writer.write(audio.samples[...])
        writer.close()
    }
}

/// A 16-bit PCM WAV file written as samples come; libsndfile fixes up the header on close.
final class WAVWriter {
    let path: String
    private var file: OpaquePointer?
    let channelCount: Int

    init(path: String, sampleRate: Int, channelCount: Int) throws(AudioFileError) {
        if let failure = CSndfile_load(nil) { throw AudioFileError(path: path, String(cString: failure)) }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw AudioFileError(path: path, "cannot write: \(String(cString: sf_strerror(nil)))")
        }
        self.path = path
        self.file = file
        self.channelCount = channelCount
    }

    func write(_ samples: ArraySlice<Float>) throws(AudioFileError) {
        guard let file else { throw AudioFileError(path: path, "already closed") }
        let frames = sf_count_t(samples.count / channelCount)
        let written = samples.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress, frames) }
        guard written == frames else { throw AudioFileError(path: path, "write failed: \(String(cString: sf_strerror(file)))") }
    }

    func close() {
        if let file { sf_close(file) }
        file = nil
    }

    deinit { close() }
}

extension AudioClip {
    /// The samples a speaker plays: the file, the samples in memory, or the tone made at the level
    /// `loudnessGuard` passes (``HAL/Tone/audio(for:)``), from ``HAL/AudioClip/start`` on.
    public func audio(for loudnessGuard: LoudnessGuard? = nil) throws -> PCMAudio {
        let audio: PCMAudio
        switch source {
        case .file(let path): audio = try SoundFile.read(path)
        case .pcm(let pcm): audio = pcm
        case .tone(let tone): audio = tone.audio(for: loudnessGuard)
        }
        return audio.dropping(start)
    }
}

extension PCMAudio {
    /// The audio without its first `duration` (nothing left when it is longer).
    func dropping(_ duration: Duration) -> PCMAudio {
        guard duration > .zero, channelCount > 0 else { return self }
        var rest = self
        let frames = Int(min(Double(samples.count / channelCount), (duration.seconds * Double(sampleRate)).rounded()))
        rest.samples.removeFirst(frames * channelCount)
        return rest
    }
}
