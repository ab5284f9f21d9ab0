import LibC
public import HAL
public import TraceFormat

/// A trace drawn as one SVG picture, panel under panel:
///
/// - **the route** of the location channels, in metres east and north of the first fix, with the places given (and
///   their arrival circles), dropouts (fixes with no position) marked, and the app's events placed where they
///   happened;
/// - **time series** of each motion channel (x, y, z with the kind's units), of the attitude channels' heading and
///   elevation (every attitude channel in the same two panels, so that a ground truth and a fused estimate lie side
///   by side), and of other numeric channels;
/// - **the seven expression scores** of each expression channel over time (the most prominent face);
/// - **lanes** of app events, speaker playback (from start to finish), keys and pointer presses.
///
/// What each kind's channels give, other than the route and the attitude panels, is the kind's ``KindPlot``; a
/// program that adds a kind registers one to have it drawn.
///
/// Time is in seconds from the first plotted record. A channel with more samples than the panel has pixels is drawn
/// as each pixel column's first, lowest, highest and last value, so a million samples make a small file that looks
/// the same.
public struct TracePlot: Sendable {
    /// A place to mark on the route, with the radius within which a walker counts as arrived.
    public struct Place: Sendable, Hashable {
        /// The label.
        public var name: String
        /// Where it is.
        public var coordinate: GeoCoordinate
        /// The arrival circle's radius in metres, or 0 for none.
        public var radius: Double

        /// A place.
        public init(name: String, coordinate: GeoCoordinate, radius: Double) {
            self.name = name
            self.coordinate = coordinate
            self.radius = radius
        }
    }

    /// What to draw.
    public struct Options: Sendable {
        /// Only these channel ids, or all.
        public var channels: Set<String>?
        /// The first second to draw, from the trace's first record.
        public var from: Double?
        /// The last second to draw, from the trace's first record.
        public var to: Double?
        /// Places to mark on the route.
        public var places: [Place] = []
        /// The picture's width in pixels.
        public var width: Double = 1000

        /// Every channel, the whole trace.
        public init() {}
    }

    /// What to draw.
    public var options: Options

    /// A plot with `options`.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// The panels a trace gives, by title, in drawing order.
    public func panels(for trace: Trace) -> [String] {
        layout(trace).map(\.title)
    }

    /// The SVG document.
    public func svg(for trace: Trace, title: String) -> String {
        let panels = layout(trace)
        var svg = SVG()
        var y = 40.0
        svg.text(options.width / 2, 24, title, size: 15, anchor: "middle")
        if panels.isEmpty {
            svg.text(options.width / 2, 70, "nothing to plot: no channel has records in the range", size: 13, anchor: "middle", fill: "#a00")
            y = 100
        }
        for panel in panels {
            svg.group(id: panel.id) { svg in panel.draw(&svg, y, options.width) }
            y += panel.height + 24
        }
        return svg.document(width: options.width, height: y + 10, title: title)
    }

    // MARK: Layout

    private struct Panel {
        let id: String
        let title: String
        let height: Double
        let draw: (inout SVG, Double, Double) -> Void
    }

    /// The records to draw per channel, with times in seconds from the first of them.
    private struct Selection {
        var channels: [(index: Int, channel: TraceChannel, records: [(time: Double, reading: Reading)])] = []
    }

    private func select(_ trace: Trace) -> Selection {
        let wanted = trace.header.channels.indices.filter { options.channels?.contains(trace.header.channels[$0].id) ?? true }
        let start = trace.records.filter { wanted.contains($0.channel) }.map(\.timestamp.nanoseconds).min() ?? 0
        var byChannel: [Int: [(time: Double, reading: Reading)]] = [:]
        for record in trace.records where wanted.contains(record.channel) {
            let time = (Double(record.timestamp.nanoseconds) - Double(start)) / 1e9  // no Int64 overflow across a wide span
            if let from = options.from, time < from { continue }
            if let to = options.to, time > to { continue }
            byChannel[record.channel, default: []].append((time, record.reading))
        }
        var selection = Selection()
        for index in wanted {
            guard let records = byChannel[index], !records.isEmpty else { continue }
            selection.channels.append((index, trace.header.channels[index], records))
        }
        return selection
    }

