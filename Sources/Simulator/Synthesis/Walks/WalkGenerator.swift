import LibC
public import TraceFormat
import HAL

extension WalkScenario {
    /// Satellites reported in good conditions and in degraded ones.
    static let satellites = (normal: 9, degraded: 5)

    /// Generates the walk's trace: one `gps` location channel at ``rate``, starting at
    /// timestamp 0 and UTC ``start``.
    ///
    /// - The true position moves along straight geodesic legs at constant speed, with
    ///   altitude interpolated between places (80 m where a place has none).
    /// - Noise is first-order Gauss-Markov per axis (east, north: σ = horizontal/√2;
    ///   up: σ = vertical), so the error drifts and does not jump.
    /// - In a dropout the fix is `none`, with no coordinates.
    /// - A degraded region multiplies the noise and the reported accuracy by its factor and
    ///   drops the satellites used from 9 to 5.
    /// - A multipath jump moves the reported position for its duration.
    /// - Reported accuracy is the noise's σ (1σ, metres) times any degradation.
    public func generate(places: [String: Place], source: String = "sim:walk") -> Trace {
        var channels = [TraceChannel(id: "gps", kind: .location, source: source + "#gps", rate: rate, name: "Scripted GPS walk", backend: "sim")]
        if !(pointing ?? []).isEmpty {
            channels.append(TraceChannel(
                id: "heading", kind: .attitude, source: source + "#heading", name: "Phone held toward places", backend: "sim", frame: .enu))
        }
        let header = TraceHeader(
            channels: channels,
            metadata: ["generator": "WalkScenario", "seed": String(seed)].merging(title.map { ["title": $0] } ?? [:]) { a, _ in a })
        let course = Self.courses.value(for: CourseKey(walk: withoutSeed, places: places)) { makeCourse(places: places) }
        let startUTC = UTCTime.parse(start) ?? 0
        let period = 1 / rate
        var random = SeededRandom(seed: seed)
        let jumpBearings = (multipath ?? []).map { $0.bearing ?? random.unit() * 360 }
        var error = (east: 0.0, north: 0.0, up: 0.0)
        var records: [TraceRecord] = []
        records.reserveCapacity(course.samples.count + course.pointing.count)
        // Gauss-Markov steps: each sample keeps `decay` of the error and adds `drive` of fresh noise.
        let decay = noise.map { exp(-period / $0.correlation) } ?? 0
        let drive = (1 - decay * decay).squareRoot()
        let horizontal = (noise?.horizontal ?? 0) / 2.0.squareRoot()
        for sample in course.samples {
            let (time, nanoseconds, truth, factor) = (sample.time, sample.nanoseconds, sample.truth, sample.factor)
            // Advance the noise every sample, dropout or not, so that a dropout changes nothing after it.
            if let noise {
                error.east = decay * error.east + drive * horizontal * random.gaussian()
                error.north = decay * error.north + drive * horizontal * random.gaussian()
                error.up = decay * error.up + drive * (noise.vertical ?? 0) * random.gaussian()
            }
            let timestamp = Timestamp(nanoseconds: nanoseconds)
            let utc = startUTC + nanoseconds
            if sample.dropout {
                records.append(TraceRecord(channel: 0, reading: .location(.noFix(at: timestamp, utcNanoseconds: utc))))
                continue
            }
            var east = error.east * factor, north = error.north * factor
            for (jump, bearing) in zip(multipath ?? [], jumpBearings) where (jump.at..<(jump.at + jump.seconds)).contains(time) {
                east += jump.jump * sin(bearing * .pi / 180)
                north += jump.jump * cos(bearing * .pi / 180)
            }
            let offset = (east * east + north * north).squareRoot()
            let reported = offset > 0
                ? truth.coordinate.destination(distance: offset, bearing: atan2(east, north) * 180 / .pi)
                : truth.coordinate
            let horizontal = noise.map { $0.horizontal * factor }
            records.append(TraceRecord(channel: 0, reading: .location(LocationFix(
                timestamp: timestamp, utcNanoseconds: utc, mode: .threeDimensional,
                coordinate: GeoCoordinate(latitude: Self.rounded(reported.latitude, 1e-9), longitude: Self.rounded(reported.longitude, 1e-9)),
                altitude: Self.rounded(truth.altitude + error.up * factor, 1e-3),
                horizontalAccuracy: horizontal.map { Self.rounded($0, 1e-3) },
                verticalAccuracy: noise?.vertical.map { Self.rounded($0 * factor, 1e-3) },
                speed: Self.rounded(truth.speed, 1e-3), course: truth.speed > 0 ? Self.rounded(truth.course, 1e-2) : nil,
                satellites: factor > 1 ? Self.satellites.degraded : Self.satellites.normal))))
        }
        records += course.pointing
        records.sort { ($0.timestamp, $0.channel) < ($1.timestamp, $1.channel) }
        return Trace(header: header, records: records)
    }

    /// What a walk is without its noise: where the walker truly is at each sample, whether a dropout or a degraded
    /// region holds there, and the `heading` channel. The seed changes none of it.
    struct Course: Sendable {
        /// A sample's time and truth.
        struct Sample: Sendable {
            var time: Double
            var nanoseconds: Int64
            var truth: Truth
            var dropout: Bool
            /// The largest degradation factor that holds, 1 where none does.
            var factor: Double
        }

        var samples: [Sample]
        var pointing: [TraceRecord]
    }

    /// A walk without its seed, and its places: what decides its ``Course``.
    struct CourseKey: Hashable, Sendable {
        var walk: WalkScenario
        var places: [String: Place]
    }

    /// The walk with its seed set aside.
    private var withoutSeed: WalkScenario {
        var walk = self
        walk.seed = 0
        return walk
    }

