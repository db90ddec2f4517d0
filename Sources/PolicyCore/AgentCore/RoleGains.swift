/// WirePlumber's role policy applied by the agent, in its place, to the
/// streams behind role loopbacks (docs/POLICY.md, "Beside WirePlumber's
/// role policy"): a stream is heard at the lower of the agent's level and
/// WirePlumber's — never their product. The agent keeps WirePlumber from
/// ducking a loopback itself (`RoleDuckTakeover`), so a stream's gain is
/// all that scales it: min(the engine's gain, WirePlumber's level for its
/// loopback), where WirePlumber's level is 1 to mix, its duck level to
/// duck, and 0 to cork (a link WirePlumber cannot cork — one the agent made
/// when it released the stream — is silenced instead).
public enum RoleGains {
    /// The loopback a playback stream plays through: the one it is linked
    /// into (`linkedSink`, `EngineInputBuilder.linkedSink`); while it is
    /// linked nowhere, the one WirePlumber would link it into by its role
    /// (so that it starts at its level from the first sample).
    public static func loopback(of node: Graph.Node, linkedSink: UInt32?, roles: RoleLoopbacks) -> RoleLoopbacks.Loopback? {
        guard roles.isActive, node.streamDirection == .playback else { return nil }
        guard let linkedSink else { return roles.loopback(for: node) }
        return roles.loopback(input: linkedSink)
    }

    /// The decisions with WirePlumber's level applied, and a line in the
    /// explanation of every stream behind a loopback saying so.
    public static func applied(to decisions: [UInt32: StreamDecision], roles: RoleLoopbacks, actions: RoleActions,
                               duckLevel: Double, graph: Graph) -> [UInt32: StreamDecision] {
        guard roles.isActive else { return decisions }
        // Every stream's sink in one pass over the links, not a pass per stream.
        let sinks = EngineInputBuilder.linkedSinks(in: graph)
        var result = decisions
        for (id, decision) in decisions {
            guard let node = graph.nodes[id],
                  let loopback = loopback(of: node, linkedSink: sinks[id], roles: roles) else { continue }
            var decision = decision
            let action = actions.action(on: loopback.input)
            let level: Double
            switch action {
            case .mix: level = 1
            case .duck: level = duckLevel
            case .cork: level = 0
            }
            let leader = actions.leader.flatMap { roles.loopback(input: $0) }
            decision.explanation.append(line(loopback, action: action, level: level, leader: leader))
            if decision.hold == nil, level < decision.gain - ReconcilePlanner.epsilon {
                decision.gain = level
            }
            result[id] = decision
        }
        return result
    }

    /// `plays through WirePlumber's role loopback "Multimedia" (priority 10); ducked there to 0.30 while "Navigation" (priority 30) plays (its lower-priority action, applied by pw-policy)`.
    static func line(_ loopback: RoleLoopbacks.Loopback, action: RoleLoopbacks.Action, level: Double,
                     leader: RoleLoopbacks.Loopback?) -> String {
        let through = "plays through WirePlumber's role loopback \"\(loopback.description)\" (\(loopback.name), priority \(loopback.priority))"
        guard action != .mix, let leader else { return through }
        let which = leader.priority == loopback.priority ? "same-priority" : "lower-priority"
        let what = action == .duck ? "ducked there to \(InteractionNotation.formatLevel(level))" : "corked there (gain 0)"
        return through + "; \(what) while \"\(leader.description)\" (priority \(leader.priority)) plays "
            + "(its policy.role-based.action.\(which) = \(action.rawValue), applied by pw-policy in WirePlumber's place)"
    }
}