    private func layout(_ trace: Trace) -> [Panel] {
        let selection = select(trace)
        let times = selection.channels.map { $0.records.lazy.map(\.time) }
        let timeRange = (options.from ?? (times.compactMap { $0.min() }.min() ?? 0), options.to ?? (times.compactMap { $0.max() }.max() ?? 1))
        var panels: [Panel] = []

        // The route.
        let locations = selection.channels.filter { $0.channel.kind == .location }
        let events = selection.channels.filter { $0.channel.kind == .app }
        if !locations.isEmpty {
            panels.append(Panel(id: "route", title: "route", height: 440) { svg, y, width in
                Self.drawRoute(&svg, y: y, width: width, locations: locations.map { ($0.channel.id, $0.records) },
                               events: events.flatMap(\.records), places: options.places)
            })
        }
        // Series panels (motion and numbers, then expressions), with the attitude panels between them.
        var seriesPanels: [(rank: Int, panel: Panel)] = []
        for entry in selection.channels {
            guard let plot = KindPlot.plot(for: entry.channel.kind).series else { continue }
            let names = plot.names.isEmpty ? [entry.channel.id] : plot.names
            var points = Array(repeating: [(Double, Double)](), count: names.count)
            for record in entry.records {
                guard let values = plot.values(record.reading), values.count == names.count else { continue }
                for (line, value) in values.enumerated() { points[line].append((record.time, value)) }
            }
            guard points.contains(where: { !$0.isEmpty }) else { continue }
            let series = names.indices.map { Series(name: names[$0], color: Self.palette[$0 % Self.palette.count], points: points[$0]) }
            let id = entry.channel.id, kind = entry.channel.kind.rawValue
            let units = plot.units ?? entry.channel.units ?? entry.channel.kind.units ?? ""
            let panel: Panel
            if let subject = plot.subject {
                panel = Panel(id: "\(kind)-\(id)", title: "\(id) (\(subject))", height: plot.height) { svg, y, width in
                    Self.drawSeries(&svg, y: y, width: width, title: "\(id): \(subject)", units: units,
                                    time: timeRange, series: series, fixed: plot.fixed.map { ($0.lowerBound, $0.upperBound) })
                }
            } else {
                let title = plot.names.isEmpty ? "\(id) (\(kind))" : "\(id) (\(kind), \(units))"
                panel = Panel(id: "channel-\(id)", title: title, height: plot.height) { svg, y, width in
                    Self.drawSeries(&svg, y: y, width: width, title: "\(id): \(kind)", units: units, time: timeRange, series: series,
                                    fixed: plot.fixed.map { ($0.lowerBound, $0.upperBound) })
                }
            }
            seriesPanels.append((plot.rank, panel))
        }
        panels += seriesPanels.filter { $0.rank < 1 }.map(\.panel)
        let attitudes = selection.channels.filter { $0.channel.kind == .attitude }
        if !attitudes.isEmpty {
            for (part, name) in [(0, "heading"), (1, "elevation")] {
                let series = attitudes.enumerated().map { number, entry in
                    Series(name: entry.channel.id, color: Self.palette[number % Self.palette.count], points: entry.records.compactMap { record in
                        guard let sample = AttitudeSample(record.reading) else { return nil }
                        return (record.time, part == 0 ? sample.heading() : sample.elevation())
                    })
                }
                panels.append(Panel(id: "attitude-\(name)", title: "attitude \(name) (°)", height: 170) { svg, y, width in
                    Self.drawSeries(&svg, y: y, width: width, title: "attitude: \(name) of the back camera", units: "°", time: timeRange, series: series,
                                    wrapsAt: part == 0 ? 360 : nil)
                })
            }
        }
        panels += seriesPanels.filter { $0.rank >= 1 }.sorted { $0.rank < $1.rank }.map(\.panel)
        // Lanes.
        let lanes = selection.channels.compactMap { entry in
            KindPlot.plot(for: entry.channel.kind).lane.map { lane in (entry.channel, entry.records.map { ($0.time, lane($0.reading)) }) }
        }
        if !lanes.isEmpty {
            let height = 30 + Double(lanes.count) * 44
            panels.append(Panel(id: "lanes", title: "events", height: height) { svg, y, width in
                Self.drawLanes(&svg, y: y, width: width, time: timeRange, lanes: lanes)
            })
        }
        return panels
    }

