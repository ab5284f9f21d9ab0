import HAL

/// A location record: the fix's `mode`, its `utc` time, its position `lat`, `lon` (none in mode `none`) and `alt`,
/// its accuracies `hacc` and `vacc`, `speed`, `course` and satellite count `sats`.
struct LocationLayout: RecordLayout {
    func encode(_ reading: Reading, on channel: TraceChannel, into out: inout JSONOutput) throws(TraceError) -> Bool {
        guard case .location(let fix) = reading else { return false }
        out.key("mode")
        out.string(fix.mode.rawValue)
        if let utc = fix.utcNanoseconds {
            out.key("utc")
            out.string(UTCTime.format(utc))
        }
        switch (fix.mode, fix.coordinate) {
        case (.none, nil): break
        case (.none, .some):
            throw TraceError(.invalidValue, line: 0, field: "lat", "a fix with mode 'none' has no coordinates")
        case (_, nil):
            throw TraceError(.missingField, line: 0, field: "lat", "a \(fix.mode.rawValue) fix needs coordinates")
        case (_, .some(let coordinate)):
            out.key("lat")
            try out.finite(coordinate.latitude, field: "lat")
            out.key("lon")
            try out.finite(coordinate.longitude, field: "lon")
        }
        try out.optionalFinite("alt", fix.altitude, field: "alt")
        try out.optionalFinite("hacc", fix.horizontalAccuracy, field: "hacc")
        try out.optionalFinite("vacc", fix.verticalAccuracy, field: "vacc")
        try out.optionalFinite("speed", fix.speed, field: "speed")
        try out.optionalFinite("course", fix.course, field: "course")
        if let satellites = fix.satellites {
            out.key("sats")
            out.int(satellites)
        }
        return true
    }

    func decode(_ fields: inout RecordFields, at timestamp: Timestamp, on channel: TraceChannel) throws(TraceError) -> Reading {
        let mode = try fields.enumeration("mode", FixMode.self)!
        var utc: Int64?
        if let text = try fields.optional("utc", Read.string) {
            guard let parsed = UTCTime.parse(text) else {
                throw fields.error(.invalidValue, "utc", "'\(text)' is not an ISO 8601 UTC time such as 2026-11-21T10:15:30.25Z")
            }
            utc = parsed
        }
        var coordinate: GeoCoordinate?
        if mode == .none {
            for name in ["lat", "lon", "alt"] where fields.has(name) {
                throw fields.error(.invalidValue, name, "a fix with mode 'none' has no position")
            }
        } else {
            let latitude = try fields.required("lat", "latitude", Read.double)
            let longitude = try fields.required("lon", "longitude", Read.double)
            guard (-90...90).contains(latitude) else { throw fields.error(.invalidValue, "lat", "\(latitude) is outside -90...90") }
            guard (-180...180).contains(longitude) else { throw fields.error(.invalidValue, "lon", "\(longitude) is outside -180...180") }
            coordinate = GeoCoordinate(latitude: latitude, longitude: longitude)
        }
        var fix = LocationFix(timestamp: timestamp, utcNanoseconds: utc, mode: mode, coordinate: coordinate)
        fix.altitude = try fields.optional("alt", Read.double)
        fix.horizontalAccuracy = try fields.nonNegative("hacc")
        fix.verticalAccuracy = try fields.nonNegative("vacc")
        fix.speed = try fields.nonNegative("speed")
        fix.course = try fields.optional("course", Read.double)
        if let course = fix.course, !(0..<360).contains(course) {
            throw fields.error(.invalidValue, "course", "\(course) is outside 0..<360 degrees")
        }
        if let satellites = try fields.optional("sats", Read.int) {
            guard satellites >= 0 else { throw fields.error(.invalidValue, "sats", "a satellite count is not negative") }
            fix.satellites = Int(satellites)
        }
        return .location(fix)
    }
}
