import CPipeWire
import PolicyCore
#if canImport(Glibc)
import Glibc
#endif

public enum ActionError: Error, Equatable, CustomStringConvertible {
    case noSuchObject(UInt32)
    case noSuchMetadata(String)
    case noPortsToLink(output: UInt32, input: UInt32)
    case failed(String, code: Int32)

    public var description: String {
        switch self {
        case .noSuchObject(let id): "no object with id \(id)"
        case .noSuchMetadata(let name): "no metadata named '\(name)'"
        case .noPortsToLink(let output, let input): "no matching ports to link node \(output) to node \(input)"
        case .failed(let what, let code): "\(what) failed: \(String(cString: strerror(-code)))"
        }
    }
}

/// The only ways this program changes the graph. Each is one request to the
/// daemon; results show up in the mirror like anyone else's changes.
public final class GraphActions {
    public let mirror: GraphMirror
    private var connection: Connection { mirror.connection }
    /// Links we created: a link-factory link lives as long as its proxy.
    /// A link someone else removes (WirePlumber, a stream closing) leaves its
    /// proxy behind until we destroy it, so each one is dropped when the
    /// daemon says the link is gone (docs/POLICY.md, "Links the agent
    /// creates"): this holds only links that still exist.
    private var createdLinks: [CreatedLink] = [] {
        didSet { if createdLinks.count != oldValue.count { onCreatedLinksChange?(createdLinks.count) } }
    }
    private var exportedMetadata: [String: ExportedMetadata] = [:]

    /// How many link proxies we hold: the links we created that still exist
    /// (or are still being created).
    public var createdLinkCount: Int { createdLinks.count }
    /// Called with `createdLinkCount` whenever it changes (the agent logs it
    /// at debug level; the integration tests read that line).
    public var onCreatedLinksChange: ((Int) -> Void)?

    public init(mirror: GraphMirror) {
        self.mirror = mirror
        // Weak: a command's actions can go before the mirror it watches
        // (the CLI writes a request, then waits on the mirror alone).
        mirror.onLinkRemoved = { [weak self] id in self?.linkRemoved(id) }
    }

    deinit {
        createdLinks.removeAll()
        exportedMetadata.removeAll()
    }

    /// Sets a node's Props `volume`, the policy gain, and nothing else.
    public func setVolume(node: UInt32, to volume: Float) throws(ActionError) {
        guard let observer = mirror.nodeObserver(node) else { throw .noSuchObject(node) }
        let result = observer.setVolume(volume)
        if result < 0 { throw .failed("setting volume of node \(node)", code: result) }
    }

    /// The same as a native ramp run by the node's client (FadePacing in the core).
    public func rampVolume(node: UInt32, to volume: Float, milliseconds: Int, stepFrames: Int) throws(ActionError) {
        guard let observer = mirror.nodeObserver(node) else { throw .noSuchObject(node) }
        let result = observer.rampVolume(to: volume, milliseconds: Int32(clamping: milliseconds), stepFrames: Int32(clamping: stepFrames))
        if result < 0 { throw .failed("ramping volume of node \(node)", code: result) }
    }

    /// Suspends a node: the daemon deactivates its links, clears its
    /// format and reports it `suspended`, and the client's stream stops
    /// asking for data, so the app's clock stops, `node.always-process`
    /// or not. A stream still linked is started again at once: unlink it
    /// first. Linking it again starts it; `start` is not needed, and on a
    /// suspended stream it restarts the client unseen (docs/HOLDS.md).
    public func suspend(node: UInt32) throws(ActionError) {
        try send(SPA_NODE_COMMAND_Suspend, "suspending", to: node)
    }

    /// Pauses a node: the command goes to the client, whose stream stops
    /// asking for data while the daemon still reports it `running`
    /// (docs/HOLDS.md says why the agent prefers `suspend`).
    public func pause(node: UInt32) throws(ActionError) {
        try send(SPA_NODE_COMMAND_Pause, "pausing", to: node)
    }

    /// Sends a node the command Start, which undoes `pause`. The daemon
    /// passes it to the client without changing the state it reports
    /// (docs/HOLDS.md).
    public func start(node: UInt32) throws(ActionError) {
        try send(SPA_NODE_COMMAND_Start, "starting", to: node)
    }

