import CSystemd
import Glibc
import PolicyFiles

/// A connection to the user's session bus through sd-bus, dispatched on a
/// `BusLoop` (the PipeWire loop): the bus fd is watched for the events
/// sd_bus_get_events asks for, a loop timer is armed for sd_bus_get_timeout,
/// and sd_bus_process runs until it has nothing left. No thread, no polling
/// (docs/PLAYERS.md, "sd-bus on the PipeWire loop").
public final class SessionBus {
    let bus: OpaquePointer
    /// Kept alive while the bus is: its watch and timer are sources on it,
    /// released (in deinit) before it.
    private let loop: any BusLoop
    private var watch: (any BusLoopWatch)?
    private var timer: (any BusLoopTimer)?
    /// Calls waiting for their reply, by slot.
    private var pending: [ObjectIdentifier: BusSlot] = [:]
    /// Slots whose callback ran during this dispatch: released after
    /// sd_bus_process returns, never from inside their own callback.
    private var finished: [BusSlot] = []
    private var isDispatching = false

    /// The bus daemon's own name (also its interface) and object.
    public static let daemon = "org.freedesktop.DBus"
    static let daemonPath = "/org/freedesktop/DBus"
    /// The standard interface of properties and their PropertiesChanged.
    public static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// Set once the connection is lost; every later call fails at once.
    public private(set) var failure: SessionBusError?
    /// Called once when the connection is lost.
    public var onDisconnect: ((SessionBusError) -> Void)?

    /// The bus's own unique name (`:1.7`), once the daemon answered Hello.
    public var uniqueName: String? {
        var name: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(bus, &name) >= 0, let name else { return nil }
        return String(cString: name)
    }

    /// Connects to the session bus at `address` (a D-Bus address such as
    /// `unix:path=/run/user/1000/bus`), or where sd-bus finds the user's:
    /// DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus.
    public static func connect(address: String? = nil, on loop: any BusLoop) -> Result<SessionBus, SessionBusError> {
        var bus: OpaquePointer?
        var result: Int32
        if let address {
            result = sd_bus_new(&bus)
            if result >= 0 { result = sd_bus_set_address(bus, address) }
            if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
            if result >= 0 { result = sd_bus_set_description(bus, "pw-policy") }
            if result >= 0 { result = sd_bus_start(bus) }
        } else {
            result = sd_bus_open_user_with_description(&bus, "pw-policy")
        }
        guard result >= 0, let bus else {
            if let bus { sd_bus_unref(bus) }
            let shown = address ?? getenv("DBUS_SESSION_BUS_ADDRESS").map { String(cString: $0) }
            return .failure(.unavailable(address: shown, reason: errnoText(result)))
        }
        return .success(SessionBus(bus: bus, loop: loop))
    }

