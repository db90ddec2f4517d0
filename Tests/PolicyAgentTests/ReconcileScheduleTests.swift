import Testing
@testable import PolicyAgent
import PolicyTestSupport

/// When the session reconciles, on the embedded loop: a burst of graph
/// events is one reconcile on the next turn; desktop changes reconcile at
/// once, then at most once per `desktopInterval`, and the log names them.
struct ReconcileScheduleTests {
    final class Harness {
        let loop = EmbeddedEventLoop(now: 50)
        var reconciles: [Double] = []
        var logged: [String] = []
        private(set) var schedule: ReconcileSchedule<EmbeddedEventLoop>!

        init(enabled: Bool = true) {
            schedule = ReconcileSchedule(loop: loop, log: { [unowned self] in self.logged.append($0) }) { [unowned self] in
                self.reconciles.append(self.loop.now)
            }
            schedule.isEnabled = enabled
        }
    }

    let interval = ReconcileSchedule<EmbeddedEventLoop>.desktopInterval

    @Test func aBurstOfGraphEventsIsOneReconcileOnTheNextTurn() {
        let harness = Harness()
        harness.schedule.soon()
        harness.schedule.soon()
        #expect(harness.schedule.isDue)
        #expect(harness.reconciles.isEmpty)
        harness.schedule.soon()
        harness.loop.run()
        #expect(harness.reconciles == [50])
        #expect(!harness.schedule.isDue)
    }

    @Test func aDesktopChangeReconcilesAtOnceAndTheNextWithinTheIntervalIsHeldBack() {
        let harness = Harness()
        harness.schedule.desktopChanged(.doNotDisturb)
        harness.loop.run()
        #expect(harness.reconciles == [50])
        #expect(harness.logged == ["reconcile: Do Not Disturb changed"])
        harness.loop.advanceTime(by: 0.07)
        harness.schedule.desktopChanged(.doNotDisturb)
        harness.loop.advanceTime(by: 0.02)
        harness.schedule.desktopChanged(.players)
        harness.schedule.desktopChanged(.desktopEntries)
        harness.loop.advanceTime(to: 50 + interval - 0.001)
        #expect(harness.reconciles == [50], "held back until the interval is over")
        harness.loop.advanceTime(to: 50 + interval)
        #expect(harness.reconciles == [50, 50 + interval], "three changes, one reconcile")
        #expect(harness.logged.last == "reconcile: players, desktop entries, Do Not Disturb changed")
    }

    @Test func aFloodOfChangesCostsOneReconcilePerInterval() {
        let harness = Harness()
        for _ in 0..<100 {
            harness.schedule.desktopChanged(.players)
            harness.loop.advanceTime(by: 0.01)
        }
        #expect(harness.reconciles.count == 10, "a second of a flooding player: ten reconciles, not a hundred")
    }

    @Test func aDesktopChangeLongAfterTheLastReconcilesAtOnce() {
        let harness = Harness()
        harness.schedule.desktopChanged(.screenLock)
        harness.loop.run()
        harness.loop.advanceTime(by: 5)
        harness.schedule.desktopChanged(.mediaKeys)
        harness.loop.run()
        #expect(harness.reconciles == [50, 55])
    }

    @Test func nothingIsScheduledBeforeItIsEnabledNorAfterItStops() {
        let harness = Harness(enabled: false)
        harness.schedule.soon()
        harness.schedule.desktopChanged(.audioSessions)
        harness.loop.advanceTime(by: 1)
        #expect(harness.reconciles.isEmpty)
        #expect(harness.logged.isEmpty)
        harness.schedule.isEnabled = true
        harness.schedule.soon()
        harness.schedule.desktopChanged(.players)
        harness.schedule.stop()
        harness.loop.advanceTime(by: 1)
        #expect(harness.reconciles.isEmpty, "a restore takes back what it stops")
    }
}
