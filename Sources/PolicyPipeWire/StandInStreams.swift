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
/// Props to volume 1 with the user's channel volumes and mute saved there.
/// WirePlumber saves every Props change of a stream, the stand-in's own
/// defaults too (0.5.8 saved them before it restored anything on it), and
/// may restore its saved values on it meanwhile: the agent sets its values
/// again until the stand-in has reported them, and nothing else, for a
/// while; then, after a round trip through WirePlumber, the node goes.
public final class StandInStreams {
    private let actions: GraphActions
    private var mirror: GraphMirror { actions.mirror }
    /// How many stand-ins this process made: names each one uniquely.
    private var created = 0
    /// How long a stand-in must keep the user's values before it goes: longer
    /// than WirePlumber takes to restore saved values on a new node.
    static let settle = 0.3
    /// How often a stand-in that does not report them is sent them again.
    static let resend = 0.1
    /// How long a stand-in may go without reporting them before a new one
    /// takes its place.
    static let replaceAfter = 0.8

    public init(actions: GraphActions) { self.actions = actions }

    /// Resets every key at once, running the loop until done or `timeout`
    /// (for shutdown); returns the keys reset.
    public func reset(_ keys: [String: WirePlumberStreamState.UserVolumes], timeout: Double = 3) -> Set<String> {
        var standIns = keys.sorted { $0.key < $1.key }.compactMap { makeStandIn(key: $0.key, user: $0.value) }
        let deadline = MonotonicClock.now + timeout
        mirror.connection.loop.run(timeout: timeout) {
            standIns = standIns.compactMap { self.converge($0) ? $0 : self.replacingIfStuck($0) }
            return standIns.allSatisfy { $0.kept(for: Self.settle) }
        }
        let done = Set(standIns.filter { $0.kept(for: Self.settle) }.map(\.key))
        // WirePlumber saves after reading the node's params again (a round
        // trip of its own): two round trips through a metadata it
        // implements put our destroy behind that.
        if !standIns.isEmpty { syncWithWirePlumber(until: deadline + 1) }
        return done
    }

    private func makeStandIn(key: String, user: WirePlumberStreamState.UserVolumes) -> StandIn? {
        created += 1
        guard let props = WirePlumberStreamState.standInProperties(for: key, channels: user.channelVolumes.count) else { return nil }
        return StandIn(core: mirror.connection.core, props: props, marker: "stand-in \(getpid())-\(created)", key: key, user: user)
    }

    /// A stand-in that never takes the user's values is replaced by a new
    /// one: on WirePlumber 0.5.8 about one in five kept reporting its
    /// defaults through every resend, and WirePlumber saved those; a new
    /// node took the values at once (docs/POLICY.md, "WirePlumber's memory").
    private func replacingIfStuck(_ standIn: StandIn) -> StandIn? {
        guard standIn.keptSince == nil, MonotonicClock.now - standIn.createdAt >= Self.replaceAfter else { return standIn }
        return makeStandIn(key: standIn.key, user: standIn.user) ?? standIn
    }

    /// One look at a stand-in: whether it reports the user's values now;
    /// sends them (again) when it does not.
    private func converge(_ standIn: StandIn) -> Bool {
        let now = MonotonicClock.now
        guard let id = standIn.id(in: mirror.graph), let node = mirror.graph.nodes[id], node.volume != nil else { return false }
        if standIn.reports(node) {
            standIn.keptSince = standIn.keptSince ?? now
            return true
        }
        standIn.keptSince = nil
        if standIn.sentAt.map({ now - $0 >= Self.resend }) ?? true {
            standIn.sentAt = now
            _ = actions.mirror.nodeObserver(id)?.setVolumes(1, mute: standIn.user.mute, channelVolumes: standIn.user.channelVolumes)
        }
        return false
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
    let key: String
    let user: WirePlumberStreamState.UserVolumes
    /// Since when it has reported the user's values, and when we last sent them.
    var keptSince: Double?
    var sentAt: Double?
    let createdAt = MonotonicClock.now
    private let proxy: OpaquePointer
    private let marker: String

    init?(core: OpaquePointer, props: [String: String], marker: String, key: String,
          user: WirePlumberStreamState.UserVolumes) {
        var props = props
        props["factory.name"] = "support.null-audio-sink"
        props["object.linger"] = "false"
        // Tells this node from the other stand-ins in the mirror.
        props[Graph.Node.agentsOwnKey] = marker
        self.marker = marker
        self.key = key
        self.user = user
        let raw = withDictionary(props) { cpw_core_create_object(core, "adapter", InterfaceType.node, InterfaceType.version, $0) }
        guard let raw else { return nil }
        proxy = OpaquePointer(raw)
    }

    func id(in graph: Graph) -> UInt32? {
        graph.nodes.values.first { $0.props[Graph.Node.agentsOwnKey] == marker }?.id
    }

    /// Volume 1 and the user's values, exactly.
    func reports(_ node: Graph.Node) -> Bool {
        node.volume.map { ReconcilePlanner.reports($0, 1) } == true && (node.mute ?? false) == user.mute
            && node.channelVolumes == user.channelVolumes
    }

    func kept(for settle: Double) -> Bool {
        keptSince.map { MonotonicClock.now - $0 >= settle } == true
    }

    deinit { pw_proxy_destroy(proxy) }
}
