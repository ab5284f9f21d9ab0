/// Runs `work` for each of `0..<count`, at most `jobs` at once, and hands each output to `finished` as it finishes, in
/// finishing order. Once the calling task is cancelled no more work is started; what is running is awaited. What a
/// suite, an exploration and its shrinks share.
public func forEachConcurrently<Output: Sendable>(
    _ count: Int, jobs: Int, _ work: @escaping @Sendable (Int) async -> Output, finished: (Int, Output) -> Void
) async {
    await withTaskGroup(of: (Int, Output).self) { group in
        var next = 0
        func startNext() {
            guard next < count, !Task.isCancelled else { return }
            let index = next
            next += 1
            group.addTask { (index, await work(index)) }
        }
        for _ in 0..<max(1, jobs) { startNext() }
        while let (index, output) = await group.next() {
            finished(index, output)
            startNext()
        }
    }
}
