import Foundation
import HAL
import Plotting
import Synthesis
import TraceFormat
import TestSupport
import Testing

/// `hal plot` and `TracePlot`: each SVG is read by Python's XML parser and rendered to PNG by librsvg's
/// rsvg-convert (Fixtures/check_svg.py), as a viewer would.
@Suite struct PlotTests {
    static let checker = packageRoot + "/Tests/HALCommandTests/Fixtures/check_svg.py"

    /// The parsed SVG's facts and its PNG's.
    static func check(_ svg: String) async throws -> [String: Any] {
        let run = try await runProcess("/usr/bin/env", ["python3", checker, svg, svg + ".png"], timeout: 120)
        try #require(run.status == 0, "check_svg.py: \(run.output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
    }

    static func group(_ facts: [String: Any], _ id: String) -> [String: Int]? {
        (facts["groups"] as? [String: [String: Int]])?[id]
    }

    static func expectRendered(_ facts: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(facts["rsvg"] as? Int == 0, "\(facts["rsvg_error"] ?? "")", sourceLocation: sourceLocation)
        let png = facts["png"] as? [String: Any]
        // The PNG is the SVG's size, and not blank: lines, text and fills of several shades.
        #expect(png?["width"] as? Double == facts["width"] as? Double, sourceLocation: sourceLocation)
        #expect(png?["height"] as? Double == facts["height"] as? Double, sourceLocation: sourceLocation)
        #expect((png?["colours"] as? Int ?? 0) > 20, sourceLocation: sourceLocation)
        let inked = png?["not_white"] as? Double ?? 0
        #expect(inked > 0.01 && inked < 0.6, "\(inked) of the pixels are not white", sourceLocation: sourceLocation)
    }

    /// A campus walk through the explorer, recorded, then plotted with the walk's places.
    @Test func aRecordedWalkGivesARouteWithPlacesDropoutsAndArrivals() async throws {
        let folder = try makeScratchFolder()
        let recording = folder + "/walk.jsonl"
        let run = try await runProcess(halExecutable, ["run", "explorer", packageRoot + "/traces/ubc/explorer.run.json", "--record", recording], timeout: 300)
        try #require(run.status == 0, "\(run.output)")
        let svg = folder + "/walk.svg"
        let plot = try await runProcess(
            halExecutable, ["plot", recording, "--walk", packageRoot + "/traces/ubc/main-mall-tour.walk.json", "-o", svg], timeout: 120)
        #expect(plot.status == 0, "\(plot.output)")
        #expect(plot.output.contains("walk.svg: route"))
        // The progress line: the share of the file read, then the drawing.
        #expect(plot.output.contains("plotting: reading 100%") && plot.output.contains("plotting: drawing "), "\(plot.output)")
        let facts = try await Self.check(svg)
        Self.expectRendered(facts)
        #expect(facts["width"] as? Double == 1000)
        let route = try #require(Self.group(facts, "route"))
        #expect((route["points"] ?? 0) > 500)  // the walk's fixes, in pieces between dropouts
        #expect((route["polyline"] ?? 0) >= 2)  // the walk loses its fix at least once
        let texts = facts["texts"] as? [String] ?? []
        #expect(texts.contains("east (m)") && texts.contains("north (m)") && texts.contains("time (s)"))
        #expect(texts.contains("Ladner Clock Tower") || texts.contains { $0.contains("Clock Tower") })
        #expect(texts.contains { $0.hasPrefix("× fix lost (") && $0 != "× fix lost (0×)" })
        // One orange marker per arrival event of the recording.
        let trace = try Trace.load(path: recording)
        let arrivals = trace.records.filter {
            if case .appEvent(let event) = $0.reading { event.name.contains("arriv") || event.name.contains("reached") } else { false }
        }.count
        #expect(arrivals > 3 && facts["arrival_markers"] as? Int == arrivals)
        #expect(Self.group(facts, "lanes") != nil)
        #expect(texts.contains("explorer.started"))
    }

