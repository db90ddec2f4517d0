import CPipeWire
import PolicyCore

/// Keeps a `Graph` value equal to the daemon's object graph, from registry
/// globals and the info/param events of the objects it binds. Everything runs
/// on the connection's loop.
public final class GraphMirror {
    public let connection: Connection
    public private(set) var graph = Graph()
    /// True once the first two round trips finished: every global existing at
    /// connect time is in `graph`, with the info and params of bound objects.
    public private(set) var isInitialSyncComplete = false
    /// Called after every change to `graph`. Coalesce work in the receiver.
    public var onChange: (() -> Void)?
    /// Called once when the initial sync completes.
    public var onInitialSync: (() -> Void)?
    /// Called for every change, before `onChange`, with the object it
    /// concerns: for clients that follow single objects (the benchmark's
    /// observer timestamps them) without comparing whole graphs.
    public var onObjectChange: ((ObjectChange) -> Void)?
    /// Called when a link global goes, before `onObjectChange`: the actions
    /// drop their proxy of a link they created.
    var onLinkRemoved: ((UInt32) -> Void)?

    /// Which object changed, and how.
    public enum ObjectChange: Sendable, Equatable {
        /// A global of a mirrored type appeared (it is in `graph` already).
        case added(UInt32)
        /// A global went away (it is no longer in `graph`).
        case removed(UInt32)
        /// Info of a node, client or device (props, state), or a device
        /// route; `info(0)`: the daemon's core info (`graph.core`).
        case info(UInt32)
        /// A node's Props param (volume, channelVolumes, mute).
        case props(UInt32)
        /// A link's state.
        case linkState(UInt32, from: Graph.LinkState, to: Graph.LinkState)
        /// An entry of a metadata object; key nil: every key of the subject.
        case metadata(UInt32, subject: UInt32, key: String?)
    }

    let registry: OpaquePointer
    private let registryHook = Hook()
    private var registryEvents: EventsTable<pw_registry_events>?
    private var nodeObservers: [UInt32: NodeObserver] = [:]
    private var deviceObservers: [UInt32: DeviceObserver] = [:]
    private var clientObservers: [UInt32: ClientObserver] = [:]
    private var linkObservers: [UInt32: LinkObserver] = [:]
    private var metadataObservers: [UInt32: MetadataObserver] = [:]
    /// The interfaces of the metadata we export ourselves, by name.
    private var exportedMetadata: [String: OpaquePointer] = [:]

    public init(connection: Connection) {
        self.connection = connection
        registry = cpw_core_get_registry(connection.core)
        var table = pw_registry_events()
        table.version = UInt32(PW_VERSION_REGISTRY_EVENTS)
        table.global = { data, id, _, type, _, props in
            guard let data, let type else { return }
            let me = Unmanaged<GraphMirror>.fromOpaque(data).takeUnretainedValue()
            me.global(id: id, type: String(cString: type), props: copyDictionary(props))
        }
        table.global_remove = { data, id in
            guard let data else { return }
            Unmanaged<GraphMirror>.fromOpaque(data).takeUnretainedValue().globalRemoved(id: id)
        }
        let tableRef = EventsTable(table)
        registryEvents = tableRef
        _ = cpw_registry_add_listener(registry, registryHook.pointer, tableRef.pointer,
                                      Unmanaged.passUnretained(self).toOpaque())
        registryHook.attached()
        graph.core = connection.coreInfo
        connection.onCoreInfo = { [weak self] core in
            self?.graph.core = core
            self?.changed(.info(UInt32(PW_ID_CORE)))
        }
        // First round trip: all globals announced and bound. Second: the
        // info and params those binds asked for have arrived.
        connection.sync { [weak self] in
            self?.connection.sync { [weak self] in
                guard let self else { return }
                self.isInitialSyncComplete = true
                self.onInitialSync?()
                self.onChange?()
            }
        }
    }

