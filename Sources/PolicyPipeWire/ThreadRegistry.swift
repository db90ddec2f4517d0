import CPipeWire
import PolicyCore

/// The registry of the agent's connection on its own thread
/// (`ThreadConnection`), and the graph it tells there: nodes (with only
/// the keys the thread needs), ports and links. What must act the moment
/// an object appears — the link guard refusing a link, the meter linker
/// linking a ducker's new port to its meter — observes it here, on the
/// thread, never waiting for the agent's loop.
final class ThreadRegistry {
    /// What appeared or went, told on the thread after `graph` has it (a
    /// new node is only kept: no observer acts on one yet).
    enum Event {
        case port(Graph.Port)
        /// A link and the client that made it (`client.id`).
        case link(Graph.Link, creator: UInt32?)
        case nodeRemoved(UInt32)
        case portRemoved(Graph.Port)
        case linkRemoved(Graph.Link)
    }

    /// The node keys kept: the link guard's (docs/POLICY.md, "The first sample").
    private static let nodeKeys = ["media.class", "object.serial", "client.id", "node.link-group"]

    /// On the thread, or under its lock.
    private(set) var graph = Graph()
    private let proxy: OpaquePointer           // struct pw_registry *
    private let hook = Hook()
    private var events: EventsTable<pw_registry_events>?
    private var observers: [ObjectIdentifier: (Event) -> Void] = [:]

    /// Listens on `core`: made before the thread runs, so that no global
    /// comes before the listener.
    init(core: OpaquePointer) {
        proxy = cpw_core_get_registry(core)
        var table = pw_registry_events()
        table.version = UInt32(PW_VERSION_REGISTRY_EVENTS)
        table.global = { data, id, _, type, _, props in
            guard let data, let type else { return }
            Unmanaged<ThreadRegistry>.fromOpaque(data).takeUnretainedValue().global(id: id, type: type, props: props)
        }
        table.global_remove = { data, id in
            guard let data else { return }
            Unmanaged<ThreadRegistry>.fromOpaque(data).takeUnretainedValue().removed(id)
        }
        let events = EventsTable(table)
        self.events = events
        _ = cpw_registry_add_listener(proxy, hook.pointer, events.pointer, Unmanaged.passUnretained(self).toOpaque())
        hook.attached()
    }

    /// Before the core goes (the thread stopped or its lock held).
    func close() {
        observers = [:]
        hook.remove()
        pw_proxy_destroy(proxy)
    }

    /// Tells `observer` every event from now on, until `stopObserving`;
    /// on the thread or under its lock.
    func observe(by owner: AnyObject, _ observer: @escaping (Event) -> Void) {
        observers[ObjectIdentifier(owner)] = observer
    }

    func stopObserving(_ owner: AnyObject) { observers[ObjectIdentifier(owner)] = nil }

    /// Asks the daemon to destroy a global (a link the guard refuses).
    func destroy(_ id: UInt32) { _ = cpw_registry_destroy(proxy, id) }

    private func tell(_ event: Event) {
        for observer in observers.values { observer(event) }
    }

    private func global(id: UInt32, type: UnsafePointer<CChar>, props: UnsafePointer<spa_dict>?) {
        func string(_ key: String) -> String? { spa_dict_lookup(props, key).map { String(cString: $0) } }
        if strcmp(type, InterfaceType.node) == 0 {
            var kept: [String: String] = [:]
            for key in Self.nodeKeys { kept[key] = string(key) }
            graph.nodes[id] = Graph.Node(id: id, props: kept, hasInfo: false)
        } else if strcmp(type, InterfaceType.port) == 0 {
            guard let port = Graph.Port(id: id, registryProperty: string) else { return }
            graph.ports[id] = port
            tell(.port(port))
        } else if strcmp(type, InterfaceType.link) == 0 {
            guard let link = Graph.Link(id: id, registryProperty: string) else { return }
            graph.links[id] = link
            tell(.link(link, creator: string("client.id").flatMap(UInt32.init)))
        }
    }

    private func removed(_ id: UInt32) {
        if graph.nodes.removeValue(forKey: id) != nil {
            tell(.nodeRemoved(id))
        } else if let port = graph.ports.removeValue(forKey: id) {
            tell(.portRemoved(port))
        } else if let link = graph.links.removeValue(forKey: id) {
            tell(.linkRemoved(link))
        }
    }
}
