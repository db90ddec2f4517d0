import CPipeWire

/// An owned `spa_hook` with a stable heap address, as libpipewire requires for
/// the lifetime of a listener. Removing the hook on deinit means a listener
/// can never outlive the Swift object whose pointer it carries.
final class Hook {
    let pointer: UnsafeMutablePointer<spa_hook>
    private(set) var isAttached = false

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: spa_hook())
    }

    /// Call right after the `*_add_listener` call that used `pointer`.
    func attached() { isAttached = true }

    func remove() {
        if isAttached { spa_hook_remove(pointer) }
        isAttached = false
    }

    deinit {
        remove()
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}

/// An events table with a stable heap address, kept alive as long as its hook.
final class EventsTable<Events> {
    let pointer: UnsafeMutablePointer<Events>
    init(_ events: Events) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: events)
    }
    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