    // MARK: Drawing

    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
    private static let left = 70.0, right = 150.0

    struct Series {
        var name: String
        var color: String
        var points: [(Double, Double)]
    }

    /// `points` thinned to each pixel column's first, lowest, highest and last point.
    static func decimate(_ points: [(Double, Double)], scale: Scale, columns: Int) -> [(Double, Double)] {
        guard points.count > 4 * columns else { return points }
        var out: [(Double, Double)] = []
        var column = Int.min
        var bucket: [(Double, Double)] = []
        func flush() {
            guard let first = bucket.first, let last = bucket.last else { return }
            let low = bucket.min { $0.1 < $1.1 }!, high = bucket.max { $0.1 < $1.1 }!
            for point in [first, low, high, last].sorted(by: { $0.0 < $1.0 }) where out.last.map({ $0 != point }) ?? true { out.append(point) }
        }
        for point in points {
            let x = scale(point.0)
            let at = x.isFinite ? Int(max(-1e9, min(1e9, x))) : 0
            if at != column { flush(); bucket.removeAll(keepingCapacity: true); column = at }
            bucket.append(point)
        }
        flush()
        return out
    }

    private static func frame(_ svg: inout SVG, x: Double, y: Double, width: Double, height: Double, title: String) {
        svg.rect(x, y, width, height, fill: "#fafafa", stroke: "#999")
        svg.text(x, y - 6, title, size: 12)
    }

    private static func timeAxis(_ svg: inout SVG, scale: Scale, y: Double, top: Double) {
        let ticks = scale.ticks(8)
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : 1
        for tick in ticks {
            let x = scale(tick)
            svg.line(x, top, x, y, stroke: "#e4e4e4")
            svg.text(x, y + 13, Scale.label(tick, step: step), size: 10, anchor: "middle")
        }
        svg.text(scale.range.1, y + 26, "time (s)", size: 10, anchor: "end")
    }

    private static func valueAxis(_ svg: inout SVG, scale: Scale, x: Double, right: Double, units: String) {
        let ticks = scale.ticks(4)
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : 1
        for tick in ticks {
            let y = scale(tick)
            svg.line(x, y, right, y, stroke: "#e4e4e4")
            svg.text(x - 4, y + 3, Scale.label(tick, step: step), size: 10, anchor: "end")
        }
        svg.text(x - 52, (scale.range.0 + scale.range.1) / 2, units, size: 10, anchor: "middle", rotate: true)
    }

    private static func legend(_ svg: inout SVG, x: Double, y: Double, series: [Series]) {
        for (number, item) in series.enumerated() {
            let rowY = y + 14 * Double(number)
            svg.line(x, rowY - 4, x + 16, rowY - 4, stroke: item.color, width: 2)
            svg.text(x + 20, rowY, item.name, size: 10)
        }
    }

    static func drawSeries(_ svg: inout SVG, y: Double, width: Double, title: String, units: String, time: (Double, Double),
                           series: [Series], fixed: (Double, Double)? = nil, wrapsAt: Double? = nil) {
        let height = 120.0
        let plotWidth = width - left - right
        frame(&svg, x: left, y: y, width: plotWidth, height: height, title: title)
        let values = series.flatMap { $0.points.map(\.1) }.filter(\.isFinite)
        let low = fixed?.0 ?? (values.min() ?? 0), high = fixed?.1 ?? (values.max() ?? 1)
        let margin = fixed == nil ? (high - low) * 0.05 : 0
        let valueScale = Scale(domain: (low - margin, high + margin), range: (y + height, y))
        let timeScale = Scale(domain: time, range: (left, left + plotWidth))
        valueAxis(&svg, scale: valueScale, x: left, right: left + plotWidth, units: units)
        timeAxis(&svg, scale: timeScale, y: y + height, top: y)
        for item in series {
            // A wrapping quantity (heading) is drawn in pieces, not across the wrap.
            var pieces: [[(Double, Double)]] = [[]]
            for point in decimate(item.points, scale: timeScale, columns: Int(plotWidth)) {
                if let wrapsAt, let last = pieces[pieces.count - 1].last, abs(point.1 - last.1) > wrapsAt / 2 { pieces.append([]) }
                pieces[pieces.count - 1].append((timeScale(point.0), valueScale(point.1)))
            }
            for piece in pieces {
                if piece.count == 1, let point = piece.first { svg.circle(point.0, point.1, 1.5, fill: item.color) } else { svg.polyline(piece, stroke: item.color, width: 1.2) }
            }
        }
        legend(&svg, x: left + plotWidth + 12, y: y + 12, series: series)
    }

