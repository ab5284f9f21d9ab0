/// The descriptions of the kinds the package builds in: their units, text forms and faults. Their trace records are
/// encoded by the trace format itself, for speed.
enum BuiltinKinds {
    static let all: [KindDescription] = [
        motion(.gyroscope, "angular rate (gyroscope)", units: "rad/s"),
        motion(.accelerometer, "proper acceleration (accelerometer)", units: "m/s^2"),
        motion(.magnetometer, "magnetic field (magnetometer)", units: "uT"),
        KindDescription(
            kind: .attitude, summary: "orientation as a quaternion in an earth frame", units: nil,
            readingType: AttitudeSample.self,
            text: { reading in
                guard case .attitude(let sample) = reading else { return "\(reading)" }
                let q = sample.quaternion
                var text = "q=\(q.w) \(q.x) \(q.y) \(q.z) \(sample.frame.rawValue) heading=\(format3(sample.heading())) elevation=\(format3(sample.elevation()))"
                if let accuracy = sample.headingAccuracy { text += " ±\(format3(accuracy))°" }
                return text
            },
            faults: KindFaults(freeze: KindFaults.keepsFirstValue),
            attributes: KindAttributes(names: ["heading", "elevation"], numbers: ["heading", "elevation"]) { reading in
                guard case .attitude(let sample) = reading else { return [:] }
                return ["heading": .double(sample.heading()), "elevation": .double(sample.elevation())]
            }),
        KindDescription(
            kind: .pointer, summary: "touch, touchpad, mouse or scripted gestures", units: "normalized",
            readingType: PointerEvent.self,
            text: { reading in
                guard case .pointer(let event) = reading else { return "\(reading)" }
                return "\(event.phase.rawValue) pointer=\(event.pointer) x=\(event.x) y=\(event.y)"
            },
            attributes: KindAttributes(names: ["phase", "pointer", "x", "y"], numbers: ["pointer", "x", "y"]) { reading in
                guard case .pointer(let event) = reading else { return [:] }
                return ["phase": .string(event.phase.rawValue), "pointer": .int(Int64(event.pointer)), "x": .double(event.x), "y": .double(event.y)]
            }),
        KindDescription(
            kind: .keys, summary: "keys and buttons", units: nil, readingType: KeyEvent.self,
            text: { reading in
                guard case .key(let event) = reading else { return "\(reading)" }
                return "code=\(event.code) \(event.state.rawValue)"
            },
            attributes: KindAttributes(names: ["code", "state"], numbers: ["code"]) { reading in
                guard case .key(let event) = reading else { return [:] }
                return ["code": .int(Int64(event.code)), "state": .string(event.state.rawValue)]
            }),
        KindDescription(
            kind: .location, summary: "location fixes (WGS84)", units: "deg,m,m/s", readingType: LocationFix.self,
            text: { reading in
                guard case .location(let fix) = reading, let coordinate = fix.coordinate else { return "no fix" }
                var text = "\(fix.mode.rawValue) \(coordinate.latitude),\(coordinate.longitude)"
                if let altitude = fix.altitude { text += " alt=\(altitude)" }
                if let accuracy = fix.horizontalAccuracy { text += " ±\(accuracy)m" }
                return text
            },
            faults: KindFaults(
                freeze: { reading, first in
                    // The receiver's clock runs on; the position does not.
                    guard case .location(var fix) = first, case .location(let own) = reading else { return reading }
                    fix.timestamp = own.timestamp
                    fix.utcNanoseconds = own.utcNanoseconds
                    return .location(fix)
                },
                spike: { reading, magnitude, unit in
                    guard case .location(var fix) = reading, let position = fix.coordinate else { return reading }
                    fix.coordinate = position.destination(distance: magnitude, bearing: unit() * 360)
                    return .location(fix)
                }),
            attributes: KindAttributes(
                names: ["mode", "lat", "lon", "alt", "speed", "latitude", "longitude"], numbers: ["lat", "lon", "alt", "speed", "latitude", "longitude"]
            ) { reading in
                guard case .location(let fix) = reading else { return [:] }
                var attributes: [String: AppEventValue] = ["mode": .string(fix.mode.rawValue)]
                if let coordinate = fix.coordinate {
                    // `lat` and `lon`, and the longer names earlier scenarios use.
                    attributes["lat"] = .double(coordinate.latitude)
                    attributes["lon"] = .double(coordinate.longitude)
                    attributes["latitude"] = .double(coordinate.latitude)
                    attributes["longitude"] = .double(coordinate.longitude)
                }
                if let altitude = fix.altitude { attributes["alt"] = .double(altitude) }
                if let speed = fix.speed { attributes["speed"] = .double(speed) }
                return attributes
            }),
        KindDescription(
            kind: .camera, summary: "camera frames", units: nil, readingType: Frame.self,
            text: { reading in
                guard case .frame(let frame) = reading else { return "\(reading)" }
                let place = switch frame.storage {
                case .file(let path): path
                case .bytes(let bytes): "\(bytes.count) bytes"
                }
                return "#\(frame.sequence) \(frame.width)x\(frame.height) \(frame.pixelFormat.rawValue) \(place)"
            },
            attributes: KindAttributes(names: ["seq"], numbers: ["seq"]) { reading in
                guard case .frame(let frame) = reading else { return [:] }
                return ["seq": .int(Int64(frame.sequence))]
            }),
        KindDescription(
            kind: .expression, summary: "facial-expression readings", units: nil, readingType: ExpressionReading.self,
            text: { reading in
                guard case .expression(let reading) = reading, let face = reading.face, let dominant = reading.dominant,
                    let scores = reading.scores
                else { return "no face" }
                let tracked = reading.faceID.map { " id=\($0) rank=\(reading.rank)/\(reading.faceCount)" } ?? ""
                return "\(dominant.rawValue) \(scores[dominant]) face=\(face.x),\(face.y),\(face.width),\(face.height)\(tracked)"
            },
            faults: KindFaults(freeze: KindFaults.keepsFirstValue),
            attributes: KindAttributes(names: ["dominant"], numbers: []) { reading in
                guard case .expression(let reading) = reading else { return [:] }
                return ["dominant": .string(reading.dominant?.rawValue ?? "none")]
            }),
        KindDescription(
            kind: .speaker, summary: "what a speaker played or spoke", units: nil, isOutput: true,
            readingType: PlaybackEvent.self,
            text: { reading in
                guard case .playback(let event) = reading else { return "\(reading)" }
                switch event.item {
                case .clip(let name): return "\(event.phase.rawValue) clip \(name)"
                case .speech(let text, let voice): return "\(event.phase.rawValue) speech [\(voice)] \(text)"
                }
            },
            attributes: KindAttributes(names: ["phase", "clip", "text"], numbers: []) { reading in
                guard case .playback(let event) = reading else { return [:] }
                return switch event.item {
                case .clip(let name): ["phase": .string(event.phase.rawValue), "clip": .string(name)]
                case .speech(let text, _): ["phase": .string(event.phase.rawValue), "text": .string(text)]
                }
            }),
        KindDescription(
            kind: .app, summary: "an app's own events", units: nil, isOutput: true, readingType: AppEvent.self,
            text: { reading in
                guard case .appEvent(let event) = reading else { return "\(reading)" }
                let details = event.attributes.keys.sorted().map { "\($0)=\(event.attributes[$0]!)" }.joined(separator: " ")
                return details.isEmpty ? event.name : "\(event.name) \(details)"
            },
            attributes: KindAttributes(names: nil) { reading in
                guard case .appEvent(let event) = reading else { return [:] }
                return event.attributes
            }),
    ]

