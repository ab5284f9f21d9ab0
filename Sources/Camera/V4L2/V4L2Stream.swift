import LibC
import SystemSupport
public import HAL
import CV4L2

/// A frame lent from a driver buffer: valid only inside the closure it is given to, then the buffer
/// goes back to the driver. Converting or copying it is the consumer's choice; nothing was copied yet.
public struct BorrowedFrame {
    /// The kernel's capture time (`CLOCK_MONOTONIC`).
    public var timestamp: Timestamp
    /// The driver's sequence number.
    public var sequence: UInt64
    /// The format, size and stride.
    public var format: V4L2Format
    /// The frame's bytes in the driver's buffer (the used part).
    public var bytes: UnsafeRawBufferPointer

    /// The frame as a HAL ``HAL/Frame``, with its bytes copied out of the driver's buffer.
    public func copied() -> Frame {
        Frame(
            timestamp: timestamp, sequence: sequence, width: format.size.width, height: format.size.height,
            pixelFormat: format.pixelFormat, bytesPerRow: format.bytesPerRow, storage: .bytes(Array(bytes.bindMemory(to: UInt8.self))))
    }
}

/// Counts of a capture.
public struct V4L2Statistics: Sendable, Hashable {
    /// Frames handed to the consumer.
    public var delivered = 0
    /// Frames the driver dropped: gaps in the sequence numbers.
    public var dropped = 0
    /// Frames skipped as errors: buffers flagged `V4L2_BUF_FLAG_ERROR`, `DQBUF` failing with `EIO`, and,
    /// with `convert=`, frames that did not convert.
    public var errors = 0
    /// Frames that carried the same sequence number as the one before: new images under a repeated label, as
    /// vivid gives when a slow fill makes its next tick round to the same frame count. They are delivered.
    public var repeated = 0
    /// Times the sequence number went back (the driver restarted its count): a new run, no drops counted.
    public var restarts = 0

    /// No frames yet.
    public init() {}

    /// Counts what the sequence number `sequence` says after `last`: a gap is dropped frames, an equal number a
    /// repeat, a step back a restart. Numbers are the driver's 32-bit counter, so a wrap is a step forward.
    public mutating func count(sequence: UInt32, after last: UInt32?) {
        guard let last else { return }
        let step = sequence &- last
        switch step {
        case 0: repeated += 1
        case 1..<0x8000_0000: dropped += Int(step - 1)
        default: restarts += 1
        }
    }
}

/// Memory-mapped streaming from a ``V4L2Device``: `REQBUFS`, `mmap`, `QBUF`, `STREAMON`, then `poll` and
/// `DQBUF`/`QBUF` for each frame. ``stop()`` (or deinit) turns streaming off and unmaps the buffers.
public final class V4L2Stream {
    /// The device.
    public let device: V4L2Device
    /// The negotiated format.
    public let format: V4L2Format
    /// What has happened so far.
    public private(set) var statistics = V4L2Statistics()
    private var buffers: [(address: UnsafeMutableRawPointer, length: Int)] = []
    private var lastSequence: UInt32?
    private var streaming = false

    /// Requests `bufferCount` buffers, maps them, queues them and starts streaming.
    public init(device: V4L2Device, format: V4L2Format, bufferCount: Int = 4) throws(DeviceError) {
        self.device = device
        self.format = format
        var request = v4l2_requestbuffers()
        request.count = UInt32(bufferCount)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try device.control(HAL_VIDIOC_REQBUFS, &request, doing: "VIDIOC_REQBUFS \(bufferCount) mmap buffers")
        guard request.count > 0 else { throw DeviceError(.unsupported, uri: device.uri, "the driver gave no mmap buffers") }
        do throws(DeviceError) {
            for index in 0..<request.count {
                var buffer = v4l2_buffer()
                buffer.index = index
                buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
                buffer.memory = V4L2_MEMORY_MMAP.rawValue
                try device.control(HAL_VIDIOC_QUERYBUF, &buffer, doing: "VIDIOC_QUERYBUF \(index)")
                guard let address = hal_v4l2_map(device.descriptor, Int(buffer.length), Int(buffer.m.offset)) else {
                    throw DeviceError(errno: errno, uri: device.uri, doing: "mmap of buffer \(index)", access: V4L2Device.accessHelp)
                }
                buffers.append((address, Int(buffer.length)))
                try device.control(HAL_VIDIOC_QBUF, &buffer, doing: "VIDIOC_QBUF \(index)")
            }
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            try device.control(HAL_VIDIOC_STREAMON, &type, doing: "VIDIOC_STREAMON")
            streaming = true
        } catch {
            release()
            throw error
        }
    }

