import Testing
@testable import PolicyAgent
import PolicyCore
import PolicyTestSupport

/// The restore's timing at exit on the embedded loop: it waits for the
/// native ramps by the loop's clock while the loop serves its other
/// sources, then checks the restored streams a few graph cycles apart
/// until `RestoreConfirmation` is content or gives up.
struct RestoreTimingTests {
    let straggler = AgentAction.setGain(node: 7, gain: 1)

    @Test func itWaitsForTheRampsWhileTheLoopRuns() {
        let loop = EmbeddedEventLoop(now: 1000)
        var served: [Double] = []
        let other = loop.makeTimer { served.append(loop.now) }
        other.schedule(after: 0.2)
        RestoreTiming.waitForRamps(on: loop, runningUntil: 1000.4)
        #expect(loop.now == 1000.4)
        #expect(served == [1000.2], "no blocking sleep: the loop's sources are served meanwhile")
    }

    @Test func theWaitIsBoundedAndNoneWithoutRamps() {
        let loop = EmbeddedEventLoop(now: 1000)
        RestoreTiming.waitForRamps(on: loop, runningUntil: 1010)
        #expect(loop.now == 1000 + 1, "a stream that stopped mid-ramp may never finish it")
        RestoreTiming.waitForRamps(on: loop, runningUntil: nil)
        RestoreTiming.waitForRamps(on: loop, runningUntil: 900)
        #expect(loop.now == 1001)
    }

    @Test func stragglersAreSentAgainUntilTwoChecksInARowFindNone() {
        let loop = EmbeddedEventLoop(now: 0)
        var checks: [Double] = []
        var settled = 0
        var resent: [[AgentAction]] = []
        let warning = RestoreTiming.confirm(on: loop, isConnected: { true }, settle: { settled += 1 },
                                            stragglers: {
                                                checks.append(loop.now)
                                                return checks.count == 1 ? [straggler] : []
                                            },
                                            resend: { resent.append($0) })
        #expect(warning == nil)
        #expect(resent == [[straggler]])
        #expect(checks.count == 3 && settled == 3)
        #expect(zip(checks, checks.dropFirst()).allSatisfy { $1 - $0 >= RestoreTiming.checkInterval - 1e-9 },
                "checks a few graph cycles apart by the loop's clock")
    }

    @Test func itGivesUpAfterTheLimitByTheLoopsClock() {
        let loop = EmbeddedEventLoop(now: 0)
        var resent = 0
        let warning = RestoreTiming.confirm(on: loop, isConnected: { true }, settle: {},
                                            stragglers: { [straggler] }, resend: { _ in resent += 1 })
        #expect(warning?.contains("1 streams did not report gain 1 again") == true)
        #expect(loop.now >= RestoreConfirmation.limit)
        #expect(resent > 1, "sent again at each check and once more at the end")
    }

    @Test func aLostConnectionEndsTheChecks() {
        let loop = EmbeddedEventLoop(now: 0)
        var checked = false
        let warning = RestoreTiming.confirm(on: loop, isConnected: { false }, settle: {},
                                            stragglers: { checked = true; return [] }, resend: { _ in })
        #expect(warning == nil && !checked)
    }
}