    deinit {
        registryHook.remove()
        nodeObservers.removeAll()
        deviceObservers.removeAll()
        clientObservers.removeAll()
        linkObservers.removeAll()
        metadataObservers.removeAll()
        pw_proxy_destroy(registry)
    }

    /// Round trips until the daemon has finished every metadata bind we
    /// sent, before this client goes away. PipeWire 0.3.65 never forgets the
    /// bind of an exported metadata whose client left before the exporter
    /// answered the bind's ping, and from then on sends that metadata's
    /// changes to no settled client. A bind goes out as soon as a global
    /// arrives, so this repeats until a round trip brings no new metadata.
    public func finishMetadataBinds(roundTripTimeout: Double = 1) {
        var known = Set(graph.metadata.keys)
        for _ in 0..<5 {
            guard connection.roundTrip(timeout: roundTripTimeout) else { return }
            let now = Set(graph.metadata.keys)
            if now.isSubset(of: known) { return }
            known.formUnion(now)
        }
    }

    /// Iterates the loop until the initial state is complete.
    @discardableResult
    public func waitForInitialSync(timeout: Double = 5) -> Bool {
        connection.loop.run(timeout: timeout) { isInitialSyncComplete || !connection.isConnected }
            && isInitialSyncComplete
    }

    // MARK: registry events

    private func global(id: UInt32, type: String, props: [String: String]) {
        switch type {
        case InterfaceType.node:
            // Only some props come with the global; the stream is classified
            // once its info brings the rest (see Graph.Node.hasInfo).
            graph.nodes[id] = Graph.Node(id: id, props: props, hasInfo: false)
            nodeObservers[id] = NodeObserver(mirror: self, id: id)
        case InterfaceType.port:
            guard var port = Graph.Port(id: id, registryProperty: { props[$0] }) else { return }
            port.props = props
            graph.ports[id] = port
        case InterfaceType.link:
            guard let link = Graph.Link(id: id, registryProperty: { props[$0] }) else { return }
            graph.links[id] = link
            linkObservers[id] = LinkObserver(mirror: self, id: id)
        case InterfaceType.client:
            graph.clients[id] = Graph.Client(id: id, props: props)
            clientObservers[id] = ClientObserver(mirror: self, id: id)
        case InterfaceType.device:
            graph.devices[id] = Graph.Device(id: id, props: props)
            deviceObservers[id] = DeviceObserver(mirror: self, id: id)
        case InterfaceType.metadata:
            let name = props["metadata.name"] ?? ""
            graph.metadata[id] = Graph.Metadata(id: id, name: name)
            metadataObservers[id] = MetadataObserver(mirror: self, id: id, implementation: exportedMetadata[name])
        default:
            return
        }
        changed(.added(id))
    }

    private func globalRemoved(id: UInt32) {
        var removed = false
        if graph.nodes.removeValue(forKey: id) != nil { nodeObservers[id] = nil; removed = true }
        if graph.ports.removeValue(forKey: id) != nil { removed = true }
        if graph.links.removeValue(forKey: id) != nil { linkObservers[id] = nil; onLinkRemoved?(id); removed = true }
        if graph.clients.removeValue(forKey: id) != nil { clientObservers[id] = nil; removed = true }
        if graph.devices.removeValue(forKey: id) != nil { deviceObservers[id] = nil; removed = true }
        if graph.metadata.removeValue(forKey: id) != nil { metadataObservers[id] = nil; removed = true }
        if removed { changed(.removed(id)) }
    }

    // MARK: object events

    func nodeInfo(id: UInt32, props: [String: String]?, state: Graph.NodeState?) {
        guard var node = graph.nodes[id] else { return }
        if let props { node.props = props }
        if let state { node.state = state }
        node.hasInfo = true
        if store(&graph.nodes[id], node) { changed(.info(id)) }
    }