    /// Connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS, else the
    /// system's socket), for the few things only it says (logind's lock:
    /// docs/POLICY.md, "Screen lock"); the same calls and matches work on it.
    public static func connectSystem(on loop: any BusLoop) -> Result<SessionBus, SessionBusError> {
        var bus: OpaquePointer?
        let result = sd_bus_open_system_with_description(&bus, "pw-policy")
        guard result >= 0, let bus else {
            if let bus { sd_bus_unref(bus) }
            let shown = getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) }
            return .failure(.unavailable(address: shown, reason: errnoText(result)))
        }
        return .success(SessionBus(bus: bus, loop: loop))
    }

    private init(bus: OpaquePointer, loop: any BusLoop) {
        self.bus = bus
        self.loop = loop
        let fd = sd_bus_get_fd(bus)
        watch = loop.watch(fd: fd, events: UInt32(POLLIN)) { [unowned self] _ in dispatch() }
        timer = loop.busTimer { [unowned self] in dispatch() }
        // Hello is queued: have it written and its reply read.
        dispatch()
    }

    deinit {
        // Slots first (they point into the bus), then the connection.
        pending.removeAll()
        finished.removeAll()
        watch = nil
        timer = nil
        sd_bus_flush_close_unref(bus)
    }

    /// Processes everything sd-bus has to do now, then watches for what it
    /// waits for next.
    func dispatch() {
        guard failure == nil, !isDispatching else { return }
        isDispatching = true
        defer { isDispatching = false }
        while true {
            let result = sd_bus_process(bus, nil)
            if result < 0 { return lost(errnoText(result)) }
            if result == 0 { break }
        }
        finished.removeAll()
        if sd_bus_is_open(bus) <= 0 { return lost("the connection was closed") }
        rearm()
    }

    /// The watch and the timer, as sd-bus wants them now: POLLOUT while it
    /// has queued output, a timer for the earliest call timeout (0 when
    /// messages are already read and waiting).
    private func rearm() {
        let events = sd_bus_get_events(bus)
        if events < 0 { return lost(errnoText(events)) }
        watch?.update(events: UInt32(events))
        var deadline: UInt64 = 0
        guard sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max else {
            timer?.cancel()
            return
        }
        let nowMicroseconds = UInt64(MonotonicClock.now * 1e6)
        let delay = deadline > nowMicroseconds ? Double(deadline - nowMicroseconds) / 1e6 : 0
        timer?.schedule(after: delay)
    }

    /// A message was queued outside a dispatch: have it written.
    func queued() {
        if !isDispatching, failure == nil { rearm() }
    }

    private func lost(_ reason: String) {
        guard failure == nil else { return }
        let error = SessionBusError.disconnected(reason: reason)
        failure = error
        watch = nil
        timer?.cancel()
        // Pending calls will never be answered: their handlers hear it now.
        let waiting = pending.values
        pending.removeAll()
        for slot in waiting { slot.complete(.failure(BusCallError(name: "pw-policy.Disconnected", message: reason))) }
        onDisconnect?(error)
    }

    /// Calls a method with string arguments; `reply` gets the decoded body
    /// or the error, on the loop, exactly once (unless this bus is released
    /// first). `timeout` in seconds.
    public func call(destination: String, path: String, interface: String, member: String,
                     arguments: [String] = [], timeout: Double = 5,
                     reply: @escaping (Result<[BusValue], BusCallError>) -> Void) {
        call(destination: destination, path: path, interface: interface, member: member,
             values: arguments.map(BusOut.string), timeout: timeout, reply: reply)
    }

    /// Calls a method with arguments of any type.
    func call(destination: String, path: String, interface: String, member: String,
              values: [BusOut], timeout: Double = 5,
              reply: @escaping (Result<[BusValue], BusCallError>) -> Void) {
        if let failure {
            return reply(.failure(BusCallError(name: "pw-policy.Disconnected", message: failure.description)))
        }
        let message: OpaquePointer
        do {
            message = try BusMessage.methodCall(bus: bus, destination: destination, path: path, interface: interface,
                                                member: member, values: values)
        } catch {
            return reply(.failure(BusCallError(name: "pw-policy.InvalidCall", message: error.description)))
        }
        defer { sd_bus_message_unref(message) }
        let slot = BusSlot()
        slot.completion = { [unowned self, unowned slot] result in
            if pending.removeValue(forKey: ObjectIdentifier(slot)) != nil { finished.append(slot) }
            reply(result)
        }
        var cSlot: OpaquePointer?
        let result = sd_bus_call_async(bus, &cSlot, message, BusSlot.replyCallback, slot.userdata,
                                       UInt64(max(timeout, 0.001) * 1e6))
        guard result >= 0 else {
            return reply(.failure(BusCallError(name: "pw-policy.SendFailed", message: errnoText(result))))
        }
        slot.slot = cSlot
        pending[ObjectIdentifier(slot)] = slot
        if !isDispatching { rearm() }
    }

    /// A timer on the bus's loop, for its observers.
    public func makeTimer(_ action: @escaping () -> Void) -> any BusLoopTimer { loop.busTimer(action) }

    /// Calls a method of the bus daemon itself (`ListNames`, `GetNameOwner`…).
    public func callDaemon(_ member: String, arguments: [String] = [],
                           reply: @escaping (Result<[BusValue], BusCallError>) -> Void) {
        call(destination: Self.daemon, path: Self.daemonPath, interface: Self.daemon, member: member,
             arguments: arguments, reply: reply)
    }

    /// Subscribes to signals matching `rule` (a D-Bus match rule); the
    /// subscription lasts as long as the returned value.
    public func match(rule: String, _ handler: @escaping (BusSignal) -> Void) -> Result<BusMatch, BusCallError> {
        let slot = BusSlot { message in
            let body = try? BusMessage.readBody(message)
            handler(BusSignal(message: message, body: body))
        }
        var cSlot: OpaquePointer?
        // Asynchronous: the AddMatch call is queued with whatever we send
        // next, so signals after it are delivered; none are missed between
        // the match and a ListNames sent after it (the daemon keeps order).
        let result = sd_bus_add_match_async(bus, &cSlot, rule, BusSlot.callback, nil, slot.userdata)
        guard result >= 0 else {
            return .failure(BusCallError(name: "pw-policy.AddMatchFailed", message: errnoText(result)))
        }
        slot.slot = cSlot
        if !isDispatching { rearm() }
        return .success(BusMatch(slot: slot))
    }
}

/// A signal as delivered: who sent it and its body (nil when it could not
/// be read: a malformed signal is reported, not trusted).
public struct BusSignal {
    public var sender: String?
    public var path: String?
    public var interface: String?
    public var member: String?
    public var body: [BusValue]?

    init(message: OpaquePointer, body: [BusValue]?) {
        func text(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
        sender = text(sd_bus_message_get_sender(message))
        path = text(sd_bus_message_get_path(message))
        interface = text(sd_bus_message_get_interface(message))
        member = text(sd_bus_message_get_member(message))
        self.body = body
    }
}
