import Testing
@testable import PolicyCore

/// Checking a restore before the agent exits: two quiet checks in a row
/// confirm it; a straggler is sent gain 1 again; out of time, a warning
/// that says which case it was.
struct RestoreConfirmationTests {
    let straggler = AgentAction.setGain(node: 10, gain: 1)

    @Test func twoQuietChecksInARowConfirm() {
        var confirmation = RestoreConfirmation(startedAt: 0)
        #expect(confirmation.checked(stragglers: [], now: 0.1) == .checkAgain(resend: []))
        #expect(confirmation.checked(stragglers: [], now: 0.2) == .confirmed)
    }

    @Test func aStragglerIsSentAgainAndStartsTheCountAfresh() {
        var confirmation = RestoreConfirmation(startedAt: 0)
        #expect(confirmation.checked(stragglers: [], now: 0.1) == .checkAgain(resend: []))
        #expect(confirmation.checked(stragglers: [straggler], now: 0.2) == .checkAgain(resend: [straggler]))
        #expect(confirmation.checked(stragglers: [], now: 0.3) == .checkAgain(resend: []), "one quiet check is not two")
        #expect(confirmation.checked(stragglers: [], now: 0.4) == .confirmed)
    }

    @Test(arguments: [
        ([AgentAction](), "could not confirm every stream's gain within 2 s"),
        ([AgentAction.setGain(node: 10, gain: 1)], "1 streams did not report gain 1 again; they may keep a policy gain"),
    ])
    func outOfTimeItGivesUpSayingWhy(stragglers: [AgentAction], warning: String) {
        var confirmation = RestoreConfirmation(startedAt: 0)
        _ = confirmation.checked(stragglers: [straggler], now: 1)
        #expect(confirmation.checked(stragglers: stragglers, now: RestoreConfirmation.limit)
            == .gaveUp(resend: stragglers, warning: warning))
    }

    @Test(arguments: [
        (nil, 5.0, 0.0),  // no ramp was sent
        (4.0, 5.0, 0.0),  // it ended
        (5.25, 5.0, 0.25),  // it runs a little longer
        (30.0, 5.0, 1.0),  // bounded: a stopped stream may never finish it
    ] as [(Double?, Double, Double)])
    func itWaitsForARampOfOursBeforeRestoringBounded(rampsRunUntil: Double?, now: Double, wait: Double) {
        #expect(abs(RestoreConfirmation.wait(before: rampsRunUntil, now: now) - wait) < 1e-9)
    }
}