    func nodeProps(id: UInt32, volume: Float?, channelVolumes: [Float], mute: Bool?) {
        guard var node = graph.nodes[id] else { return }
        node.volume = volume
        node.channelVolumes = channelVolumes
        node.mute = mute
        node.propsReports += 1
        if store(&graph.nodes[id], node) { changed(.props(id)) }
    }

    func deviceInfo(id: UInt32, props: [String: String]) {
        guard var device = graph.devices[id] else { return }
        device.props = props
        if store(&graph.devices[id], device) { changed(.info(id)) }
    }

    func deviceRoute(id: UInt32, route: Graph.Route) {
        guard var device = graph.devices[id] else { return }
        // Each card device has at most one active route per direction.
        device.routes.removeAll { $0.device == route.device && $0.direction == route.direction }
        device.routes.append(route)
        device.routes.sort { ($0.device, $0.index) < ($1.device, $1.index) }
        if store(&graph.devices[id], device) { changed(.info(id)) }
    }

    /// Replaces the device's active routes (`\.routes`) or its ports
    /// (`\.ports`) with the complete list of an enumeration.
    func deviceRoutes(id: UInt32, _ list: WritableKeyPath<Graph.Device, [Graph.Route]>, _ routes: [Graph.Route]) {
        guard var device = graph.devices[id] else { return }
        device[keyPath: list] = routes.sorted { ($0.device, $0.index) < ($1.device, $1.index) }
        if store(&graph.devices[id], device) { changed(.info(id)) }
    }

    func clientInfo(id: UInt32, props: [String: String]) {
        guard var client = graph.clients[id] else { return }
        client.props = props
        if store(&graph.clients[id], client) { changed(.info(id)) }
    }

    func linkState(id: UInt32, state: Graph.LinkState) {
        guard var link = graph.links[id] else { return }
        let before = link.state
        link.state = state
        if store(&graph.links[id], link) { changed(.linkState(id, from: before, to: state)) }
    }

    func metadataProperty(id: UInt32, _ change: MetadataChange) {
        guard graph.metadata[id] != nil else { return }
        // In place: a copy of the entries per event would make publishing
        // every stream's status quadratic in the number of streams.
        if Self.apply(change, to: &graph.metadata[id]!.entries) { changed(.metadata(id, subject: change.subject, key: change.key)) }
    }

    /// The global named `name` is one we export: it is observed through
    /// this interface of our own (BoundProxy), like any other metadata.
    func exported(metadata interface: OpaquePointer, named name: String) {
        exportedMetadata[name] = interface
    }

    /// Applies `change`; true when the entries differ afterwards.
    private static func apply(_ change: MetadataChange, to entries: inout [UInt32: [String: Graph.MetadataEntry]]) -> Bool {
        let subject = change.subject
        guard let key = change.key else {
            // A NULL key clears every key of the subject.
            return entries.removeValue(forKey: subject) != nil
        }
        if let value = change.value {
            let entry = Graph.MetadataEntry(subject: subject, key: key, type: change.type, value: value)
            return entries[subject, default: [:]].updateValue(entry, forKey: key) != entry
        }
        guard entries[subject]?.removeValue(forKey: key) != nil else { return false }
        if entries[subject]?.isEmpty == true { entries[subject] = nil }
        return true
    }

    /// Stores `value`; true when it differed. Callers notify after the write
    /// ends, so `onChange` may read `graph`.
    private func store<T: Equatable>(_ slot: inout T?, _ value: T) -> Bool {
        guard slot != value else { return false }
        slot = value
        return true
    }

    private func changed(_ change: ObjectChange) {
        onObjectChange?(change)
        onChange?()
    }

    // MARK: access for actions

    func nodeObserver(_ id: UInt32) -> NodeObserver? { nodeObservers[id] }
    func metadataObserver(named name: String) -> MetadataObserver? {
        graph.metadata(named: name).flatMap { metadataObservers[$0.id] }
    }
}
