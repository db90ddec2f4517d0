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
}
