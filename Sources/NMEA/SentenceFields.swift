import HAL

/// What one sentence contributes to its epoch, parsed from its fields. Each parser returns
/// `false` when a field it needs is malformed; absent optional fields are simply absent.
struct Update {
    var timeOfDay: Double?
    var date: (day: Int, month: Int, year: Int)?
    var coordinate: GeoCoordinate?
    var altitudeMSL: Double?
    var geoidSeparation: Double?
    var speed: Double?
    var course: Double?
    var satellitesUsed: Int?
    var hdop: Double?
    var vdop: Double?
    var pdop: Double?
    var noFix = false
    var mode: FixMode?
    var sigmas: (latitude: Double, longitude: Double, altitude: Double?)?

    static let knot = 1852.0 / 3600

    mutating func rmc(_ s: NMEASentence) -> Bool {
        guard parseTime(s[0]), parsePosition(s, at: 2) else { return false }
        guard let status = s[1] else { return false }
        noFix = status == "V"
        if let knots = s[6] { guard let value = Double(knots) else { return false }; speed = value * Self.knot }
        if let track = s[7] { guard let value = Double(track) else { return false }; course = value }
        if let text = s[8] {
            guard text.count == 6, let day = Int(text.prefix(2)), let month = Int(text.dropFirst(2).prefix(2)),
                  let year = Int(text.suffix(2)), (1...31).contains(day), (1...12).contains(month)
            else { return false }
            date = (day, month, year < 80 ? 2000 + year : 1900 + year)
        }
        if s[11] == "N" { noFix = true }
        return true
    }

    mutating func gga(_ s: NMEASentence) -> Bool {
        guard parseTime(s[0]), parsePosition(s, at: 1) else { return false }
        guard let quality = s[5].flatMap({ Int($0) }) else { return false }
        noFix = quality == 0
        guard optionalInt(s[6], into: &satellitesUsed), optionalDouble(s[7], into: &hdop),
              optionalDouble(s[8], into: &altitudeMSL), optionalDouble(s[10], into: &geoidSeparation)
        else { return false }
        return true
    }

    mutating func gsa(_ s: NMEASentence) -> Bool {
        guard let type = s[1].flatMap({ Int($0) }), (1...3).contains(type) else { return false }
        switch type {
        case 1: noFix = true
        case 2: mode = .twoDimensional
        default: mode = .threeDimensional
        }
        guard optionalDouble(s[14], into: &pdop), optionalDouble(s[15], into: &hdop), optionalDouble(s[16], into: &vdop) else {
            return false
        }
        return true
    }

    mutating func vtg(_ s: NMEASentence) -> Bool {
        if let track = s[0] { guard let value = Double(track) else { return false }; course = value }
        if let knots = s[4] {
            guard let value = Double(knots) else { return false }
            speed = value * Self.knot
        } else if let kilometres = s[6] {
            guard let value = Double(kilometres) else { return false }
            speed = value / 3.6
        }
        return true
    }

    mutating func gll(_ s: NMEASentence) -> Bool {
        guard parsePosition(s, at: 0), parseTime(s[4]) else { return false }
        noFix = s[5] == "V" || s[6] == "N"
        return true
    }

    mutating func gns(_ s: NMEASentence) -> Bool {
        guard parseTime(s[0]), parsePosition(s, at: 1), let modes = s[5] else { return false }
        noFix = modes.allSatisfy { $0 == "N" }
        guard optionalInt(s[6], into: &satellitesUsed), optionalDouble(s[7], into: &hdop),
              optionalDouble(s[8], into: &altitudeMSL), optionalDouble(s[9], into: &geoidSeparation)
        else { return false }
        return true
    }

    mutating func zda(_ s: NMEASentence) -> Bool {
        guard parseTime(s[0]) else { return false }
        if let day = s[1].flatMap({ Int($0) }), let month = s[2].flatMap({ Int($0) }), let year = s[3].flatMap({ Int($0) }) {
            guard (1...31).contains(day), (1...12).contains(month), year >= 1980 else { return false }
            date = (day, month, year)
        }
        return true
    }

    mutating func gst(_ s: NMEASentence) -> Bool {
        guard parseTime(s[0]) else { return false }
        if let latitude = s[5].flatMap({ Double($0) }), let longitude = s[6].flatMap({ Double($0) }) {
            sigmas = (latitude, longitude, s[7].flatMap { Double($0) })
        }
        return true
    }

    /// Merges into the epoch: later sentences fill in what earlier ones left out, and a
    /// no-fix report from any sentence sticks.
    func apply(to fix: inout NMEAFix, type: String) {
        fix.sentences.append(type)
        if let timeOfDay { fix.timeOfDay = timeOfDay }
        if let coordinate { fix.coordinate = coordinate }
        if let altitudeMSL { fix.altitudeMSL = altitudeMSL }
        if let geoidSeparation { fix.geoidSeparation = geoidSeparation }
        if let speed { fix.speed = speed }
        if let course { fix.course = course }
        if let satellitesUsed { fix.satellitesUsed = satellitesUsed }
        if let hdop { fix.hdop = hdop }
        if let vdop { fix.vdop = vdop }
        if let pdop { fix.pdop = pdop }
        if let mode { fix.reportedMode = mode }
        if noFix { fix.noFixReported = true }
        if let sigmas {
            fix.sigmaLatitude = sigmas.latitude
            fix.sigmaLongitude = sigmas.longitude
            fix.sigmaAltitude = sigmas.altitude
        }
    }

    // MARK: Fields

    private mutating func parseTime(_ field: Substring?) -> Bool {
        guard let field else { return true }
        guard field.count >= 6, let hours = Int(field.prefix(2)), let minutes = Int(field.dropFirst(2).prefix(2)),
              let seconds = Double(field.dropFirst(4)), hours < 24, minutes < 60, seconds < 61
        else { return false }
        timeOfDay = Double(hours * 3600 + minutes * 60) + seconds
        return true
    }

    /// Latitude `ddmm.mmmm,N|S` and longitude `dddmm.mmmm,E|W` starting at `index`; absent
    /// fields (no fix) leave no position.
    private mutating func parsePosition(_ s: NMEASentence, at index: Int) -> Bool {
        guard let latitudeText = s[index], let longitudeText = s[index + 2] else { return true }
        guard let latitude = Self.angle(latitudeText, degreeDigits: 2), let longitude = Self.angle(longitudeText, degreeDigits: 3),
              let north = s[index + 1], let east = s[index + 3], north == "N" || north == "S", east == "E" || east == "W",
              latitude <= 90, longitude <= 180
        else { return false }
        coordinate = GeoCoordinate(latitude: north == "S" ? -latitude : latitude, longitude: east == "W" ? -longitude : longitude)
        return true
    }

    private static func angle(_ text: Substring, degreeDigits: Int) -> Double? {
        guard text.count > degreeDigits + 1, let degrees = Int(text.prefix(degreeDigits)),
              let minutes = Double(text.dropFirst(degreeDigits)), minutes < 60
        else { return nil }
        return Double(degrees) + minutes / 60
    }

    private func optionalDouble(_ field: Substring?, into value: inout Double?) -> Bool {
        guard let field else { return true }
        guard let parsed = Double(field) else { return false }
        value = parsed
        return true
    }

    private func optionalInt(_ field: Substring?, into value: inout Int?) -> Bool {
        guard let field else { return true }
        guard let parsed = Int(field) else { return false }
        value = parsed
        return true
    }
}
