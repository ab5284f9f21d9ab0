public import TraceFormat
import HAL
public import InputEvents

extension EvemuRecording {
    /// The recording as a trace, decoded exactly as the live evdev backend decodes the same device:
    /// one channel per role (`pointer`, `keys`, `accel`, `gyro`, `stick`), named by the role, with
    /// the recorded kernel timestamps.
    ///
    /// - Parameters:
    ///   - source: the channels' source, such as `file:touch.evemu`.
    ///   - roles: the roles to import; all the device offers when `nil`.
    /// - Throws: ``InputEvents/InputDecoderError`` when the device cannot be decoded in a role asked for.
    public func trace(
        source: String, roles: [InputRole]? = nil, settings: InputDecoderSettings = InputDecoderSettings(),
        metadata: [String: String] = [:]
    ) throws(InputDecoderError) -> Trace {
        let roles = roles ?? device.roles
        var decoders: [InputDecoder] = []
        for role in roles { decoders.append(try InputDecoder(device: device, role: role, settings: settings)) }
        let channels = roles.map { role in
            TraceChannel(id: role.rawValue, kind: role.deviceKind, source: source, name: device.name, backend: "evemu")
        }
        var records: [TraceRecord] = []
        var readings: [Reading] = []
        for event in events {
            for index in decoders.indices {
                decoders[index].decode(event, into: &readings)
                for reading in readings { records.append(TraceRecord(channel: index, reading: reading)) }
                readings.removeAll(keepingCapacity: true)
            }
        }
        return Trace(header: TraceHeader(channels: channels, metadata: metadata), records: records)
    }
}