    /// The courses worked out, by walk and places: the seeded variants of one walk (a suite's, `hal test --explore`'s)
    /// share one. Each is a function of its key alone, reading no file.
    private static let courses = FileCache<CourseKey, Course>(capacity: 8)

    /// The walk's ``Course``, worked out now.
    private func makeCourse(places: [String: Place]) -> Course {
        let legs = legs(places: places)
        let end = legs.last?.end ?? 0
        let period = 1 / rate
        var samples: [Course.Sample] = []
        var index = 0
        while Double(index) * period <= end + 1e-9 {
            let time = Double(index) * period
            let nanoseconds = Int64((time * 1e9).rounded())
            index += 1
            let truth = position(at: time, legs: legs)
            let dropout = (dropouts ?? []).contains(where: { $0.contains(time: time, position: truth.coordinate, places: places) })
            let factor = dropout ? 1 : (degraded ?? []).filter { $0.contains(time: time, position: truth.coordinate, places: places) }
                .map { $0.factor ?? 1 }.max() ?? 1
            samples.append(Course.Sample(time: time, nanoseconds: nanoseconds, truth: truth, dropout: dropout, factor: factor))
        }
        return Course(samples: samples, pointing: pointingRecords(places: places, legs: legs))
    }

    /// The `heading` channel: for each pointing, the phone upright (screen toward the walker) with its
    /// back camera along the true bearing to the place, plus the pointing's offset.
    private func pointingRecords(places: [String: Place], legs: [Leg]) -> [TraceRecord] {
        var records: [TraceRecord] = []
        for pointing in pointing ?? [] {
            guard let place = pointing.toward.place(in: places) else { continue }
            let period = 1 / (pointing.rate ?? 10)
            var time = pointing.at
            while time < pointing.at + pointing.seconds - 1e-9 {
                let position = position(at: time, legs: legs).coordinate
                let bearing = (position.bearing(to: place.coordinate) + (pointing.offset ?? 0)) * .pi / 180
                let forward = Vector3(x: sin(bearing), y: cos(bearing), z: 0)
                let right = Vector3(x: cos(bearing), y: -sin(bearing), z: 0)
                let up = Vector3(x: 0, y: 0, z: 1)
                // Device x is right, y up the screen, z out of the screen: the back camera (−z) looks forward.
                let attitude = Quaternion(
                    rotating: (Vector3(x: 1, y: 0, z: 0), Vector3(x: 0, y: 1, z: 0), Vector3(x: 0, y: 0, z: 1)),
                    onto: (right, up, forward * -1))
                let timestamp = Timestamp(nanoseconds: Int64((time * 1e9).rounded()))
                records.append(TraceRecord(channel: 1, reading: .attitude(AttitudeSample(timestamp: timestamp, quaternion: attitude, frame: .enu))))
                time += period
            }
        }
        return records
    }

    /// Rounds to a multiple of `step`, so traces hold sensible digits (1e-9° is 0.1 mm).
    private static func rounded(_ value: Double, _ step: Double) -> Double {
        ((value / step).rounded() * step * 1e12).rounded() / 1e12
    }

    /// One stretch of the walk: from `start` to `end` seconds, moving from `from` to `to`
    /// until `arrive`, then dwelling.
    struct Leg {
        var start: Double
        var arrive: Double
        var end: Double
        var from: Place
        var to: Place
        var distance: Double
        var bearing: Double
    }

    /// Where the walker truly is.
    struct Truth {
        var coordinate: GeoCoordinate
        var altitude: Double
        var speed: Double
        var course: Double
    }

    func legs(places: [String: Place]) -> [Leg] {
        func resolve(_ target: Target?) -> Place {
            target.map { $0.place(in: places)! } ?? Place(name: nil, coordinate: GeoCoordinate(latitude: 0, longitude: 0), alt: nil)
        }
        var current = resolve(route.first?.at)
        var time = 0.0
        var legs = [Leg(start: 0, arrive: 0, end: route.first?.dwell ?? 0, from: current, to: current, distance: 0, bearing: 0)]
        time = legs[0].end
        for step in route.dropFirst() {
            let destination = resolve(step.to)
            let distance = current.coordinate.distance(to: destination.coordinate)
            let travel = step.duration ?? distance / step.speed!
            legs.append(Leg(
                start: time, arrive: time + travel, end: time + travel + (step.dwell ?? 0), from: current, to: destination,
                distance: distance, bearing: current.coordinate.bearing(to: destination.coordinate)))
            time += travel + (step.dwell ?? 0)
            current = destination
        }
        return legs
    }

    func position(at time: Double, legs: [Leg]) -> Truth {
        let leg = legs.last { $0.start <= time } ?? legs[0]
        let altitudeFrom = leg.from.alt ?? 80, altitudeTo = leg.to.alt ?? 80
        guard time < leg.arrive, leg.arrive > leg.start else {
            return Truth(coordinate: leg.to.coordinate, altitude: altitudeTo, speed: 0, course: leg.bearing)
        }
        let fraction = (time - leg.start) / (leg.arrive - leg.start)
        return Truth(
            coordinate: leg.from.coordinate.destination(distance: leg.distance * fraction, bearing: leg.bearing),
            altitude: altitudeFrom + (altitudeTo - altitudeFrom) * fraction,
            speed: leg.distance / (leg.arrive - leg.start), course: leg.bearing)
    }
}

extension WalkScenario.Region {
    /// Whether the region holds at `time` (seconds) for a walker truly at `position`.
    func contains(time: Double, position: GeoCoordinate, places: [String: WalkScenario.Place]) -> Bool {
        if let from, time < from { return false }
        if let to, time >= to { return false }
        guard let inside else { return true }
        return inside.place(in: places)!.coordinate.distance(to: position) <= (radius ?? 0)
    }
}