    static func drawLanes(_ svg: inout SVG, y: Double, width: Double, time: (Double, Double), lanes: [(TraceChannel, [(time: Double, mark: KindPlot.LaneMark?)])]) {
        let plotWidth = width - left - right
        let height = 10 + Double(lanes.count) * 44
        frame(&svg, x: left, y: y, width: plotWidth, height: height, title: "events: app, speaker and input")
        let timeScale = Scale(domain: time, range: (left, left + plotWidth))
        timeAxis(&svg, scale: timeScale, y: y + height, top: y)
        for (number, (channel, records)) in lanes.enumerated() {
            let laneY = y + 10 + Double(number) * 44
            svg.text(left + plotWidth + 8, laneY + 20, "\(channel.id) (\(channel.kind.rawValue))", size: 10)
            var open: (time: Double, name: String)?
            var labelled = -Double.infinity
            for record in records {
                let x = timeScale(record.time)
                switch record.mark {
                case .event(let name):
                    svg.line(x, laneY + 4, x, laneY + 34, stroke: palette[0])
                    if x - labelled > 60 {
                        svg.text(x + 2, laneY + 14, name, size: 9, fill: palette[0])
                        labelled = x
                    }
                case .start(let name):
                    open = (record.time, name)
                case .end:
                    if let started = open {
                        let startX = timeScale(started.time)
                        svg.rect(startX, laneY + 8, max(2, x - startX), 22, fill: palette[2], opacity: 0.5)
                        svg.text(startX + 2, laneY + 24, started.name, size: 9)
                        open = nil
                    }
                case .key(let pressed):
                    svg.line(x, laneY + (pressed ? 4 : 20), x, laneY + 34, stroke: palette[3])
                case .pointer(let pressed):
                    svg.circle(x, laneY + 20, pressed ? 3 : 1.5, fill: palette[4])
                case nil:
                    break
                }
            }
            if let started = open {
                let startX = timeScale(started.time)
                svg.rect(startX, laneY + 8, max(2, left + plotWidth - startX), 22, fill: palette[2], opacity: 0.5)
                svg.text(startX + 2, laneY + 24, started.name, size: 9)
            }
        }
    }

