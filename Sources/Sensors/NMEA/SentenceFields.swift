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
    /// Whether ``sigmas`` are GBS's expected errors, taken only where no GST gave σ.
    var sigmasFromGBS = false
    /// DTM's local datum code, such as `W84`.
    var datum: NMEADatum?

    static let knot = 1852.0 / 3600

    mutating func parse(_ s: FramedSentence, as type: SentenceType) -> Bool {
        switch type {
        case .rmc: rmc(s)
        case .gga: gga(s)
        case .gsa: gsa(s)
        case .gsv: true
        case .vtg: vtg(s)
        case .gll: gll(s)
        case .gns: gns(s)
        case .zda: zda(s)
        case .gst: gst(s)
        case .gbs: gbs(s)
        case .grs: parseTime(s, 0)
        case .dtm: dtm(s)
        }
    }

    private mutating func rmc(_ s: FramedSentence) -> Bool {
        guard parseTime(s, 0), parsePosition(s, at: 2), s.field(1) != nil else { return false }
        noFix = s.field(1, is: UInt8(ascii: "V")) || s.field(11, is: UInt8(ascii: "N"))
        guard optionalDouble(s, 6, into: &speed), optionalDouble(s, 7, into: &course) else { return false }
        speed = speed.map { $0 * Self.knot }
        if let range = s.field(8) {
            guard range.count == 6, let day = s.digits(range.lowerBound, 2), let month = s.digits(range.lowerBound + 2, 2),
                  let year = s.digits(range.lowerBound + 4, 2)
            else { return false }
            // All zeros: a receiver that does not know the date yet (gpsd reads it so too).
            if day != 0 || month != 0 || year != 0 {
                guard (1...31).contains(day), (1...12).contains(month) else { return false }
                date = (day, month, year < 80 ? 2000 + year : 1900 + year)
            }
        }
        return true
    }

    /// GGA's quality 0 (or an empty quality) is no fix only without a position or with fewer than 3 satellites
    /// used: receivers send 0 with a position they computed from enough satellites, and gpsd reports it as a fix.
    private mutating func gga(_ s: FramedSentence) -> Bool {
        guard parseTime(s, 0), parsePosition(s, at: 1) else { return false }
        var quality: Int?
        guard optionalInt(s, 5, into: &quality), optionalInt(s, 6, into: &satellitesUsed), optionalDouble(s, 7, into: &hdop),
              optionalDouble(s, 8, into: &altitudeMSL), optionalDouble(s, 10, into: &geoidSeparation)
        else { return false }
        noFix = (quality ?? 0) == 0 && (coordinate == nil || (satellitesUsed ?? 0) < 3)
        return true
    }

    private mutating func gsa(_ s: FramedSentence) -> Bool {
        guard let type = s.field(1).flatMap(s.int), (1...3).contains(type) else { return false }
        switch type {
        case 1: noFix = true
        case 2: mode = .twoDimensional
        default: mode = .threeDimensional
        }
        return optionalDouble(s, 14, into: &pdop) && optionalDouble(s, 15, into: &hdop) && optionalDouble(s, 16, into: &vdop)
    }

    private mutating func vtg(_ s: FramedSentence) -> Bool {
        guard optionalDouble(s, 0, into: &course) else { return false }
        var knots: Double?, kilometres: Double?
        guard optionalDouble(s, 4, into: &knots), optionalDouble(s, 6, into: &kilometres) else { return false }
        speed = knots.map { $0 * Self.knot } ?? kilometres.map { $0 / 3.6 }
        return true
    }

    private mutating func gll(_ s: FramedSentence) -> Bool {
        guard parsePosition(s, at: 0), parseTime(s, 4) else { return false }
        noFix = s.field(5, is: UInt8(ascii: "V")) || s.field(6, is: UInt8(ascii: "N"))
        return true
    }

    private mutating func gns(_ s: FramedSentence) -> Bool {
        guard parseTime(s, 0), parsePosition(s, at: 1), let modes = s.field(5) else { return false }
        noFix = modes.allSatisfy { s.bytes[$0] == UInt8(ascii: "N") }
        return optionalInt(s, 6, into: &satellitesUsed) && optionalDouble(s, 7, into: &hdop)
            && optionalDouble(s, 8, into: &altitudeMSL) && optionalDouble(s, 9, into: &geoidSeparation)
    }

    private mutating func zda(_ s: FramedSentence) -> Bool {
        guard parseTime(s, 0) else { return false }
        if let day = s.field(1).flatMap(s.int), let month = s.field(2).flatMap(s.int), let year = s.field(3).flatMap(s.int),
           day != 0 || month != 0 || year != 0 {
            guard (1...31).contains(day), (1...12).contains(month), year >= 1980 else { return false }
            date = (day, month, year)
        }
        return true
    }

    private mutating func gst(_ s: FramedSentence) -> Bool {
        guard parseTime(s, 0) else { return false }
        if let latitude = s.field(5).flatMap(s.double), let longitude = s.field(6).flatMap(s.double) {
            sigmas = (latitude, longitude, s.field(7).flatMap(s.double))
        }
        return true
    }

    private mutating func gbs(_ s: FramedSentence) -> Bool {
        guard parseTime(s, 0) else { return false }
        if let latitude = s.field(1).flatMap(s.double), let longitude = s.field(2).flatMap(s.double) {
            sigmas = (latitude, longitude, s.field(3).flatMap(s.double))
            sigmasFromGBS = true
        }
        return true
    }

    private mutating func dtm(_ s: FramedSentence) -> Bool {
        guard let range = s.field(0) else { return true }
        guard let code = NMEADatum(s.bytes[range]) else { return false }
        datum = code
        return true
    }

    /// Whether this sentence starts a new cycle of the epoch `fix` holds so far, at the same time: it gives another
    /// position than the epoch's, says there is no fix after the epoch had one, or gives a fix after the epoch said
    /// there was none. gpsd reports each such cycle; merged, the later sentence would overwrite the earlier cycle's
    /// position, or a trailing no-fix sentence would wipe a valid fix.
    func startsCycle(after fix: NMEAFix) -> Bool {
        if let coordinate, let current = fix.coordinate, coordinate != current { return true }
        if noFix { return fix.coordinate != nil && !fix.noFixReported }
        return coordinate != nil && fix.noFixReported
    }

    /// Merges into the epoch: later sentences fill in what earlier ones left out, and a
    /// no-fix report from any sentence sticks.
    func apply(to fix: inout NMEAFix, type: SentenceType) {
        fix.sentenceTypes.append(type)
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
        if let sigmas, !sigmasFromGBS || !fix.sentenceTypes.contains(.gst) {
            fix.sigmaLatitude = sigmas.latitude
            fix.sigmaLongitude = sigmas.longitude
            fix.sigmaAltitude = sigmas.altitude
        }
        if let datum { fix.datum = datum }
    }

    // MARK: Fields

    /// `hhmmss[.ss]` at field `index`; an absent field leaves no time.
    private mutating func parseTime(_ s: FramedSentence, _ index: Int) -> Bool {
        guard let range = s.field(index) else { return true }
        guard range.count >= 6, let hours = s.digits(range.lowerBound, 2), let minutes = s.digits(range.lowerBound + 2, 2),
              let seconds = s.unsignedDouble((range.lowerBound + 4)..<range.upperBound), hours < 24, minutes < 60, seconds < 61
        else { return false }
        timeOfDay = Double(hours * 3600 + minutes * 60) + seconds
        return true
    }

    /// Latitude `ddmm.mmmm,N|S` and longitude `dddmm.mmmm,E|W` starting at `index`; absent
    /// fields (no fix) leave no position.
    private mutating func parsePosition(_ s: FramedSentence, at index: Int) -> Bool {
        guard let latitudeRange = s.field(index), let longitudeRange = s.field(index + 2) else { return true }
        guard let latitude = Self.angle(s, latitudeRange, degreeDigits: 2), let longitude = Self.angle(s, longitudeRange, degreeDigits: 3),
              latitude <= 90, longitude <= 180
        else { return false }
        let south = s.field(index + 1, is: UInt8(ascii: "S")), north = s.field(index + 1, is: UInt8(ascii: "N"))
        let west = s.field(index + 3, is: UInt8(ascii: "W")), east = s.field(index + 3, is: UInt8(ascii: "E"))
        guard south || north, west || east else { return false }
        coordinate = GeoCoordinate(latitude: south ? -latitude : latitude, longitude: west ? -longitude : longitude)
        return true
    }

    private static func angle(_ s: FramedSentence, _ range: Range<Int>, degreeDigits: Int) -> Double? {
        guard range.count > degreeDigits + 1, let degrees = s.digits(range.lowerBound, degreeDigits),
              let minutes = s.unsignedDouble((range.lowerBound + degreeDigits)..<range.upperBound), minutes < 60
        else { return nil }
        return Double(degrees) + minutes / 60
    }

    private func optionalDouble(_ s: FramedSentence, _ index: Int, into value: inout Double?) -> Bool {
        guard let range = s.field(index) else { return true }
        guard let parsed = s.double(range) else { return false }
        value = parsed
        return true
    }

    private func optionalInt(_ s: FramedSentence, _ index: Int, into value: inout Int?) -> Bool {
        guard let range = s.field(index) else { return true }
        guard let parsed = s.int(range) else { return false }
        value = parsed
        return true
    }
}
