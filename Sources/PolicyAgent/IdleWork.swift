import CMalloc
import PolicyFiles

/// What waits until the agent's work has settled: `quietPeriod` after the
/// last reconcile of a burst, `work` once — never during a burst, and never
/// again while idle. In the agent: the journal a turn that acted on nothing
/// left unwritten (`AgentCore.settled`), then the heap's free pages given
/// back (`mallocTrim`).
///
/// A reconcile only notes the time (no syscall while fades run every
/// 25 ms); the timer is armed once per burst. While reconciles never pause
/// for `quietPeriod` (a player flooding the bus), the work waits. On any
/// loop: `IdleWorkTests` runs it on the embedded one.
final class IdleWork<Loop: EventLoopProtocol> {
    static var quietPeriod: Double { 0.5 }

    private let loop: Loop
    private var timer: Loop.Timer!
    private var lastWork = -Double.infinity
    private let work: () -> Void

    init(loop: Loop, work: @escaping () -> Void) {
        self.loop = loop
        self.work = work
        timer = loop.makeTimer { [unowned self] in self.quietPeriodPassed() }
    }

    /// The agent did work (a reconcile): `work` once it has been quiet for `quietPeriod`.
    func worked() {
        lastWork = loop.now
        if !timer.isPending { timer.schedule(after: Self.quietPeriod) }
    }

    private func quietPeriodPassed() {
        let wait = lastWork + Self.quietPeriod - loop.now
        if wait > 0 { timer.schedule(after: wait) } else { work() }
    }

    /// Nothing due any more (the agent is stopping).
    func stop() { timer.cancel() }
}

/// Gives the heap's free pages back to the system; the time it took goes to
/// `log`. glibc returns only the free memory at the top of the heap by
/// itself, so what a burst (the start-up's whole graph, a duck's fades)
/// freed in the middle of the heap stayed resident: 0.1–0.7 MiB of the
/// agent's 16 MiB beside 100 streams (docs/PERFORMANCE.md, "The heap's free
/// pages given back"). `malloc_trim` also releases whole free pages inside
/// the heap, and the agent sits idle nearly all the time, so what it holds
/// then is its memory. The cost is one trim per burst (timed in the debug
/// log) and the page faults of the next burst that reuses those pages.
func mallocTrim(clock: some EventLoopProtocol, log: (String) -> Void) {
    let start = clock.now
    let released = malloc_trim(0) != 0
    let micros = Int(((clock.now - start) * 1_000_000).rounded())
    log("memory: heap trimmed in \(micros) µs" + (released ? "" : " (nothing to give back)"))
}
