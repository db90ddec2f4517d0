import CPipeWire
import PolicyCore
#if canImport(Glibc)
import Glibc
#endif

/// Sets WirePlumber's saved `volume` of stream-state keys back to 1 where it
/// takes no `route-settings` correction (0.5 for every key but the event
/// sounds'): the one thing that changes what it saved is a stream of that
/// key changing its Props (docs/POLICY.md, "WirePlumber's memory"). So for
/// each key the daemon creates a stand-in node of the agent's — a
/// never-linked null sink classed as that stream with that key's property
/// (`WirePlumberStreamState.standInProperties`) —, WirePlumber gives it the
/// saved values, the agent sets its `volume` to 1, WirePlumber saves that
/// with the user's channel volumes and mute as they were, and the node goes.
final class StandInStreams {
    private let actions: GraphActions
    private var mirror: GraphMirror { actions.mirror }
    /// How many stand-ins this process made: names each one uniquely.
    private var created = 0

    init(actions: GraphActions) { self.actions = actions }

    /// Resets every key at once, running the loop until done or `timeout`
    /// (for shutdown); returns the keys reset, or found with nothing to reset.
    func reset(_ keys: [String: Int], timeout: Double = 3) -> Set<String> {
        var pending: [(key: String, node: StandIn)] = []
        for (key, channels) in keys.sorted(by: { $0.key < $1.key }) {
            created += 1
            guard let props = WirePlumberStreamState.standInProperties(for: key, channels: channels),
                  let node = StandIn(core: mirror.connection.core, props: props, marker: "stand-in \(getpid())-\(created)")
            else { continue }
            pending.append((key, node))
        }
        let loop = mirror.connection.loop
        let deadline = MonotonicClock.now + timeout
        // WirePlumber restores the saved values when it sees the node; a
        // saved volume other than 1 shows as a Props change. One that shows
        // none within `restoreWait` had nothing to reset.
        let restoreWait = min(1.0, timeout / 2)
        loop.run(timeout: restoreWait) { pending.allSatisfy { self.restored($0.node) } }
        var done = Set<String>()
        var setting: [(key: String, node: StandIn, id: UInt32)] = []
        for (key, node) in pending {
            guard let id = node.id(in: mirror.graph), let volume = mirror.graph.nodes[id]?.volume else { continue }
            if ReconcilePlanner.reports(volume, 1) {
                done.insert(key)
            } else if (try? actions.setVolume(node: id, to: 1)) != nil {
                setting.append((key, node, id))
            }
        }
        loop.run(timeout: max(0, deadline - MonotonicClock.now)) {
            setting.allSatisfy { self.mirror.graph.nodes[$0.id]?.volume.map { ReconcilePlanner.reports($0, 1) } == true }
        }
        for entry in setting where mirror.graph.nodes[entry.id]?.volume.map({ ReconcilePlanner.reports($0, 1) }) == true {
            done.insert(entry.key)
        }
        // WirePlumber saves after reading the node's params again (a round
        // trip of its own): two round trips through a metadata it
        // implements put our destroy behind that, then the nodes go.
        if !setting.isEmpty { syncWithWirePlumber(until: deadline) }
        return done
    }

    /// Whether WirePlumber has restored its saved values on the stand-in (its
    /// volume no longer the 1 it started with).
    private func restored(_ node: StandIn) -> Bool {
        guard let id = node.id(in: mirror.graph), let volume = mirror.graph.nodes[id]?.volume else { return false }
        return !ReconcilePlanner.reports(volume, 1)
    }

    private func syncWithWirePlumber(until deadline: Double) {
        let metadata = WirePlumberStreamState.routeSettings, key = "pw-policy.sync"
        for round in 0..<2 {
            let token = "\(MonotonicClock.now)-\(round)"
            guard (try? actions.setMetadata(named: metadata, subject: 0, key: key, type: nil, value: token)) != nil else { return }
            mirror.connection.loop.run(timeout: max(0, deadline - MonotonicClock.now)) {
                self.mirror.graph.metadata(named: metadata)?.value(subject: 0, key: key) == token
            }
        }
        try? actions.setMetadata(named: metadata, subject: 0, key: key, type: nil, value: nil)
        mirror.connection.roundTrip(timeout: max(0.1, deadline - MonotonicClock.now))
    }
}

/// One stand-in node: the daemon's adapter around a null sink, created for
/// this client (it goes when the proxy does, or when we disconnect).
private final class StandIn {
    private let proxy: OpaquePointer
    private let marker: String

    init?(core: OpaquePointer, props: [String: String], marker: String) {
        var props = props
        props["factory.name"] = "support.null-audio-sink"
        props["object.linger"] = "false"
        // Tells this node from the other stand-ins in the mirror.
        props[Graph.Node.agentsOwnKey] = marker
        self.marker = marker
        let raw = withDictionary(props) { cpw_core_create_object(core, "adapter", InterfaceType.node, InterfaceType.version, $0) }
        guard let raw else { return nil }
        proxy = OpaquePointer(raw)
    }

    func id(in graph: Graph) -> UInt32? {
        graph.nodes.values.first { $0.props[Graph.Node.agentsOwnKey] == marker }?.id
    }

    deinit { pw_proxy_destroy(proxy) }
}
