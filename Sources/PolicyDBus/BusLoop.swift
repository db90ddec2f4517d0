/// The loop a `SessionBus` joins: it watches the bus's fd and arms one timer,
/// and calls back on the loop's thread. PolicyPipeWire's `EventLoop`
/// satisfies it, so the bus runs on the PipeWire loop with no thread of its
/// own and no polling (docs/PLAYERS.md, "sd-bus on the PipeWire loop").
public protocol BusLoop: AnyObject {
    /// Calls `handler` with the ready events (poll(2) bits) whenever `fd` is
    /// ready for `events`; the fd is not closed when the watch ends.
    func watch(fd: Int32, events: UInt32, _ handler: @escaping (UInt32) -> Void) -> any BusLoopWatch
    /// A one-shot timer; nothing fires until it is scheduled.
    func busTimer(_ action: @escaping () -> Void) -> any BusLoopTimer
}

/// A watched fd; the watch ends when this is released.
public protocol BusLoopWatch: AnyObject {
    func update(events: UInt32)
}

/// A one-shot timer; cancelled when this is released.
public protocol BusLoopTimer: AnyObject {
    func schedule(after seconds: Double)
    func cancel()
}
