/// Which new links the agent refuses the moment they appear: those that
/// would carry a playback stream's first samples before its policy gain is
/// in force (docs/POLICY.md, "The first sample").
///
/// A client may write its own Props `volume` when its stream starts —
/// `pw-play` writes its `--volume` on its first `STREAMING` — over the gain
/// the agent set while the stream waited; by the time the agent hears of
/// it and corrects it, the sink has played it. So a stream that must start
/// below full gain is kept from its output until it has been started once
/// while unlinked (`AgentAction.prime`): WirePlumber's links of it are
/// destroyed as they appear, before they carry anything, and the agent
/// links it itself after the prime. Deciding takes a reconcile, and
/// WirePlumber may link a new stream before that; so while some newcomer
/// might have to start quiet (`armed`), the links of every playback stream
/// newer than the last judged one are refused too, and streams that turn
/// out to play at full gain are linked back at once.
///
/// The adapter asks `refuses(stream:serial:)` for every link global, in the
/// registry's callback of a connection of its own: a reconcile on the
/// agent's loop would be late (LinkGuard).
public struct StartGate: Sendable, Equatable {
    /// Streams (node ids) whose links are refused until they pass.
    public var gated: Set<UInt32>
    /// Some newcomer might have to start below full gain
    /// (`PolicyDecision.newcomersMayStartQuiet`).
    public var armed: Bool
    /// The highest `object.serial` of the streams the last reconcile judged:
    /// a playback stream above it has not been judged yet.
    public var judgedThrough: UInt64
    /// While armed only by the sessions of one app, that app's clients: its
    /// new streams are not refused — its own sessions never quiet them, and
    /// a call's app opening a new stream (Chromium moves a page's audio to
    /// a new one) must not be kept from the call.
    public var exemptClients: Set<UInt32>

    /// Where one stream stands at the gate (`AppliedStream.startGate`).
    public enum Progress: String, Sendable, Equatable, Codable {
        /// Its client was started while nothing linked it (a link of
        /// WirePlumber's refused too late to stop the start): whatever it
        /// writes then is written, and what the agent sends from now on
        /// comes after it. Kept until the agent links it, its gain first.
        case started
        /// Nothing to keep: the agent linked it with its gain in force, it
        /// ran linked, or the agent first saw it linked by someone else (a
        /// stream it did not see open: its start is its app's business).
        case passed
    }

    public init(gated: Set<UInt32> = [], armed: Bool = false, judgedThrough: UInt64 = 0, exemptClients: Set<UInt32> = []) {
        self.gated = gated; self.armed = armed; self.judgedThrough = judgedThrough; self.exemptClients = exemptClients
    }

    /// Refuses nothing: before the first decision, and while restoring.
    public static let open = StartGate()

    /// The streams the gate may keep: playback streams of others that
    /// WirePlumber links. One that asks not to be linked
    /// (`node.autoconnect = false`: JACK clients, apps that link themselves)
    /// is linked by its app or its user, never refused.
    public static func applies(to node: Graph.Node) -> Bool {
        node.streamDirection == .playback && !node.isAgentsOwn && node.props["node.autoconnect"] != "false"
    }

    /// Whether the links of playback stream `id` (`object.serial` `serial`)
    /// into anything but a capture stream are to be destroyed now, before
    /// they carry a sample.
    public func refuses(stream id: UInt32, serial: UInt64?, client: UInt32? = nil) -> Bool {
        guard !gated.contains(id) else { return true }
        guard armed, (serial ?? 0) > judgedThrough else { return false }
        return client.map { !exemptClients.contains($0) } ?? true
    }

    public var isOpen: Bool { !armed && gated.isEmpty }

    /// The gate after a reconcile: `gated` from the plan; every stream of
    /// the graph it saw counts as seen, and while armed those not judged yet
    /// (their info has not arrived, so they were not classified) are gated
    /// by id. Capping `judgedThrough` below them instead would refuse the
    /// agent's own links of the later streams it did judge, over and over,
    /// while a burst of new streams keeps some without info.
    static func after(_ plan: ReconcilePlanner.Plan, graph: Graph, quieting: NewcomerQuieting,
                      classified: [UInt32: ClassifiedStream]) -> StartGate {
        let armed = quieting != .nobody
        var gated = plan.gated, seen: UInt64 = 0
        for node in graph.streams {
            guard let serial = node.serial else { continue }
            seen = max(seen, serial)
            if armed, !node.hasInfo, applies(to: node) { gated.insert(node.id) }
        }
        var exempt = Set<UInt32>()
        if case .streamsNotOf(let apps) = quieting, apps.count == 1, let app = apps.first {
            for (id, stream) in classified where stream.session.app == app {
                if let client = graph.nodes[id]?.clientID { exempt.insert(client) }
            }
        }
        return StartGate(gated: gated, armed: armed, judgedThrough: seen, exemptClients: exempt)
    }
}
