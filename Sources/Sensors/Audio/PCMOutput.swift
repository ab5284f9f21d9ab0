public import HAL

/// Where a speaker's samples go: a sound device or a file. Calls come from one playback thread.
public protocol PCMOutput: AnyObject {
    /// Prepares for audio of this format (opening the device, negotiating the rate).
    func start(sampleRate: Int, channelCount: Int) throws(DeviceError)
    /// Plays interleaved samples in −1…1, blocking while the device's buffer is full.
    func write(_ samples: ArraySlice<Float>) throws(DeviceError)
    /// Lets what was written finish playing, then releases the device.
    func finish() throws(DeviceError)
    /// Drops what has not played yet and releases the device.
    func abort()
}

extension Float {
    /// The sample as signed 16-bit PCM, clipped.
    @inline(__always)
    var pcm16: Int16 { Int16(Swift.max(-32768, Swift.min(32767, (self * 32768).rounded()))) }
}
