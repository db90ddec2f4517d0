import CPipeWire

/// An fd watched on the loop (an IO source); the source goes with this
/// object, the fd stays open (its owner closes it).
public final class LoopIO {
    private unowned let loop: EventLoop
    private var source: UnsafeMutablePointer<spa_source>!
    private let handler: (UInt32) -> Void

    public init(loop: EventLoop, fd: Int32, events: UInt32, handler: @escaping (UInt32) -> Void) {
        self.loop = loop
        self.handler = handler
        source = cpw_loop_add_io(loop.pwLoop, fd, events, false, { data, _, mask in
            Unmanaged<LoopIO>.fromOpaque(data!).takeUnretainedValue().handler(mask)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Watches for `events` (SPA_IO_IN/OUT are poll(2)'s POLLIN/POLLOUT) from now on.
    public func update(events: UInt32) {
        _ = cpw_loop_update_io(loop.pwLoop, source, events)
    }

    deinit {
        cpw_loop_destroy_source(loop.pwLoop, source)
    }
}
