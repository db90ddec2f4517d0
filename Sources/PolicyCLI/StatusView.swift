import PolicyCore

/// What `pw-policy status` shows: the agent's published state where it runs,
/// the graph's own view of outputs and streams where it does not.
public struct StatusView: Sendable, Equatable {
    public var remote: String
    public var snapshot: AgentSnapshot
    public var outputs: [OutputStatus]
    public var streams: [StreamCandidate]
    /// The PipeWire and WirePlumber running: as the agent published them, or
    /// as the CLI found them when the agent has not.
    public var stack: StackStatus?

    public init(remote: String, snapshot: AgentSnapshot, outputs: [OutputStatus], streams: [StreamCandidate],
                stack: StackStatus? = nil) {
        self.remote = remote; self.snapshot = snapshot; self.outputs = outputs; self.streams = streams
        self.stack = stack
    }

    /// From the graph and the agent's metadata in it. `graphOutputs` and
    /// `graphStack` are used when the agent has not published its own.
    public init(remote: String, graph: Graph, graphOutputs: [OutputStatus], graphStack: StackStatus? = nil) {
        let snapshot = AgentSnapshot(metadata: graph.metadata(named: AgentProtocol.metadataName))
        self.init(remote: remote, snapshot: snapshot, outputs: snapshot.outputs ?? graphOutputs,
                  streams: StreamCandidate.all(in: graph, snapshot: snapshot),
                  stack: snapshot.agent?.stack ?? graphStack)
    }

    /// Streams grouped as `status` lists them: by category in the order of
    /// `Category.allCases`, the streams of one session together. Streams the
    /// agent has not classified (or all, without the agent) come last, under `nil`.
    public var groups: [(category: String?, streams: [StreamCandidate])] {
        var byCategory: [String: [StreamCandidate]] = [:]
        var unclassified: [StreamCandidate] = []
        for stream in streams {
            if let category = stream.status?.category {
                byCategory[category, default: []].append(stream)
            } else {
                unclassified.append(stream)
            }
        }
        let known = Category.allCases.map(\.rawValue)
        let order = known + byCategory.keys.filter { !known.contains($0) }.sorted()
        var result: [(category: String?, streams: [StreamCandidate])] = []
        for category in order {
            guard let members = byCategory[category] else { continue }
            // A session's first stream id places the session.
            var firstID: [String: UInt32] = [:]
            for member in members {
                let session = member.status?.session ?? ""
                firstID[session] = min(firstID[session] ?? member.id, member.id)
            }
            let sorted = members.sorted {
                let a = firstID[$0.status?.session ?? ""] ?? $0.id, b = firstID[$1.status?.session ?? ""] ?? $1.id
                return a != b ? a < b : $0.id < $1.id
            }
            result.append((category, sorted))
        }
        if !unclassified.isEmpty { result.append((nil, unclassified.sorted { $0.id < $1.id })) }
        return result
    }
}
