import SystemSupport
import CIIO
import HAL

/// How an `iio:` sensor reads its samples (`?mode=`).
public enum IIOReadMode: String, Sendable, Hashable, CaseIterable {
    /// `in_*_raw` (or `in_*_input`) sysfs reads at a fixed rate.
    case polled
    /// The kernel buffer (`/dev/iio:deviceN`), with the device's own timestamps.
    case buffered
}

/// What every `iio:` sensor does when it opens, whatever it measures: parses
/// `iio:CONTEXT/DEVICE[?mode=…&rate=…&trigger=…&samples=…][#TYPE]`, finds the device and the
/// channel type (``IIOKind``), reads the channels' scale and offset, sets the rate and picks the mode.
struct IIOSetup {
    let kind: IIOKind
    let configuration: IIOChannelConfiguration
    let mode: IIOReadMode
    let info: DeviceInfo

    static let accessHelp = "IIO buffers need read access to /dev/iio:deviceN and write access to its sysfs attributes: add a udev rule for the 'iio' group (docs/boards.md)"

    /// Opens the device `uri` names. `axes` (3 or 1) limits the types a URI without a fragment may
    /// pick, and is checked against the one a fragment names; `nil` takes any type.
    init(uri: DeviceURI, axes: Int? = nil) throws(DeviceError) {
        let body = uri.body
        guard let slash = body.lastIndex(of: "/"), slash != body.startIndex, body.index(after: slash) != body.endIndex else {
            throw DeviceError(.invalidURI, uri: uri.description, "an IIO device is iio:local/DEVICE or iio:ip:HOST[:PORT]/DEVICE")
        }
        let contextPart = String(body[..<slash])
        let libiioURI = contextPart.contains(":") ? contextPart : contextPart + ":"
        let deviceID = String(body[body.index(after: slash)...])
        var query: [String: String] = [:]
        for (key, value) in uri.query {
            guard ["mode", "rate", "trigger", "samples"].contains(key) else {
                throw DeviceError(.invalidURI, uri: uri.description, "unknown option '\(key)' (known: mode, rate, trigger, samples)")
            }
            query[key] = value
        }
        let rate: Double?
        if let text = query["rate"] {
            guard let value = Double(text), value > 0, value.isFinite else { throw DeviceError(.invalidURI, uri: uri.description, "rate=\(text) is not a positive rate in Hz") }
            rate = value
        } else {
            rate = nil
        }
        let samples = Int(query["samples"] ?? "1") ?? 0
        guard samples >= 1 else { throw DeviceError(.invalidURI, uri: uri.description, "samples=\(query["samples"] ?? "") is not a positive whole number") }
        var requestedMode: IIOReadMode?
        if let text = query["mode"] {
            guard let mode = IIOReadMode(rawValue: text) else { throw DeviceError(.invalidURI, uri: uri.description, "mode=\(text): use polled or buffered") }
            requestedMode = mode
        }
        var named: IIOKind?
        if let fragment = uri.fragment {
            guard let kind = IIOKind.named(fragment) else {
                throw DeviceError(.invalidURI, uri: uri.description, "unknown channel type '#\(fragment)' (known: \(IIOKind.fragmentList))")
            }
            named = kind
        }
        if let named, let axes, named.axes != axes {
            throw DeviceError(.unsupported, uri: uri.description, named.axes == 3
                ? "#\(named.name) is a three-axis \(named.kind) (MotionSensor), not a single-quantity sensor"
                : "#\(named.name) is a single-quantity \(named.kind) sensor (ScalarSensor), not a motion sensor")
        }

        let context = try IIOContext(libiioURI: libiioURI, deviceURI: uri.description)
        guard let device = context.device(named: deviceID) else {
            let known = context.devices.map { "\(String(cString: iio_device_get_id($0))) (\(iio_device_get_name($0).map { String(cString: $0) } ?? "?"))" }
            throw DeviceError(.notFound, uri: uri.description, "no IIO device '\(deviceID)' in \(libiioURI) (found: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
        }
        let available = IIOKind.kinds(of: device)
        let kind: IIOKind
        if let named {
            guard available.contains(named) else {
                throw DeviceError(.unsupported, uri: uri.description, "no '\(uri.fragment ?? named.name)' channels (has: \(available.map(\.name).joined(separator: ", ")))")
            }
            kind = named
        } else {
            let candidates = available.filter { axes == nil || $0.axes == axes }
            guard candidates.count == 1, let only = candidates.first else {
                throw DeviceError(.invalidURI, uri: uri.description, candidates.isEmpty
                    ? "the device has no channels of a type this backend reads (\(IIOKind.all.filter { axes == nil || $0.axes == axes }.map(\.name).joined(separator: ", ")))"
                    : "the device has \(candidates.map(\.name).joined(separator: ", ")) channels: name one with #TYPE")
            }
            kind = only
        }
        var configuration = try IIOChannelConfiguration(device: device, kind: kind, libiioURI: libiioURI, uri: uri.description)
        configuration.samplesPerRead = samples
        configuration.trigger = query["trigger"]
        let mode = requestedMode ?? (configuration.bufferable ? .buffered : .polled)
        guard mode == .polled || configuration.bufferable else {
            throw DeviceError(.unsupported, uri: uri.description, kind.axes == 3
                ? "the \(kind.name) axes are not scan elements, so only mode=polled works"
                : "the \(kind.name) channel is not a scan element, so only mode=polled works")
        }
        // A device without `sampling_frequency` is polled at the rate asked for, else at the type's default.
        var pollRate: Double?
        if let rate {
            if configuration.hasRateAttribute(device: device) {
                try configuration.setRate(rate, device: device)
            } else if mode == .polled {
                pollRate = rate
            } else {
                throw DeviceError(.unsupported, uri: uri.description, "\(configuration.deviceName) has no sampling_frequency attribute to set (in buffered mode its trigger sets the rate; mode=polled polls at rate=HZ)")
            }
        }
        self.kind = kind
        self.configuration = configuration
        self.mode = mode
        info = DeviceInfo(
            uri: uri.description, name: configuration.deviceName, kind: kind.kind, backend: "iio",
            rate: configuration.currentRate(device: device) ?? (mode == .polled ? pollRate ?? kind.defaultRate : nil),
            range: configuration.range, resolution: configuration.resolution,
            capabilities: available.map(\.name))
    }
}

extension IIOChannelConfiguration {
    /// Starts a reading thread with its own libiio context, reading in `mode` and handing each set of
    /// channel values (HAL units, channel order) with its time to `makeSample`; every sample is an element.
    func readings<Sample: Sendable>(
        mode: IIOReadMode, uri: String, rate: Double?, buffering: ReadingBuffering,
        makeSample: @escaping @Sendable (_ values: [Double], _ time: Timestamp) -> Sample
    ) -> AsyncThrowingStream<Sample, any Error> {
        let configuration = self
        return DeviceThread.stream(name: "iio \(uri)", buffering: buffering) { stop, yield in
            try configuration.read(mode: mode, uri: uri, rate: rate, stop: stop, sample: { yield(makeSample($0, $1)) }, endOfBlock: {})
        }
    }