    /// The shipped look-around: motion panels with units, and the pointer's lane; a time range and channel filter.
    @Test func motionChannelsArePlottedWithUnitsAndTheRangeAndChannelsCanBeChosen() async throws {
        let folder = try makeScratchFolder()
        let svg = folder + "/look.svg"
        let trace = packageRoot + "/traces/lobby-lookaround.jsonl"
        let plot = try await runProcess(halExecutable, ["plot", trace, "-o", svg], timeout: 120)
        #expect(plot.status == 0, "\(plot.output)")
        let facts = try await Self.check(svg)
        Self.expectRendered(facts)
        let loaded = try Trace.load(path: trace)
        for channel in loaded.header.channels where channel.kind == .gyroscope || channel.kind == .accelerometer {
            #expect(Self.group(facts, "channel-\(channel.id)") != nil, "no panel for \(channel.id)")
        }
        let texts = facts["texts"] as? [String] ?? []
        #expect(texts.contains("rad/s") && texts.contains("m/s^2") && texts.contains("x") && texts.contains("z"))

        let narrow = folder + "/gyro.svg"
        let gyro = try #require(loaded.header.channels.first { $0.kind == .gyroscope }).id
        let filtered = try await runProcess(halExecutable, ["plot", trace, "--channels", gyro, "--from", "1", "--to", "3", "-o", narrow], timeout: 120)
        #expect(filtered.status == 0, "\(filtered.output)")
        let narrowFacts = try await Self.check(narrow)
        #expect((narrowFacts["groups"] as? [String: Any])?.keys.sorted() == ["channel-\(gyro)"])
        // Fewer points: two seconds of the channel, not all of it.
        #expect((Self.group(narrowFacts, "channel-\(gyro)")?["points"] ?? 0) < (Self.group(facts, "channel-\(gyro)")?["points"] ?? 0))
        let bad = try await runProcess(halExecutable, ["plot", trace, "--channels", "nope", "-o", narrow], timeout: 60)
        #expect(bad.status != 0 && bad.output.contains("no channel nope in the trace"))
    }

    /// Ground truth and a fused estimate lie in the same attitude panels; expression scores get a panel of seven.
    @Test func attitudeChannelsShareTheirPanelsAndExpressionScoresAreSeven() async throws {
        var records: [TraceRecord] = []
        for step in 0..<200 {
            let time = Timestamp(nanoseconds: Int64(step) * 10_000_000)
            let angle = Double(step) * 0.01
            let truth = Quaternion(axis: Vector3(x: 0, y: 0, z: 1), angle: angle)
            let fused = Quaternion(axis: Vector3(x: 0, y: 0, z: 1), angle: angle + 0.02)
            records.append(TraceRecord(channel: 0, reading: .attitude(AttitudeSample(timestamp: time, quaternion: truth, frame: .enu))))
            records.append(TraceRecord(channel: 1, reading: .attitude(AttitudeSample(timestamp: time, quaternion: fused, frame: .enu))))
        }
        let timeline = try Trace.loadInput(path: packageRoot + "/traces/trainer/facial-fun.expressions.json")
        let expressionChannel = TraceChannel(id: "face", kind: .expression, source: "sim:face")
        records += timeline.records.map { TraceRecord(channel: 2, reading: $0.reading) }
        let trace = Trace(header: TraceHeader(channels: [
            TraceChannel(id: "truth", kind: .attitude, source: "sim:truth", frame: .enu),
            TraceChannel(id: "fused", kind: .attitude, source: "fusion", frame: .enu), expressionChannel,
        ]), records: records)
        let plot = TracePlot()
        #expect(plot.panels(for: trace) == ["attitude heading (°)", "attitude elevation (°)", "face (expression scores)"])
        let svg = try makeScratchFolder() + "/attitude.svg"
        try Data(plot.svg(for: trace, title: "truth and fused").utf8).write(to: URL(fileURLWithPath: svg))
        let facts = try await Self.check(svg)
        Self.expectRendered(facts)
        #expect(facts["title"] as? String == "truth and fused")
        let texts = facts["texts"] as? [String] ?? []
        #expect(texts.contains("truth") && texts.contains("fused"))
        #expect(Expression.allCases.allSatisfy { texts.contains($0.rawValue) })
        #expect((Self.group(facts, "attitude-heading")?["polyline"] ?? 0) >= 2)
        #expect((Self.group(facts, "expression-face")?["polyline"] ?? 0) == 7)
    }