    /// Starts an unlinked stream once and sets its gain right after, both
    /// through the node's proxy: the daemon hands them to the client in this
    /// order, and a link made after them only later. A client that writes
    /// its own volume when its stream starts writes it now, with nothing
    /// linked, and the gain that follows is what its first linked sample
    /// gets (StartGate; docs/POLICY.md, "The first sample").
    public func prime(node: UInt32, gain: Float) throws(ActionError) {
        try start(node: node)
        try setVolume(node: node, to: gain)
    }

    private func send(_ command: spa_node_command, _ what: String, to node: UInt32) throws(ActionError) {
        guard let observer = mirror.nodeObserver(node) else { throw .noSuchObject(node) }
        let result = observer.send(command: command.rawValue)
        if result < 0 { throw .failed("\(what) node \(node)", code: result) }
    }

    /// Links the output ports of `output` to the input ports of `input` with
    /// matching channels (a mono side links to every channel of the other).
    /// The links live until this client disconnects,
    /// unless `linger`: then they outlive us, like WirePlumber's own links.
    public func link(output: UInt32, to input: UInt32, linger: Bool = false) throws(ActionError) {
        let pairs = mirror.graph.portPairs(output: output, input: input)
        guard !pairs.isEmpty else { throw .noPortsToLink(output: output, input: input) }
        for (outputPort, inputPort) in pairs {
            let properties = [
                "link.output.node": String(output), "link.output.port": String(outputPort),
                "link.input.node": String(input), "link.input.port": String(inputPort),
                "object.linger": linger ? "true" : "false",
            ]
            let raw = withDictionary(properties) { props in
                cpw_core_create_object(connection.core, "link-factory", InterfaceType.link, InterfaceType.version, props)
            }
            guard let raw else { throw .failed("creating a link from node \(output) to \(input)", code: -EIO) }
            let created = CreatedLink(proxy: OpaquePointer(raw), output: output, input: input)
            created.onGone = { [unowned self] gone in self.createdLinks.removeAll { $0 === gone } }
            createdLinks.append(created)
        }
    }

    /// The registry removed link global `id`: if it is one of ours, its
    /// proxy goes too. (The proxy's own `removed` event normally comes
    /// first; this covers a proxy whose removal we did not hear of.)
    /// A destroy we asked for is done: the id may be reused at once, by
    /// WirePlumber relinking the same ports, and that new link (same id,
    /// same endpoints) must be destroyed too — a held stream's relink was
    /// left alone when the request was still marked in flight.
    private func linkRemoved(_ id: UInt32) {
        createdLinks.removeAll { $0.boundID == id }
        destroying[id] = nil
    }

    /// Links we asked the daemon to destroy that the mirror still shows.
    /// (An id can be reused: the endpoints tell a new link from the old one.)
    private var destroying: [UInt32: [UInt32]] = [:]

    /// Destroys a link, whoever created it (once: a request still in flight
    /// is not repeated).
    public func destroy(link: UInt32) throws(ActionError) {
        func endpoints(_ id: UInt32) -> [UInt32]? {
            mirror.graph.links[id].map { [$0.outputNode, $0.outputPort, $0.inputNode, $0.inputPort] }
        }
        destroying = destroying.filter { endpoints($0.key) == $0.value }
        guard let current = endpoints(link) else { throw .noSuchObject(link) }
        guard destroying[link] == nil else { return }
        destroying[link] = current
        createdLinks.removeAll { $0.boundID == link }
        let result = cpw_registry_destroy(mirror.registry, link)
        if result < 0 { throw .failed("destroying link \(link)", code: result) }
    }

    /// Sets `key` of `subject` in the metadata object named `name` (ours or
    /// anyone's); a nil value removes the key.
    public func setMetadata(named name: String, subject: UInt32, key: String, type: String?, value: String?) throws(ActionError) {
        guard let observer = mirror.metadataObserver(named: name) else { throw .noSuchMetadata(name) }
        let result = observer.set(subject: subject, key: key, type: type, value: value)
        if result < 0 { throw .failed("setting metadata \(key)", code: result) }
    }

    /// The core's metadata write, as it names it.
    public func setMetadata(_ write: MetadataWrite) throws(ActionError) {
        try setMetadata(named: write.metadata, subject: write.subject, key: write.key, type: write.type, value: write.value)
    }

