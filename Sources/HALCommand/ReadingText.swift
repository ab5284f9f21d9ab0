import HAL

/// One line of text for a reading, as `hal replay` prints it.
func describe(_ reading: Reading) -> String {
    switch reading {
    case .motion(let sample):
        return "\(sample.value.x) \(sample.value.y) \(sample.value.z)"
    case .attitude(let sample):
        let q = sample.quaternion
        var text = "q=\(q.w) \(q.x) \(q.y) \(q.z) \(sample.frame.rawValue) heading=\(format3(sample.heading())) elevation=\(format3(sample.elevation()))"
        if let accuracy = sample.headingAccuracy { text += " ±\(format3(accuracy))°" }
        return text
    case .pointer(let event):
        return "\(event.phase.rawValue) pointer=\(event.pointer) x=\(event.x) y=\(event.y)"
    case .key(let event):
        return "code=\(event.code) \(event.state.rawValue)"
    case .location(let fix):
        guard let coordinate = fix.coordinate else { return "no fix" }
        var text = "\(fix.mode.rawValue) \(coordinate.latitude),\(coordinate.longitude)"
        if let altitude = fix.altitude { text += " alt=\(altitude)" }
        if let accuracy = fix.horizontalAccuracy { text += " ±\(accuracy)m" }
        return text
    case .frame(let frame):
        let place = switch frame.storage {
        case .file(let path): path
        case .bytes(let bytes): "\(bytes.count) bytes"
        }
        return "#\(frame.sequence) \(frame.width)x\(frame.height) \(frame.pixelFormat.rawValue) \(place)"
    case .expression(let reading):
        guard let face = reading.face, let dominant = reading.dominant, let scores = reading.scores else { return "no face" }
        return "\(dominant.rawValue) \(scores[dominant]) face=\(face.x),\(face.y),\(face.width),\(face.height)"
    case .playback(let event):
        switch event.item {
        case .clip(let name): return "\(event.phase.rawValue) clip \(name)"
        case .speech(let text, let voice): return "\(event.phase.rawValue) speech [\(voice)] \(text)"
        }
    case .appEvent(let event):
        let details = event.attributes.keys.sorted().map { "\($0)=\(event.attributes[$0]!)" }.joined(separator: " ")
        return details.isEmpty ? event.name : "\(event.name) \(details)"
    }
}