    private static func motion(_ kind: DeviceKind, _ summary: String, units: String) -> KindDescription {
        KindDescription(
            kind: kind, summary: summary, units: units, readingType: MotionSample.self,
            text: { reading in
                guard case .motion(let sample) = reading else { return "\(reading)" }
                return "\(sample.value.x) \(sample.value.y) \(sample.value.z)"
            },
            faults: KindFaults(
                freeze: KindFaults.keepsFirstValue,
                spike: { reading, magnitude, unit in
                    guard case .motion(var sample) = reading else { return reading }
                    let x = sample.value.x + (unit() < 0.5 ? -1.0 : 1.0) * magnitude
                    let y = sample.value.y + (unit() < 0.5 ? -1.0 : 1.0) * magnitude
                    let z = sample.value.z + (unit() < 0.5 ? -1.0 : 1.0) * magnitude
                    sample.value = Vector3(x: x, y: y, z: z)
                    return .motion(sample)
                },
                bias: { reading, magnitude in
                    guard case .motion(var sample) = reading else { return reading }
                    sample.value = Vector3(x: sample.value.x + magnitude, y: sample.value.y + magnitude, z: sample.value.z + magnitude)
                    return .motion(sample)
                }),
            attributes: KindAttributes(names: ["x", "y", "z", "magnitude"], numbers: ["x", "y", "z", "magnitude"]) { reading in
                guard case .motion(let sample) = reading else { return [:] }
                return ["x": .double(sample.value.x), "y": .double(sample.value.y), "z": .double(sample.value.z),
                        "magnitude": .double(sample.value.magnitude)]
            })
    }
}

/// A number with three decimals, as the text forms and `hal info` show them.
package func format3(_ value: Double) -> String {
    let scaled = (value * 1000).rounded()
    let whole = Int64(scaled / 1000)
    let fraction = Int64(abs(scaled).truncatingRemainder(dividingBy: 1000))
    let digits = String(fraction)
    return "\(scaled < 0 && whole == 0 ? "-" : "")\(whole).\(String(repeating: "0", count: 3 - digits.count))\(digits)"
}
