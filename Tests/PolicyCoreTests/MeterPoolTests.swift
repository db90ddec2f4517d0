import Testing
@testable import PolicyCore

/// Which meter meters which stream (docs/POLICY.md, "Ducking while
/// audible"): meters are made as streams need them, kept, and given to the
/// next stream once nothing is linked to them any more.
@Suite struct MeterPoolTests {
    /// One step: the streams wanted, the meters with links, and what the pool
    /// should ask of the adapter and assign.
    struct Step {
        var wanted: Set<UInt32>
        var linked: Set<Int> = []
        var changes: MeterPool.Changes
        var streams: [UInt32: Int]
    }

    static func run(_ steps: [Step]) {
        var pool = MeterPool()
        for (index, step) in steps.enumerated() {
            let changes = pool.assign(step.wanted, linked: step.linked)
            #expect(changes == step.changes, "step \(index + 1)")
            #expect(pool.streams == step.streams, "step \(index + 1)")
        }
    }

    @Test func aMeterIsMadeOnceAndGoesToTheNextStream() {
        Self.run([
            Step(wanted: [10], changes: .init(make: [0], restart: [0: 10]), streams: [10: 0]),
            Step(wanted: [10], linked: [0], changes: .init(), streams: [10: 0]),
            // The first ducker goes (its links with it), the next takes its meter.
            Step(wanted: [], changes: .init(), streams: [:]),
            Step(wanted: [11], changes: .init(restart: [0: 11]), streams: [11: 0]),
            // Two at once: a second meter.
            Step(wanted: [11, 12], linked: [0], changes: .init(make: [1], restart: [1: 12]), streams: [11: 0, 12: 1]),
        ])
    }

    /// A meter still linked to the stream it had (a stream that stopped
    /// ducking others but plays on, until its links are dropped) could hear
    /// that stream: a new stream gets another meter meanwhile.
    @Test func aMeterStillLinkedIsNotGivenAway() {
        Self.run([
            Step(wanted: [10], changes: .init(make: [0], restart: [0: 10]), streams: [10: 0]),
            Step(wanted: [11], linked: [0], changes: .init(make: [1], restart: [1: 11]), streams: [11: 1]),
            Step(wanted: [11, 12], linked: [1], changes: .init(restart: [0: 12]), streams: [11: 1, 12: 0]),
        ])
    }

    /// After a burst of streams that duck others, only `keptFree` meters
    /// stay for the next ones.
    @Test func aBurstLeavesOnlyAFewMetersBehind() {
        var pool = MeterPool()
        let made = pool.assign([1, 2, 3, 4, 5], linked: [])
        #expect(made.make == [0, 1, 2, 3, 4])
        let after = pool.assign([3], linked: [])
        #expect(after.retire.count == 4 - MeterPool.keptFree)
        #expect(pool.meters.count == 1 + MeterPool.keptFree)
        #expect(pool.streams == [3: 2])
        let next = pool.assign([3, 6, 7], linked: [])
        #expect(next.make.isEmpty && Set(next.restart.values) == [6, 7], "the meters kept are given out: \(next)")
    }

    @Test func aFailedMeterIsRetiredAndReplaced() {
        var pool = MeterPool()
        _ = pool.assign([10], linked: [])
        pool.retire(0)
        #expect(pool.streams.isEmpty)
        #expect(pool.assign([10], linked: []) == .init(make: [1], restart: [1: 10]))
    }
}
