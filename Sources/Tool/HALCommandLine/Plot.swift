import ArgumentParser
import FoundationEssentials
import Plotting
import Synthesis
import TraceFormat

/// `hal plot TRACE -o FILE.svg`: the trace as a picture.
struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "plot", 
        abstract: "Draw a trace as SVG: the route, motion and attitude over time, expression scores, event lanes.",
        discussion: """
            Panels come from the trace's channels: a route map of location channels (metres east and north of the \
            first fix, lost fixes marked, arrival events placed), a time series per motion channel and for the \
            attitude channels together, the seven expression scores, and lanes of app events, speaker playback, keys \
            and pointer presses. Time is seconds from the first plotted record. docs/plots.md shows an example.
            """)

    @Argument(help: "The trace: .jsonl, or .mcap (a HAL trace, or a ROS 2 or Foxglove recording).")
    var trace: String

    @Option(name: [.short, .customLong("output")], help: "The SVG file to write.")
    var output: String

    @Option(help: "Only these channels, by id, comma-separated.", transform: { $0.split(separator: ",").map(String.init) })
    var channels: [String]?

    @Option(help: "The first second to draw, from the first record.")
    var from: Double?

    @Option(help: "The last second to draw, from the first record.")
    var to: Double?

    @Option(help: "A walk scenario (.walk.json) whose places to mark on the route.")
    var walk: String?

    @Option(help: "The arrival circles' radius around each place, metres.")
    var radius: Double = 25

    @Option(help: "The picture's width in pixels.")
    var width: Double = 1000

    @Flag(help: "No progress line.")
    var quiet = false

    func validate() throws {
        guard output.hasSuffix(".svg") else { throw ValidationError("--output must name a .svg file") }
        if let from, let to, !(from < to) { throw ValidationError("--from must be before --to") }
        if !(width >= 400 && width <= 20_000) { throw ValidationError("--width takes 400 to 20000 pixels") }
        if !(radius >= 0) { throw ValidationError("--radius takes metres, 0 or more") }
    }

    func run() throws {
        let progress = quiet ? nil : Progress(label: "plotting")
        let trace = try Trace.load(path: trace) { progress?.update("reading", fraction: $0) }
        if let truncation = trace.truncation { printError("\nwarning: \(truncation)") }
        if let channels {
            let unknown = channels.filter { trace.header.channelIndex(of: $0) == nil }
            if !unknown.isEmpty {
                throw ValidationError("no channel \(unknown.joined(separator: ", ")) in the trace (channels: \(trace.header.channels.map(\.id).joined(separator: ", ")))")
            }
        }
        var options = TracePlot.Options()
        options.channels = channels.map(Set.init)
        options.from = from
        options.to = to
        options.width = width
        if let walk {
            let (_, places) = try WalkScenario.load(path: walk)
            options.places = places.sorted { $0.key < $1.key }.map { id, place in
                TracePlot.Place(name: place.name ?? id, coordinate: place.coordinate, radius: radius)
            }
        }
        let plot = TracePlot(options: options)
        progress?.step("drawing \(trace.records.count) records")
        let svg = plot.svg(for: trace, title: "\(self.trace)")
        try FileWrites.write(Array(svg.utf8), to: output)
        progress?.step("done")
        progress?.finish()
        printError("\(output): \(plot.panels(for: trace).joined(separator: ", "))")
    }
}
