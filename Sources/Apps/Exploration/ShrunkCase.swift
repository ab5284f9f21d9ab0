public import AppCore
import FoundationEssentials
import HAL
public import Replay
public import TraceFormat
public import ScenarioSuite

/// A minimal failing case: the scenario, fault plan and cut trace a shrink ended with, to commit as a regression
/// case.
public struct ShrunkCase: Sendable {
    /// The variant it was shrunk from.
    public var variant: Variant
    /// The expectation that fails, as in the variant.
    public var expectation: EventExpectation
    /// Its FAIL line in the minimal case.
    public var failure: String
    /// The minimal scenario's expectations, end and commands; the rest of its file is the variant's scenario's.
    public var parts: ScenarioParts
    /// The minimal fault plan.
    public var plan: FaultPlan
    /// The cut inputs.
    public var trace: Trace
    /// How many runs the shrink took, the variant's own included.
    public var runs: Int
    /// The variant's size.
    public var before: Size
    /// The minimal case's size.
    public var after: Size
    /// The scenario file of the variant's form with `parts`, its inputs and faults named as given, for a folder.
    let encode: @Sendable (_ parts: ScenarioParts, _ folder: String, _ inputs: String, _ faults: String) throws -> [UInt8]

    /// The files ``write(into:name:)`` wrote.
    public struct Files: Sendable, Hashable {
        /// `NAME.run.json`: the scenario, which `hal test` runs.
        public var scenario: String
        /// `NAME.faults.json`.
        public var faults: String
        /// `NAME.jsonl`: the cut inputs as one trace.
        public var trace: String
    }

    /// Writes the case into `folder` as `NAME.run.json` (of the variant's scenario's form: an app's or a program's,
    /// its other paths named relative to the folder), `NAME.faults.json` and `NAME.jsonl`. The same case gives the
    /// same bytes. A trace with frame files must be written in the folder of the trace it was cut from, beside its
    /// frames.
    @discardableResult
    public func write(into folder: String, name: String) throws -> Files {
        let files = Files(
            scenario: folder + "/" + name + ".run.json", faults: folder + "/" + name + ".faults.json", trace: folder + "/" + name + ".jsonl")
        var trace = trace
        trace.header.metadata["shrunkFrom"] = "\(variant.name) seed \(variant.runSeed)"
        // Frame files were resolved when the trace was read; the cut trace names them from its own folder.
        for index in trace.records.indices {
            guard case .frame(var frame) = trace.records[index].reading, case .file(let path) = frame.storage, path.hasPrefix("/") else { continue }
            frame.storage = .file(path: TracePath.relative(path, from: folder))
            trace.records[index].reading = .frame(frame)
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(encode(parts, folder, name + ".jsonl", name + ".faults.json")).write(to: URL(fileURLWithPath: files.scenario))
        try Data(WrittenJSON.file(plan)).write(to: URL(fileURLWithPath: files.faults))
        try Data(trace.encoded()).write(to: URL(fileURLWithPath: files.trace))
        return files
    }
}