    static func drawRoute(_ svg: inout SVG, y: Double, width: Double, locations: [(String, [(time: Double, reading: Reading)])],
                          events: [(time: Double, reading: Reading)], places: [Place]) {
        let height = 400.0
        let plotWidth = width - left - right
        // Metres east and north of the first fix, on the local tangent plane.
        let fixes = locations.map { id, records in
            (id, records.compactMap { record -> (time: Double, fix: LocationFix)? in
                guard let fix = LocationFix(record.reading) else { return nil }
                return (record.time, fix)
            })
        }
        guard let origin = fixes.flatMap(\.1).compactMap(\.fix.coordinate).first else {
            frame(&svg, x: left, y: y, width: plotWidth, height: height, title: "route: no fix with a position")
            return
        }
        let metresPerDegree = 111_195.0
        let cosine = cos(origin.latitude * .pi / 180)
        func metres(_ point: GeoCoordinate) -> (Double, Double) {
            var dLon = point.longitude - origin.longitude
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            return (dLon * cosine * metresPerDegree, (point.latitude - origin.latitude) * metresPerDegree)
        }
        // The map fits the route; places off it are left out rather than shrinking it.
        var xs: [Double] = [], ys: [Double] = []
        for point in fixes.flatMap(\.1).compactMap(\.fix.coordinate) {
            let (east, north) = metres(point)
            xs.append(east)
            ys.append(north)
        }
        // Equal metres on both axes: the larger span decides.
        let spanX = max(1, (xs.max()! - xs.min()!) * 1.08), spanY = max(1, (ys.max()! - ys.min()!) * 1.08)
        let perPixel = max(spanX / plotWidth, spanY / height)
        let centre = ((xs.max()! + xs.min()!) / 2, (ys.max()! + ys.min()!) / 2)
        let xScale = Scale(domain: (centre.0 - perPixel * plotWidth / 2, centre.0 + perPixel * plotWidth / 2), range: (left, left + plotWidth))
        let yScale = Scale(domain: (centre.1 - perPixel * height / 2, centre.1 + perPixel * height / 2), range: (y + height, y))
        frame(&svg, x: left, y: y, width: plotWidth, height: height, title: "route: metres east and north of the first fix")
        let xTicks = xScale.ticks(8), yTicks = yScale.ticks(6)
        for tick in xTicks {
            svg.line(xScale(tick), y, xScale(tick), y + height, stroke: "#e4e4e4")
            svg.text(xScale(tick), y + height + 13, Scale.label(tick, step: xTicks.count > 1 ? xTicks[1] - xTicks[0] : 1), size: 10, anchor: "middle")
        }
        for tick in yTicks {
            svg.line(left, yScale(tick), left + plotWidth, yScale(tick), stroke: "#e4e4e4")
            svg.text(left - 4, yScale(tick) + 3, Scale.label(tick, step: yTicks.count > 1 ? yTicks[1] - yTicks[0] : 1), size: 10, anchor: "end")
        }
        svg.text(left + plotWidth, y + height + 26, "east (m)", size: 10, anchor: "end")
        svg.text(left - 52, y + height / 2, "north (m)", size: 10, anchor: "middle", rotate: true)
        for place in places {
            let (east, north) = metres(place.coordinate)
            guard xScale.domain.0...xScale.domain.1 ~= east, yScale.domain.0...yScale.domain.1 ~= north else { continue }
            if place.radius > 0 {
                svg.circle(xScale(east), yScale(north), place.radius / perPixel, fill: "#2ca02c", stroke: "#2ca02c", opacity: 0.12)
            }
            svg.circle(xScale(east), yScale(north), 2.5, fill: "#2ca02c")
            svg.text(xScale(east) + 4, yScale(north) - 4, place.name, size: 9, fill: "#1b6e1b")
        }
        var series: [Series] = []
        var dropouts = 0
        for (number, (id, track)) in fixes.enumerated() {
            let color = palette[number % palette.count]
            var piece: [(Double, Double)] = []
            var lastGood: (Double, Double)?
            var lost = false
            for entry in track {
                if let point = entry.fix.coordinate {
                    let (east, north) = metres(point)
                    lastGood = (xScale(east), yScale(north))
                    piece.append(lastGood!)
                    lost = false
                } else if !lost {
                    // A dropout: the line stops, and a cross marks where the fix was lost.
                    lost = true
                    svg.polyline(piece, stroke: color, width: 2)
                    piece = []
                    if let (x, y) = lastGood {
                        svg.line(x - 4, y - 4, x + 4, y + 4, stroke: "#d00", width: 2)
                        svg.line(x - 4, y + 4, x + 4, y - 4, stroke: "#d00", width: 2)
                    }
                    dropouts += 1
                }
            }
            svg.polyline(piece, stroke: color, width: 2)
            if let first = track.compactMap(\.fix.coordinate).first {
                let (east, north) = metres(first)
                svg.circle(xScale(east), yScale(north), 4, fill: "white", stroke: color)
            }
            series.append(Series(name: id, color: color, points: []))
        }
        // App events, placed where the first location channel was at their time.
        if let track = fixes.first?.1.filter({ $0.fix.coordinate != nil }), !track.isEmpty {
            for event in events {
                guard let appEvent = AppEvent(event.reading) else { continue }
                let index = track.lastIndex { $0.time <= event.time } ?? 0
                let (east, north) = metres(track[index].fix.coordinate!)
                guard appEvent.name.contains("arriv") || appEvent.name.contains("reached") else { continue }
                svg.rect(xScale(east) - 3, yScale(north) - 3, 6, 6, fill: "#ff7f0e")
            }
        }
        legend(&svg, x: left + plotWidth + 12, y: y + 12, series: series)
        svg.text(left + plotWidth + 12, y + 20 + 14 * Double(series.count), "× fix lost (\(dropouts)×)", size: 10, fill: "#d00")
        svg.text(left + plotWidth + 12, y + 34 + 14 * Double(series.count), "■ arrival event", size: 10, fill: "#b35900")
    }
}
