import Testing
@testable import PolicyAgent
import PolicyTestSupport

/// When the agent gives its heap's free pages back, on the embedded loop:
/// once per burst of work, `quietPeriod` after the burst's last reconcile.
struct IdleMemoryTrimTests {
    final class Harness {
        let loop = EmbeddedEventLoop(now: 10)
        var trims: [Double] = []
        private(set) var trim: IdleMemoryTrim<EmbeddedEventLoop>!

        init() {
            trim = IdleMemoryTrim(loop: loop) { [unowned self] in self.trims.append(self.loop.now) }
        }
    }

    let quiet = IdleMemoryTrim<EmbeddedEventLoop>.quietPeriod

    @Test func oneTrimAQuietPeriodAfterTheLastWorkOfABurst() {
        let harness = Harness()
        // A fade: work every 25 ms for a second.
        var lastWork = harness.loop.now
        for _ in 0..<40 {
            lastWork = harness.loop.now
            harness.trim.worked()
            harness.loop.advanceTime(by: 0.025)
        }
        #expect(harness.trims.isEmpty, "never during a burst")
        harness.loop.advanceTime(to: lastWork + quiet - 0.001)
        #expect(harness.trims.isEmpty)
        harness.loop.advanceTime(to: lastWork + quiet)
        #expect(harness.trims == [lastWork + quiet])
        harness.loop.advanceTime(by: 60)
        #expect(harness.trims.count == 1, "never again while idle")
    }

    @Test func eachBurstEndsInATrimOfItsOwn() {
        let harness = Harness()
        harness.trim.worked()
        harness.loop.advanceTime(by: 5)
        harness.trim.worked()
        harness.loop.advanceTime(by: 0.1)
        harness.trim.worked()
        harness.loop.advanceTime(by: 5)
        #expect(harness.trims == [10 + quiet, 15.1 + quiet])
    }

    @Test func stoppingCancelsTheTrimDue() {
        let harness = Harness()
        harness.trim.worked()
        harness.trim.stop()
        harness.loop.advanceTime(by: 5)
        #expect(harness.trims.isEmpty)
    }

    @Test func theTimerIsArmedOncePerBurstNotOncePerReconcile() {
        let harness = Harness()
        for _ in 0..<100 { harness.trim.worked() }
        harness.loop.advanceTime(by: 5)
        #expect(harness.loop.fired == 1, "one timer for a burst of reconciles at one moment")
        #expect(harness.trims.count == 1)
    }
}
