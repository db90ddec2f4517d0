/// Monotonic seconds: what timers, debounces and fades are measured in.
/// `SystemClock` reads the system's monotonic clock; an event loop is its
/// own clock (`EventLoopProtocol`), so a stand-in loop in the tests
/// (PolicyTestSupport's `EmbeddedEventLoop`) moves time by hand.
public protocol LoopClock {
    var now: Double { get }
}

/// The system's monotonic clock (`MonotonicClock`).
public struct SystemClock: LoopClock, Sendable {
    public init() {}
    @inline(__always) public var now: Double { MonotonicClock.now }
}

/// What the agent's adapters need of the loop they run on, after SwiftNIO's
/// `EventLoop`: one-shot timers, its clock, running it for a while, and the
/// check that the caller is on its thread. PolicyPipeWire's `EventLoop`
/// (the pw_loop) is the one in the agent; PolicyTestSupport's
/// `EmbeddedEventLoop` runs timers when a test advances its time, so the
/// executor, the session's debounces and the restore path are unit-tested
/// without a daemon (docs/ARCHITECTURE.md, "The loop and the clock").
public protocol EventLoopProtocol: LoopClock, AnyObject {
    associatedtype Timer: EventLoopTimer
    /// A one-shot timer; nothing fires until it is scheduled.
    func makeTimer(_ action: @escaping () -> Void) -> Timer
    /// Runs the loop until `condition` holds or `timeout` seconds passed by
    /// its clock; returns whether it held.
    @discardableResult
    func run(timeout: Double, until condition: () -> Bool) -> Bool
    /// Stops the program when called off the loop's thread.
    func preconditionInEventLoop(file: StaticString, line: UInt)
}

extension EventLoopProtocol {
    @inline(__always)
    public func preconditionInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        preconditionInEventLoop(file: file, line: line)
    }
}

/// A one-shot timer on a loop; cancelled when released.
public protocol EventLoopTimer: AnyObject {
    /// Fires once after `seconds`; replaces any pending firing.
    func schedule(after seconds: Double)
    func cancel()
    /// Set to fire and not fired or cancelled since.
    var isPending: Bool { get }
}