    deinit { stop() }

    /// Waits up to `timeout` milliseconds for a frame and lends it to `body`, then gives the buffer back
    /// to the driver. Returns `false` when no frame came in time. A buffer the driver flagged as an
    /// error is requeued and counted, not lent; a gap in sequence numbers is counted as dropped frames, a repeated
    /// number as a repeat (``V4L2Statistics/count(sequence:after:)``). `Frame.sequence` is the driver's number as it
    /// is, which can repeat: the timestamp is the frame's strictly increasing key.
    /// A device that went away throws ``HAL/DeviceError/Code/disconnected``.
    @discardableResult
    public func next(timeout: Int32 = 1000, _ body: (BorrowedFrame) throws -> Void) throws -> Bool {
        var poller = pollfd(fd: device.descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, timeout)
        if ready < 0 {
            if errno == EINTR { return false }
            throw DeviceError(errno: errno, uri: device.uri, doing: "poll", access: V4L2Device.accessHelp)
        }
        if ready == 0 { return false }
        if poller.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0, poller.revents & Int16(POLLIN) == 0 {
            throw DeviceError(.disconnected, uri: device.uri, "the device went away (poll reported an error)")
        }
        var buffer = v4l2_buffer()
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        let status = hal_v4l2_ioctl(device.descriptor, HAL_VIDIOC_DQBUF, &buffer)
        if status == EAGAIN { return false }
        if status == EIO {  // "a temporary error": the buffer comes back flagged or is requeued by the driver
            statistics.errors += 1
            return true
        }
        guard status == 0 else {
            throw DeviceError(errno: status, uri: device.uri, doing: "VIDIOC_DQBUF", access: V4L2Device.accessHelp)
        }
        defer {
            var requeue = buffer
            _ = hal_v4l2_ioctl(device.descriptor, HAL_VIDIOC_QBUF, &requeue)
        }
        statistics.count(sequence: buffer.sequence, after: lastSequence)
        lastSequence = buffer.sequence
        let sequence = UInt64(buffer.sequence)
        if buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 {
            statistics.errors += 1
            return true
        }
        let timestamp = Timestamp(nanoseconds: Int64(buffer.timestamp.tv_sec) * 1_000_000_000 + Int64(buffer.timestamp.tv_usec) * 1000)
        let mapped = buffers[Int(buffer.index)]
        let used = min(Int(buffer.bytesused), mapped.length)
        statistics.delivered += 1
        try body(BorrowedFrame(timestamp: timestamp, sequence: sequence, format: format, bytes: UnsafeRawBufferPointer(start: mapped.address, count: used)))
        return true
    }

    /// Stops streaming, unmaps the buffers and frees them in the driver. Safe to call more than once.
    public func stop() {
        if streaming {
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            _ = hal_v4l2_ioctl(device.descriptor, HAL_VIDIOC_STREAMOFF, &type)
            streaming = false
        }
        release()
    }

    private func release() {
        for buffer in buffers { munmap(buffer.address, buffer.length) }
        if !buffers.isEmpty {
            var request = v4l2_requestbuffers()
            request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            request.memory = V4L2_MEMORY_MMAP.rawValue
            _ = hal_v4l2_ioctl(device.descriptor, HAL_VIDIOC_REQBUFS, &request)
        }
        buffers.removeAll()
    }
}
