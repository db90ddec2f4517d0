import PolicyCore

/// What `status` and `explain` print of a graph that holds the agent's
/// metadata: the agent's own graph for those commands, the simulated one
/// for `simulate`.
public enum PolicyReport {
    public static func status(_ view: StatusView, json: Bool, style: TextStyle) -> String {
        json ? StatusRenderer.json(view) + "\n" : StatusRenderer.text(view, style: style)
    }

    /// The stream `query` names, explained; fails as `explain` does on a
    /// name that matches none or several.
    public static func explain(_ query: String, graph: Graph, json: Bool, style: TextStyle) throws(CLIFailure) -> String {
        let snapshot = AgentSnapshot(metadata: graph.metadata(named: AgentProtocol.metadataName))
        let target = try StreamResolver.resolve(query, among: StreamCandidate.all(in: graph, snapshot: snapshot), graph: graph)
        return json ? ExplainRenderer.json(target) + "\n" : ExplainRenderer.text(target, snapshot: snapshot, style: style)
    }
}