    /// The same reading thread, handing over the samples of each read of the device (a buffer refill, or one
    /// poll) as one element: one hand-off per block instead of one per sample.
    func blocks<Sample: Sendable>(
        mode: IIOReadMode, uri: String, rate: Double?, buffering: ReadingBuffering,
        makeSample: @escaping @Sendable (_ values: [Double], _ time: Timestamp) -> Sample
    ) -> AsyncThrowingStream<[Sample], any Error> {
        let configuration = self
        return DeviceThread.stream(name: "iio \(uri)", buffering: buffering) { stop, yield in
            var block: [Sample] = []
            block.reserveCapacity(mode == .buffered ? configuration.samplesPerRead : 1)
            try configuration.read(mode: mode, uri: uri, rate: rate, stop: stop, sample: { block.append(makeSample($0, $1)) }) {
                guard !block.isEmpty else { return }
                yield(block)
                block.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Opens the device in its own context and reads it in `mode` until `stop` or an error: each sample's values
    /// and time to `sample`, and `endOfBlock` after each read of the device.
    private func read(
        mode: IIOReadMode, uri: String, rate: Double?, stop: StopFlag,
        sample: ([Double], Timestamp) -> Void, endOfBlock: () -> Void
    ) throws(DeviceError) {
        let context = try IIOContext(libiioURI: libiioURI, deviceURI: uri)
        guard let device = context.device(named: deviceID) else {
            throw DeviceError(.disconnected, uri: uri, "the device is gone from \(libiioURI)")
        }
        let rate = rate ?? kind.defaultRate
        switch mode {
        case .polled:
            try IIOPolledReader(configuration: self, device: device, uri: uri, rate: rate).run(stop: stop, yield: sample, endOfBlock: endOfBlock)
        case .buffered:
            try IIOBufferedReader(configuration: self, device: device, uri: uri, rate: rate).run(stop: stop, yield: sample, endOfBlock: endOfBlock)
        }
    }
}
