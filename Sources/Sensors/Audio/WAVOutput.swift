public import HAL

/// A speaker into a WAV file (`wav:out.wav`): everything played is appended, as fast as it comes.
/// A clip of another rate or channel count than the first is refused: a WAV file has one format.
public final class WAVOutput: PCMOutput {
    /// The file.
    public let path: String
    private let uri: String
    private var writer: WAVWriter?
    private var format: (rate: Int, channels: Int)?

    /// An output into `path`, created (or emptied) when the first clip starts.
    public init(path: String, uri: String? = nil) {
        self.path = path
        self.uri = uri ?? "wav:\(path)"
    }

    public func start(sampleRate: Int, channelCount: Int) throws(DeviceError) {
        if let format {
            guard format == (sampleRate, channelCount) else {
                throw DeviceError(.unsupported, uri: uri, "the file is \(format.channels) channels at \(format.rate) Hz; this clip is \(channelCount) at \(sampleRate) Hz")
            }
            return
        }
        do {
            writer = try WAVWriter(path: path, sampleRate: sampleRate, channelCount: channelCount)
        } catch {
            throw DeviceError(.ioFailure, uri: uri, error.message)
        }
        format = (sampleRate, channelCount)
    }

    public func write(_ samples: ArraySlice<Float>) throws(DeviceError) {
        guard let writer else { throw DeviceError(.closed, uri: uri, "write before start") }
        do { try writer.write(samples) } catch { throw DeviceError(.ioFailure, uri: uri, error.message) }
    }

    /// Keeps the file open for the next clip; ``close()`` ends it.
    public func finish() throws(DeviceError) {}

    public func abort() {}

    /// Finishes the file.
    public func close() {
        writer?.close()
        writer = nil
    }

    deinit { close() }
}