    /// Creates a metadata object named `name` implemented in this process and
    /// exports it, as WirePlumber does for "default": other clients read and
    /// write it (`pw-metadata -n name`). It lives as long as this client, so
    /// when the agent goes, so does the state it published.
    public func exportMetadata(named name: String) throws(ActionError) {
        guard exportedMetadata[name] == nil else { return }
        guard let exported = ExportedMetadata(connection: connection, name: name) else {
            throw .failed("exporting metadata '\(name)'", code: -EIO)
        }
        exportedMetadata[name] = exported
        mirror.exported(metadata: exported.interface, named: name)
    }
}

/// A metadata implementation living in our context, exported to the daemon.
/// The mirror observes it and the actions change it through `interface`,
/// as they do any other metadata.
private final class ExportedMetadata {
    let implementation: OpaquePointer  // struct pw_impl_metadata *
    let proxy: OpaquePointer

    init?(connection: Connection, name: String) {
        guard let implementation = pw_context_create_metadata(connection.context, name, nil, 0) else { return nil }
        guard let exportCore = try? connection.exportingCore() else {
            pw_impl_metadata_destroy(implementation)
            return nil
        }
        let raw = withDictionary(["metadata.name": name]) { props in
            pw_core_export(exportCore, InterfaceType.metadata, props,
                           UnsafeMutableRawPointer(pw_impl_metadata_get_implementation(implementation)), 0)
        }
        guard let raw else {
            pw_impl_metadata_destroy(implementation)
            return nil
        }
        self.implementation = implementation
        self.proxy = raw
    }

    /// Its `struct pw_metadata *`: what a bound proxy would be.
    var interface: OpaquePointer { pw_impl_metadata_get_implementation(implementation) }

    deinit {
        pw_proxy_destroy(proxy)
        pw_impl_metadata_destroy(implementation)
    }
}

/// A link-factory link owned by us: destroying the proxy destroys the link
/// (unless it lingers). The proxy's events tell when the link is gone
/// without us: `removed` when the daemon destroyed it (someone removed the
/// link, or its node went), `destroy` when libpipewire freed the proxy itself
/// (the core disconnected). Either calls `onGone`, which drops this object.
final class CreatedLink {
    let proxy: OpaquePointer
    let output: UInt32
    let input: UInt32
    /// Set once libpipewire has freed the proxy: it must not be destroyed again.
    private var isFreed = false
    private let hook = Hook()
    private var events: EventsTable<pw_proxy_events>?
    var onGone: ((CreatedLink) -> Void)?

    init(proxy: OpaquePointer, output: UInt32, input: UInt32) {
        self.proxy = proxy; self.output = output; self.input = input
        var table = pw_proxy_events()
        table.version = UInt32(PW_VERSION_PROXY_EVENTS)
        table.removed = { data in
            guard let data else { return }
            let me = Unmanaged<CreatedLink>.fromOpaque(data).takeUnretainedValue()
            // The link is gone already: only our proxy is left to free
            // (pw_proxy_destroy in deinit, as proxy.h says for `removed`),
            // never pw_registry_destroy.
            me.onGone?(me)
        }
        table.destroy = { data in
            guard let data else { return }
            let me = Unmanaged<CreatedLink>.fromOpaque(data).takeUnretainedValue()
            me.hook.remove()
            me.isFreed = true
            me.onGone?(me)
        }
        let tableRef = EventsTable(table)
        events = tableRef
        pw_proxy_add_listener(proxy, hook.pointer, tableRef.pointer, Unmanaged.passUnretained(self).toOpaque())
        hook.attached()
    }

    var boundID: UInt32 { isFreed ? UInt32.max : pw_proxy_get_bound_id(proxy) }

    /// A link-factory link from one port to another, ours, gone with this
    /// object or with the connection of `core` (not lingering), with
    /// `properties` added. On a thread connection's core: on its thread or
    /// under its lock.
    static func make(on core: OpaquePointer, output: Graph.Port, input: Graph.Port,
                     properties: [String: String] = [:]) -> CreatedLink? {
        let all = properties.merging([
            "link.output.node": String(output.nodeID), "link.output.port": String(output.id),
            "link.input.node": String(input.nodeID), "link.input.port": String(input.id), "object.linger": "false",
        ]) { $1 }
        let raw = withDictionary(all) { props in
            cpw_core_create_object(core, "link-factory", InterfaceType.link, InterfaceType.version, props)
        }
        return raw.map { CreatedLink(proxy: OpaquePointer($0), output: output.nodeID, input: input.nodeID) }
    }

    deinit {
        hook.remove()
        if !isFreed { pw_proxy_destroy(proxy) }
    }
}
