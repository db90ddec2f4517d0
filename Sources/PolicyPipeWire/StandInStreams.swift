import CPipeWire
import PolicyCore
#if canImport(Glibc)
import Glibc
#endif
import PolicyFiles

/// Sets WirePlumber's saved `volume` of stream-state keys back to 1 where it
/// takes no `route-settings` correction (0.5 for every key but the event
/// sounds'): the one thing that changes what it saved is a stream of that
/// key changing its Props (docs/POLICY.md, "WirePlumber's memory"). So for
/// each key the daemon creates a stand-in node of the agent's — a
/// never-linked null sink classed as that stream with that key's property
/// (`WirePlumberStreamState.standInProperties`) — and the agent sets its
/// Props as `StandInProgress` says until it is content; then, after a round
/// trip through WirePlumber, the node goes.
public final class StandInStreams {
    private let actions: GraphActions
    private var mirror: GraphMirror { actions.mirror }
    /// How many stand-ins this process made: names each one uniquely.
    private var created = 0

    public init(actions: GraphActions) { self.actions = actions }

    /// Resets every key at once, running the loop until done or `timeout`
    /// (for shutdown); returns the keys reset.
    public func reset(_ keys: [String: WirePlumberStreamState.UserVolumes], timeout: Double = 3) -> Set<String> {
        var standIns = keys.sorted { $0.key < $1.key }.compactMap { makeStandIn(key: $0.key, user: $0.value) }
        let deadline = MonotonicClock.now + timeout
        mirror.connection.loop.run(timeout: timeout) {
            standIns = standIns.map(self.look)
            let now = MonotonicClock.now
            return standIns.allSatisfy { $0.progress.isKept(now: now) }
        }
        let now = MonotonicClock.now
        let done = Set(standIns.filter { $0.progress.isKept(now: now) }.map(\.progress.key))
        // WirePlumber saves after reading the node's params again (a round
        // trip of its own): two round trips through a metadata it
        // implements put our destroy behind that.
        if !standIns.isEmpty { syncWithWirePlumber(until: deadline + 1) }
        return done
    }

    private func makeStandIn(key: String, user: WirePlumberStreamState.UserVolumes) -> StandIn? {
        created += 1
        guard let props = WirePlumberStreamState.standInProperties(for: key, channels: user.channelVolumes.count) else { return nil }
        return StandIn(core: mirror.connection.core, props: props, marker: "stand-in \(getpid())-\(created)",
                       progress: StandInProgress(key: key, user: user, createdAt: MonotonicClock.now))
    }

    /// One look at a stand-in, and what `StandInProgress` says to do.
    private func look(_ standIn: StandIn) -> StandIn {
        let id = standIn.id(in: mirror.graph)
        switch standIn.progress.looked(at: id.flatMap { mirror.graph.nodes[$0] }, now: MonotonicClock.now) {
        case .wait:
            return standIn
        case .send:
            let user = standIn.progress.user
            _ = id.flatMap { mirror.nodeObserver($0) }?.setVolumes(1, mute: user.mute, channelVolumes: user.channelVolumes)
            return standIn
        case .replace:
            return makeStandIn(key: standIn.progress.key, user: standIn.progress.user) ?? standIn
        }
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
    var progress: StandInProgress
    private let proxy: OpaquePointer
    private let marker: String

    init?(core: OpaquePointer, props: [String: String], marker: String, progress: StandInProgress) {
        var props = props
        props["factory.name"] = "support.null-audio-sink"
        props["object.linger"] = "false"
        // Tells this node from the other stand-ins in the mirror.
        props[Graph.Node.agentsOwnKey] = marker
        self.marker = marker
        self.progress = progress
        let raw = withDictionary(props) { cpw_core_create_object(core, "adapter", InterfaceType.node, InterfaceType.version, $0) }
        guard let raw else { return nil }
        proxy = OpaquePointer(raw)
    }

    func id(in graph: Graph) -> UInt32? {
        graph.nodes.values.first { $0.props[Graph.Node.agentsOwnKey] == marker }?.id
    }

    deinit { pw_proxy_destroy(proxy) }
}