    /// A kind the package does not know is drawn once its `KindPlot` is registered, and not before: the plot asks the
    /// kind, with no switch of its own.
    @Test func aUsersKindIsDrawnAsItsRegisteredPlotSays() {
        struct Gust: KindValue {
            var timestamp: Timestamp
            var speed: Double
            var kind: DeviceKind { DeviceKind("test-plot-gust") }
        }
        let kind = DeviceKind("test-plot-gust")
        let records = (0..<50).map { step in
            TraceRecord(channel: 0, reading: Gust(timestamp: Timestamp(nanoseconds: Int64(step) * 100_000_000), speed: Double(step % 7)).reading)
        }
        let trace = Trace(header: TraceHeader(channels: [TraceChannel(id: "gusts", kind: kind, source: "test:gusts", units: "m/s")]), records: records)
        #expect(TracePlot().panels(for: trace) == [])
        KindPlot.register(KindPlot(
            series: .init(names: ["speed"]) { Gust($0).map { [$0.speed] } },
            lane: { reading in Gust(reading).flatMap { $0.speed >= 6 ? .event("gust") : nil } }), for: kind)
        #expect(TracePlot().panels(for: trace) == ["gusts (test-plot-gust, m/s)", "events"])
        let svg = TracePlot().svg(for: trace, title: "gusts")
        #expect(svg.contains(">gust<") && svg.contains(">speed<"))
    }

    /// Odd input still gives a picture XML parsers take: a flat series near 1e16, a value of 1e300, and event names
    /// with a control character (written as U+FFFD) and a combining mark after `<`.
    @Test func extremeValuesAndOddTextStillMakeAValidPicture() async throws {
        var records: [TraceRecord] = []
        for step in 0..<50 {
            let time = Timestamp(nanoseconds: Int64(step) * 10_000_000)
            let value = Vector3(x: 1e16, y: step == 10 ? 1e300 : 0, z: -1e16)
            records.append(TraceRecord(channel: 0, reading: .motion(MotionSample(timestamp: time, quantity: .angularVelocity, value: value))))
        }
        records.append(TraceRecord(channel: 1, reading: .appEvent(AppEvent(timestamp: .zero, name: "odd\u{1}<\u{338}&\u{301}name"))))
        let trace = Trace(header: TraceHeader(channels: [
            TraceChannel(id: "gyro", kind: .gyroscope, source: "sim:gyro"), TraceChannel(id: "app", kind: .app, source: "app"),
        ]), records: records)
        let svg = try makeScratchFolder() + "/odd.svg"
        try Data(TracePlot().svg(for: trace, title: "odd <input>").utf8).write(to: URL(fileURLWithPath: svg))
        let facts = try await Self.check(svg)
        Self.expectRendered(facts)
        #expect((facts["texts"] as? [String])?.contains("odd\u{FFFD}<\u{338}&\u{301}name") == true)
        #expect(facts["title"] as? String == "odd <input>")
    }

    /// A million gyroscope samples make a file of a size a viewer opens: each pixel column's extremes, not every sample.
    @Test func aLargeTraceIsThinnedToThePixelsItCovers() throws {
        let count = 1_000_000
        var records: [TraceRecord] = []
        records.reserveCapacity(count)
        for step in 0..<count {
            let time = Timestamp(nanoseconds: Int64(step) * 1_000_000)
            let value = Vector3(x: sin(Double(step) * 0.001), y: Double(step % 1000) / 1000, z: step == 500_000 ? 50 : 0)
            records.append(TraceRecord(channel: 0, reading: .motion(MotionSample(timestamp: time, quantity: .angularVelocity, value: value))))
        }
        let trace = Trace(header: TraceHeader(channels: [TraceChannel(id: "gyro", kind: .gyroscope, source: "sim:gyro")]), records: records)
        let svg = TracePlot().svg(for: trace, title: "a million samples")
        #expect(svg.utf8.count < 600_000)
        // The value axis still spans the one spike (0 to 50 rad/s, ticks every 20).
        #expect(svg.contains(">40<") && svg.contains(">20<"))
    }
}
