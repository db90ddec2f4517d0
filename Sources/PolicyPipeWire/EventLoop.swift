import CPipeWire
#if canImport(Glibc)
import Glibc
#endif
import PolicyFiles

/// The PipeWire loop that every PipeWire object of this process lives on.
/// Single-threaded by design: the loop runs on the thread that created it
/// (`run()` or `iterate()`), and all callbacks, timers and actions happen
/// there, so no locking is needed anywhere in the PipeWire layer. Its clock
/// is the system's monotonic clock (`EventLoopProtocol`).
public final class EventLoop: EventLoopProtocol {
    let loop: OpaquePointer  // struct pw_loop *
    private var isStopped = false
    /// The thread that runs the loop: the only one allowed to touch it.
    private let thread = pthread_self()

    public init() {
        PipeWireLibrary.initialize()
        loop = OpaquePointer(pw_loop_new(nil))
        _ = cpw_loop_enter(pwLoop)
    }

    /// Stops the program when called off the loop's thread: the PipeWire
    /// layer has no locks because everything runs there (SwiftNIO's
    /// `preconditionInEventLoop`). Checked where effects are executed and
    /// where a session reconciles.
    public func preconditionInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(pthread_equal(thread, pthread_self()) != 0, "called off the PipeWire loop's thread", file: file, line: line)
    }

    var pwLoop: UnsafeMutablePointer<pw_loop> { UnsafeMutablePointer(loop) }

    /// The loop's clock: the system's monotonic clock.
    private let clock = SystemClock()
    @inline(__always) public var now: Double { clock.now }

    deinit {
        _ = cpw_loop_leave(pwLoop)
        pw_loop_destroy(pwLoop)
    }

    /// Dispatches ready events, waiting at most `timeout` seconds (nil = forever).
    @discardableResult
    public func iterate(timeout: Double?) -> Int32 {
        let milliseconds = timeout.map { Int32(max(0, min($0 * 1000, Double(Int32.max)))) } ?? -1
        return cpw_loop_iterate(pwLoop, milliseconds)
    }

    /// Runs until `stop()` is called.
    public func run() {
        isStopped = false
        while !isStopped {
            let result = iterate(timeout: nil)
            if result < 0 && result != -EINTR { break }
        }
    }

    /// Runs until `condition` holds or `timeout` seconds passed; returns whether it held.
    @discardableResult
    public func run(timeout: Double, until condition: () -> Bool) -> Bool {
        let deadline = now + timeout
        while !condition() {
            let remaining = deadline - now
            if remaining <= 0 { return false }
            iterate(timeout: min(remaining, 0.05))
        }
        return true
    }

    public func stop() { isStopped = true }

    /// A one-shot timer on this loop. Rearm it with `schedule(after:)`.
    public func makeTimer(_ action: @escaping () -> Void) -> LoopTimer {
        LoopTimer(loop: self, action: action)
    }

    /// A handler for a POSIX signal, run on the loop (not in signal context).
    public func onSignal(_ signal: Int32, _ action: @escaping () -> Void) -> LoopSignal {
        LoopSignal(loop: self, signal: signal, action: action)
    }
}

/// A timer source on the loop; destroyed with this object.
public final class LoopTimer: EventLoopTimer {
    private unowned let loop: EventLoop
    private var source: UnsafeMutablePointer<spa_source>!
    private let action: () -> Void

    fileprivate init(loop: EventLoop, action: @escaping () -> Void) {
        self.loop = loop
        self.action = action
        source = cpw_loop_add_timer(loop.pwLoop, { data, _ in
            let timer = Unmanaged<LoopTimer>.fromOpaque(data!).takeUnretainedValue()
            timer.isPending = false
            timer.action()
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Set to fire and not fired or cancelled since.
    public private(set) var isPending = false

    /// Fires once after `seconds` (clamped to ≥ 1 µs); replaces any pending firing.
    public func schedule(after seconds: Double) {
        let nanoseconds = UInt64(max(seconds, 1e-6) * 1e9)
        _ = cpw_loop_update_timer(loop.pwLoop, source, nanoseconds)
        isPending = true
    }

    public func cancel() {
        _ = cpw_loop_update_timer(loop.pwLoop, source, 0)
        isPending = false
    }

    deinit {
        cpw_loop_destroy_source(loop.pwLoop, source)
    }
}

/// A signal source on the loop; destroyed with this object.
public final class LoopSignal {
    private unowned let loop: EventLoop
    private var source: UnsafeMutablePointer<spa_source>!
    private let action: () -> Void

    fileprivate init(loop: EventLoop, signal: Int32, action: @escaping () -> Void) {
        self.loop = loop
        self.action = action
        source = cpw_loop_add_signal(loop.pwLoop, signal, { data, _ in
            Unmanaged<LoopSignal>.fromOpaque(data!).takeUnretainedValue().action()
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        cpw_loop_destroy_source(loop.pwLoop, source)
    }
}
