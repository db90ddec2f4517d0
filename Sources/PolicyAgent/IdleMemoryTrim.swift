import CMalloc
import PolicyFiles

/// Gives the heap's free pages back to the system once the agent's work has
/// settled: `quietPeriod` after the last reconcile of a burst, one
/// `malloc_trim` — never during a burst, and never again while idle.
///
/// Why: glibc returns only the free memory at the top of the heap by
/// itself, so what a burst (the start-up's whole graph, a duck's fades)
/// freed in the middle of the heap stayed resident: 0.1–0.7 MiB of the
/// agent's 16 MiB beside 100 streams (docs/PERFORMANCE.md, "The heap's
/// free pages given back").
/// `malloc_trim` also releases whole free pages inside the heap, and the
/// agent sits idle nearly all the time, so what it holds then is its memory.
/// The cost is one trim per burst (timed in the debug log) and the page
/// faults of the next burst that reuses those pages.
///
/// A reconcile only notes the time (no syscall while fades run every
/// 25 ms); the timer is armed once per burst. On any loop:
/// `IdleMemoryTrimTests` runs it on the embedded one.
final class IdleMemoryTrim<Loop: EventLoopProtocol> {
    static var quietPeriod: Double { 0.5 }

    private let loop: Loop
    private var timer: Loop.Timer!
    private var lastWork = -Double.infinity
    private let trim: () -> Void

    /// `trim` gives the memory back (`mallocTrim` in the agent).
    init(loop: Loop, trim: @escaping () -> Void) {
        self.loop = loop
        self.trim = trim
        timer = loop.makeTimer { [unowned self] in self.quietPeriodPassed() }
    }

    /// The agent did work (a reconcile): trim once it has been quiet for `quietPeriod`.
    func worked() {
        lastWork = loop.now
        if !timer.isPending { timer.schedule(after: Self.quietPeriod) }
    }

    private func quietPeriodPassed() {
        let wait = lastWork + Self.quietPeriod - loop.now
        if wait > 0 { timer.schedule(after: wait) } else { trim() }
    }

    /// No trim due any more (the agent is stopping).
    func stop() { timer.cancel() }
}

extension IdleMemoryTrim {
    /// The heap's free pages given back; the time it took goes to `log`.
    static func mallocTrim(clock: Loop, log: @escaping (String) -> Void) -> () -> Void {
        {
            let start = clock.now
            let released = malloc_trim(0) != 0
            let micros = Int(((clock.now - start) * 1_000_000).rounded())
            log("memory: heap trimmed in \(micros) µs" + (released ? "" : " (nothing to give back)"))
        }
    }
}
