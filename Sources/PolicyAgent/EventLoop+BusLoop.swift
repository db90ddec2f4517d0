import PolicyDBus
import PolicyPipeWire

// The session bus joins the PipeWire loop (docs/PLAYERS.md). Declared here,
// where both meet, so that the PipeWire client needs nothing of D-Bus.

extension LoopIO: BusLoopWatch {}

extension LoopTimer: BusLoopTimer {}

extension EventLoop: BusLoop {
    public func watch(fd: Int32, events: UInt32, _ handler: @escaping (UInt32) -> Void) -> any BusLoopWatch {
        LoopIO(loop: self, fd: fd, events: events, handler: handler)
    }

    public func busTimer(_ action: @escaping () -> Void) -> any BusLoopTimer {
        makeTimer(action)
    }
}
