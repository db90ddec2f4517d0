/// WirePlumber 0.5's role-based policy in the control loop (docs/POLICY.md,
/// "Beside WirePlumber's role policy"): its loopbacks are paths, not
/// streams; its ducking is done by the agent in its place.
extension AgentCore {
    /// The classified streams without the loopbacks' own playing sides:
    /// they carry other streams, which are classified and decided for.
    static func withoutLoopbacks(_ classified: [UInt32: ClassifiedStream], _ roles: RoleLoopbacks) -> [UInt32: ClassifiedStream] {
        guard roles.isActive else { return classified }
        let nodes = roles.nodes
        return classified.filter { !nodes.contains($0.key) }
    }

    /// What `status` says of the role policy; nil when it is off.
    static func rolePolicyStatus(_ roles: RoleLoopbacks, _ takeover: RoleDuckTakeover.Step,
                                 dryRun: Bool) -> StackStatus.RolePolicy? {
        guard roles.isActive else { return nil }
        return StackStatus.RolePolicy(loopbacks: roles.loopbacks.map(\.name), duckLevel: takeover.duckLevel,
                                      duckingTakenOver: !dryRun && takeover.replaced != nil)
    }

    /// The takeover's writes, after the journal that remembers what they replace.
    static func effects(of takeover: RoleDuckTakeover.Step) -> [AgentEffect] {
        (takeover.notice.map { [AgentEffect.log(.notice, $0)] } ?? [])
            + takeover.writes.map(AgentEffect.setMetadata)
            + takeover.resets.map { AgentEffect.graph(.setGain(node: $0, gain: 1)) }
    }
}
