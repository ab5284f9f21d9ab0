import HALTestDoubles
import HAL
import Testing

/// The order in which sleepers woke.
private actor WakeLog {
    var names: [Int] = []
    func append(_ name: Int) { names.append(name) }
}

@Suite struct VirtualClockTests {
    @Test func sleepersWakeInDeadlineOrderWhenTheClockReachesThem() async throws {
        let clock = VirtualClock(start: ts(0))
        let woken = WakeLog()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, deadline) in [(3, 300), (1, 100), (2, 200)] {
                group.addTask {
                    try await clock.sleep(until: ts(Int64(deadline)), tolerance: nil)
                    await woken.append(name)
                }
            }
            while clock.sleeperCount < 3 { await Task.yield() }
            #expect(clock.nextDeadline == ts(100))
            clock.advance(to: ts(150))
            while await woken.names.isEmpty { await Task.yield() }
            #expect(await woken.names == [1])
            #expect(clock.sleeperCount == 2)
            clock.advance(by: .nanoseconds(1_000))
            try await group.waitForAll()
        }
        #expect(Set(await woken.names) == [1, 2, 3])
        #expect(clock.now == ts(1_150))
    }

    @Test func timeNeverRunsBackwards() {
        let clock = VirtualClock(start: ts(500))
        clock.advance(to: ts(100))
        #expect(clock.now == ts(500))
    }

    @Test func aPastDeadlineReturnsAtOnce() async throws {
        let clock = VirtualClock(start: ts(500))
        try await clock.sleep(until: ts(400), tolerance: nil)
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingASleeperRemovesIt() async throws {
        let clock = VirtualClock()
        let task = Task { try await clock.sleep(until: ts(1_000_000), tolerance: nil) }
        while clock.sleeperCount == 0 { await Task.yield() }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func anAdvancingClockJumpsToEachDeadline() async throws {
        let clock = VirtualClock(advancesOnSleep: true)
        try await clock.sleep(for: .seconds(30))
        #expect(clock.now == ts(30_000_000_000))
    }
}
