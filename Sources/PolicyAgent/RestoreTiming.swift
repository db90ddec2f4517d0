import PolicyCore
import PolicyFiles

/// The restore's timing at exit (docs/POLICY.md, "Fades"), on any loop and
/// by its clock: the agent waits for the native ramps it sent, restores,
/// and checks the restored streams until `RestoreConfirmation` is content.
/// The loop runs while it waits — its other sources are served, nothing
/// sleeps — and `RestoreTimingTests` runs it on the embedded loop.
enum RestoreTiming {
    /// Runs the loop until the native ramps sent run until `rampsRunUntil`
    /// have run, at most a second (`RestoreConfirmation.wait`).
    static func waitForRamps<Loop: EventLoopProtocol>(on loop: Loop, runningUntil rampsRunUntil: Double?) {
        let wait = RestoreConfirmation.wait(before: rampsRunUntil, now: loop.now)
        if wait > 0 { loop.run(timeout: wait) { false } }
    }

    /// How long the loop runs between two checks: a few graph cycles.
    static let checkInterval = 0.1

    /// Checks the restored streams `checkInterval` apart, each check after
    /// `settle` (a round trip to the daemon), sending the stragglers again
    /// with `resend`, until the core is content or the connection is gone.
    /// Returns the warning when it gave up.
    static func confirm<Loop: EventLoopProtocol>(on loop: Loop, isConnected: () -> Bool, settle: () -> Void,
                                                 stragglers: () -> [AgentAction],
                                                 resend: ([AgentAction]) -> Void) -> String? {
        var confirmation = RestoreConfirmation(startedAt: loop.now)
        while isConnected() {
            loop.run(timeout: checkInterval) { false }
            settle()
            let next = confirmation.checked(stragglers: stragglers(), now: loop.now)
            if !next.resend.isEmpty { resend(next.resend) }
            switch next {
            case .confirmed: return nil
            case .checkAgain: continue
            case .gaveUp(_, let warning): return warning
            }
        }
        return nil
    }
}
