import Testing
import PolicyTestSupport

/// The stand-in loop the adapters' tests run on: timers fire when its time
/// is moved, in the order of their times, each with the clock at its time.
struct EmbeddedEventLoopTests {
    @Test func timersFireInTheOrderOfTheirTimesWithTheClockAtEach() {
        let loop = EmbeddedEventLoop(now: 10)
        var fired: [(String, Double)] = []
        let late = loop.makeTimer { fired.append(("late", loop.now)) }
        let early = loop.makeTimer { fired.append(("early", loop.now)) }
        late.schedule(after: 0.3)
        early.schedule(after: 0.1)
        loop.advanceTime(by: 0.2)
        #expect(fired.map(\.0) == ["early"])
        #expect(loop.now == 10.2)
        loop.advanceTime(by: 1)
        #expect(fired.map(\.0) == ["early", "late"])
        #expect(fired.map(\.1) == [10.1, 10.3])
        #expect(loop.now == 11.2)
        #expect(!late.isPending && !early.isPending)
    }

    @Test func aTimerForNowFiresOnTheNextTurnAndACancelledOneNever() {
        let loop = EmbeddedEventLoop()
        var fired = 0
        let timer = loop.makeTimer { fired += 1 }
        timer.schedule(after: 0)
        #expect(fired == 0, "nothing fires until the loop turns")
        loop.run()
        #expect(fired == 1)
        timer.schedule(after: 1)
        timer.cancel()
        loop.advanceTime(by: 5)
        #expect(fired == 1)
    }

    @Test func reschedulingReplacesThePendingFiring() {
        let loop = EmbeddedEventLoop(now: 0)
        var times: [Double] = []
        let timer = loop.makeTimer { times.append(loop.now) }
        timer.schedule(after: 1)
        timer.schedule(after: 2)
        loop.advanceTime(by: 3)
        #expect(times == [2])
    }

    @Test func runningUntilAConditionFiresTimersAndStopsWhenItHoldsOrTimeIsUp() {
        let loop = EmbeddedEventLoop(now: 0)
        var done = false
        let timer = loop.makeTimer { done = true }
        timer.schedule(after: 0.4)
        #expect(loop.run(timeout: 1) { done })
        #expect(loop.now == 0.4)
        #expect(!loop.run(timeout: 0.5) { false })
        #expect(loop.now == 0.9)
    }
}
