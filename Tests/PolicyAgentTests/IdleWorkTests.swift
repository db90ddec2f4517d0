import Testing
@testable import PolicyAgent
import PolicyTestSupport

/// When the agent does what waits for its work to settle (the unwritten
/// journal, the heap's trim), on the embedded loop: once per burst of work,
/// `quietPeriod` after the burst's last reconcile.
struct IdleWorkTests {
    final class Harness {
        let loop = EmbeddedEventLoop(now: 10)
        var runs: [Double] = []
        private(set) var idle: IdleWork<EmbeddedEventLoop>!

        init() {
            idle = IdleWork(loop: loop) { [unowned self] in self.runs.append(self.loop.now) }
        }
    }

    let quiet = IdleWork<EmbeddedEventLoop>.quietPeriod

    @Test func runsOnceAQuietPeriodAfterTheLastWorkOfABurst() {
        let harness = Harness()
        // A fade: work every 25 ms for a second.
        var lastWork = harness.loop.now
        for _ in 0..<40 {
            lastWork = harness.loop.now
            harness.idle.worked()
            harness.loop.advanceTime(by: 0.025)
        }
        #expect(harness.runs.isEmpty, "never during a burst")
        harness.loop.advanceTime(to: lastWork + quiet - 0.001)
        #expect(harness.runs.isEmpty)
        harness.loop.advanceTime(to: lastWork + quiet)
        #expect(harness.runs == [lastWork + quiet])
        harness.loop.advanceTime(by: 60)
        #expect(harness.runs.count == 1, "never again while idle")
    }

    @Test func eachBurstEndsInARunOfItsOwn() {
        let harness = Harness()
        harness.idle.worked()
        harness.loop.advanceTime(by: 5)
        harness.idle.worked()
        harness.loop.advanceTime(by: 0.1)
        harness.idle.worked()
        harness.loop.advanceTime(by: 5)
        #expect(harness.runs == [10 + quiet, 15.1 + quiet])
    }

    @Test func stoppingCancelsTheRunDue() {
        let harness = Harness()
        harness.idle.worked()
        harness.idle.stop()
        harness.loop.advanceTime(by: 5)
        #expect(harness.runs.isEmpty)
    }

    @Test func theTimerIsArmedOncePerBurstNotOncePerReconcile() {
        let harness = Harness()
        for _ in 0..<100 { harness.idle.worked() }
        harness.loop.advanceTime(by: 5)
        #expect(harness.loop.fired == 1, "one timer for a burst of reconciles at one moment")
        #expect(harness.runs.count == 1)
    }
}
