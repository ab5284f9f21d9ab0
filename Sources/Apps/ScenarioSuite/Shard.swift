/// One of N parts of a suite, as CI systems split a job across runners.
///
/// The parts are stable and balanced: the suite's scenarios, sorted by path, are dealt out in turn, so part K of N
/// holds the scenarios at places K-1, K-1+N, K-1+2N… Every scenario is in exactly one part, and the parts differ
/// in size by one at most; scenarios of one app, which sit together in a sorted suite, spread over every part.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// Which part, from 1.
    public let index: Int
    /// How many parts.
    public let count: Int

    /// Part `index` of `count`.
    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// `K/N`, as `--shard` takes it.
    public init?(_ text: String) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    /// The shard a CI system's environment names, if any: `HAL_TEST_SHARD=K/N` (set it from a GitHub Actions
    /// matrix), or GitLab's `parallel:` variables `CI_NODE_INDEX` (from 1) and `CI_NODE_TOTAL`.
    public static func fromEnvironment(_ environment: [String: String]) throws(ShardError) -> Shard? {
        if let text = environment["HAL_TEST_SHARD"] {
            guard let shard = Shard(text) else { throw ShardError("HAL_TEST_SHARD=\(text) is not K/N with 1 ≤ K ≤ N") }
            return shard
        }
        if let index = environment["CI_NODE_INDEX"], let total = environment["CI_NODE_TOTAL"] {
            guard let shard = Shard(index: Int(index) ?? 0, count: Int(total) ?? 0) else {
                throw ShardError("CI_NODE_INDEX=\(index) and CI_NODE_TOTAL=\(total) do not name a part (1 ≤ index ≤ total)")
            }
            return shard
        }
        return nil
    }

    /// This part of `scenarios`, which must be the whole suite in one order (``ScenarioDiscovery`` sorts it).
    public func select<Item>(_ scenarios: [Item]) -> [Item] {
        scenarios.enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }
}

/// A shard that cannot be worked out.
public struct ShardError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
