import TraceFormat
import HAL

/// A location fix: Foxglove's `LocationFix`, with what its fields do not hold in its `metadata`
/// (``TraceSchemas/locationKeys``).
struct LocationMCAPLayout: MCAPRecordLayout {
    var formats: [String: MCAPMessageFormat] { [TraceSchemas.Schema.location.name: .location] }

    func encode(_ reading: Reading, _ context: MCAPRecordContext, into out: inout Protobuf.Writer) throws(TraceError) -> TraceSchemas.Schema {
        guard case .location(let fix) = reading else { return .location }
        var extras: [(String, String)] = [("mode", fix.mode.rawValue)]
        if let utc = fix.utcNanoseconds { extras.append(("utc", UTCTime.format(utc))) }
        for (key, value) in [("hacc", fix.horizontalAccuracy), ("vacc", fix.verticalAccuracy), ("speed", fix.speed), ("course", fix.course)] {
            if let value { extras.append((key, value.description)) }
        }
        if let satellites = fix.satellites { extras.append(("sats", String(satellites))) }
        // No position (mode none) is NaN, which Foxglove's map leaves out.
        out.double(1, fix.coordinate?.latitude ?? .nan)
        out.double(2, fix.coordinate?.longitude ?? .nan)
        if let altitude = fix.altitude { out.double(3, altitude) }
        if let horizontal = fix.horizontalAccuracy {
            // For Foxglove's map: the accuracies as a diagonal ENU covariance (σ², σ², σ²ᵤ).
            let vertical = fix.verticalAccuracy ?? horizontal
            out.packedDoubles(4, [horizontal * horizontal, 0, 0, 0, horizontal * horizontal, 0, 0, 0, vertical * vertical])
            out.int64(5, 2)  // DIAGONAL_KNOWN
        }
        out.timestamp(6, nanoseconds: context.time)
        out.string(7, context.channel.id)
        for (key, value) in extras {
            out.message(9) { pair in
                pair.string(1, key)
                pair.string(2, value)
            }
        }
        return .location
    }
}
