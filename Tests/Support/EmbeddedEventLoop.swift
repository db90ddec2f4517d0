#if canImport(Glibc)
import Glibc
#endif
import PolicyFiles

/// An event loop for unit tests, after SwiftNIO's `EmbeddedEventLoop`: its
/// clock stands still until the test moves it, and its timers fire only
/// then — `run()` fires those due now (a timer scheduled after 0 s fires on
/// the loop's next turn), `advanceTime(by:)` moves the clock, firing the
/// timers that come due on the way in the order of their times (of their
/// scheduling when equal), each with the clock at its time. Nothing waits:
/// a test of a debounce or a wake-up runs in microseconds, and can run
/// beside the others (docs/ARCHITECTURE.md, "The loop and the clock").
public final class EmbeddedEventLoop: EventLoopProtocol {
    public private(set) var now: Double
    private let thread = pthread_self()
    private var timers: [WeakTimer] = []
    private var scheduled = 0
    /// Timers fired since the loop was made.
    public private(set) var fired = 0

    private struct WeakTimer { weak var timer: Timer? }

    public init(now: Double = 1000) { self.now = now }

    public func makeTimer(_ action: @escaping () -> Void) -> Timer {
        let timer = Timer(loop: self, action: action)
        timers.removeAll { $0.timer == nil }
        timers.append(WeakTimer(timer: timer))
        return timer
    }

    public func preconditionInEventLoop(file: StaticString, line: UInt) {
        precondition(pthread_equal(thread, pthread_self()) != 0, "called off the embedded loop's thread", file: file, line: line)
    }

    /// One turn: fires the timers due now, and those they schedule for now.
    public func run() { advanceTime(to: now) }

    /// Moves the clock by `seconds`, firing the timers due on the way.
    public func advanceTime(by seconds: Double) { advanceTime(to: now + seconds) }

    /// Moves the clock to `time` (not back), firing the timers due on the way.
    public func advanceTime(to time: Double) {
        let end = max(now, time)
        while let timer = nextDue(by: end) { fire(timer) }
        now = end
    }

    /// Fires timers as they come due until `condition` holds or `timeout`
    /// seconds passed on its clock; returns whether it held.
    @discardableResult
    public func run(timeout: Double, until condition: () -> Bool) -> Bool {
        let end = now + max(timeout, 0)
        while !condition() {
            guard let timer = nextDue(by: end) else {
                now = end
                return condition()
            }
            fire(timer)
        }
        return true
    }

    /// When the next pending timer fires, if one is pending.
    public var nextDeadline: Double? { pending.first?.deadline }

    private var pending: [Timer] {
        timers.compactMap(\.timer).filter(\.isPending).sorted { ($0.deadline, $0.order) < ($1.deadline, $1.order) }
    }

    private func nextDue(by end: Double) -> Timer? {
        pending.first.flatMap { $0.deadline <= end ? $0 : nil }
    }

    private func fire(_ timer: Timer) {
        fired += 1
        precondition(fired < 1_000_000, "the embedded loop's timers keep scheduling each other for now")
        now = max(now, timer.deadline)
        timer.fire()
    }

    fileprivate func nextOrder() -> Int {
        scheduled += 1
        return scheduled
    }

    /// A one-shot timer on the embedded loop.
    public final class Timer: EventLoopTimer {
        private unowned let loop: EmbeddedEventLoop
        private let action: () -> Void
        fileprivate private(set) var deadline = Double.infinity
        fileprivate private(set) var order = 0
        public private(set) var isPending = false

        fileprivate init(loop: EmbeddedEventLoop, action: @escaping () -> Void) {
            self.loop = loop
            self.action = action
        }

        /// Fires once `seconds` (at least 0) from the loop's now; replaces any pending firing.
        public func schedule(after seconds: Double) {
            deadline = loop.now + max(seconds, 0)
            order = loop.nextOrder()
            isPending = true
        }

        public func cancel() { isPending = false }

        fileprivate func fire() {
            isPending = false
            action()
        }
    }
}
