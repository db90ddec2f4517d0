/// What WirePlumber's role policy does to each role loopback's streams now,
/// worked out from the links as `linking/rescan-media-role-links.lua` works
/// it out from its own (docs/POLICY.md, "Beside WirePlumber's role policy"):
/// of the loopbacks streams play into, the one of the highest
/// `policy.role-based.priority` leads (WirePlumber's "priority media role
/// link"; between equals, the one with the newest link: the stream plugged
/// last); every other loopback gets the leader's
/// `policy.role-based.action.lower-priority` (or `.same-priority` when its
/// priority is the leader's): mix, duck (its playing side's volume to
/// `linking.role-based.duck-level`) or cork (its streams' links deactivated).
///
/// Within the leading loopback WirePlumber gives its other streams the
/// same-priority action; its example mixes them, and so does this model.
public struct RoleActions: Sendable, Equatable {
    /// The leading loopback's input; nil when no stream plays into one.
    public var leader: UInt32?
    /// By loopback input; a loopback not listed mixes.
    public var actions: [UInt32: RoleLoopbacks.Action]

    public init(leader: UInt32? = nil, actions: [UInt32: RoleLoopbacks.Action] = [:]) {
        self.leader = leader; self.actions = actions
    }

    public static let none = RoleActions()

    public func action(on loopback: UInt32) -> RoleLoopbacks.Action { actions[loopback] ?? .mix }

    /// Whether some loopback is ducked or corked: a stream that starts now
    /// may have to start below full gain.
    public var lowersSome: Bool { !actions.isEmpty }

    /// From the graph's links: a link of an application's playback stream
    /// (not a loopback's own playing side, not a monitor, not one of the
    /// agent's nodes) into a loopback's input is one of WirePlumber's role
    /// links. A role link WirePlumber corked has no links and leads nothing;
    /// the leader, the highest, is never corked.
    public static func now(_ roles: RoleLoopbacks, graph: Graph) -> RoleActions {
        guard roles.isActive else { return .none }
        let loopbackNodes = roles.nodes
        var newestLink: [UInt32: UInt32] = [:]
        for link in graph.links.values {
            guard let loopback = roles.loopback(input: link.inputNode), !loopbackNodes.contains(link.outputNode),
                  let stream = graph.nodes[link.outputNode], stream.streamDirection == .playback, !stream.isAgentsOwn,
                  stream.props["stream.monitor"] != "true" else { continue }
            newestLink[loopback.input] = max(newestLink[loopback.input] ?? 0, link.id)
        }
        let playing = roles.loopbacks.filter { newestLink[$0.input] != nil }
        guard let leader = playing.max(by: { ($0.priority, newestLink[$0.input]!) < ($1.priority, newestLink[$1.input]!) })
        else { return RoleActions() }
        var actions: [UInt32: RoleLoopbacks.Action] = [:]
        for loopback in roles.loopbacks where loopback.input != leader.input && loopback.priority <= leader.priority {
            let action = loopback.priority == leader.priority ? leader.samePriority : leader.lowerPriority
            if action != .mix { actions[loopback.input] = action }
        }
        return RoleActions(leader: leader.input, actions: actions)
    }
}
