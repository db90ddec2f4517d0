import PolicyCore
import PolicyPipeWire

/// Which of the mirror's changes can change a decision, and so call for a
/// reconcile (`ReconcileSchedule.soon`). Beside many streams a reconcile is
/// a pass over the whole graph, so the changes that cannot are left out:
/// the agent's own commands and publications coming back, and links on
/// their way to `active` (docs/PERFORMANCE.md, "Reconciles for what the
/// agent did itself").
enum ReconcileTrigger {
    /// `isEcho`: whether a Props change of a node is our own command coming
    /// back (`AgentCore.isEcho`).
    static func calls(for change: GraphMirror.ObjectChange, in graph: Graph, isEcho: (UInt32) -> Bool) -> Bool {
        switch change {
        case .props(let id):
            return !isEcho(id)
        case .metadata(let id, _, let key?) where AgentProtocol.publishedKeys.contains(key):
            // Statuses and events: the agent writes them and never reads them.
            return graph.metadata[id]?.name != AgentProtocol.metadataName
        case .linkState(_, let before, let after):
            return before.failed != after.failed
        case .added, .removed, .info, .metadata:
            return true
        }
    }
}
