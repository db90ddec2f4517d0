/// Turns the observed graph and the classified streams into the engine's input.
public enum EngineInputBuilder {
    /// `roles`: WirePlumber's role loopbacks; a stream linked into one plays
    /// to the sink the loopback plays to, which is its output (route
    /// changes, unplug holds), and nil while the loopback's playing side is
    /// unlinked — never the loopback itself.
    public static func build(graph: Graph, classified: [UInt32: ClassifiedStream], now: Double,
                             silentMode: Bool, silentModeReason: String = "", resumeRequests: Set<UInt32>,
                             audibility: [UInt32: Audibility] = [:], screenLocked: String? = nil,
                             endedSessions: Set<SessionKey> = [], roles: RoleLoopbacks = .none) -> PolicyInput {
        let sinks = linkedSinks(in: graph)
        let linkedInputs = Set(graph.links.values.map(\.inputNode))
        let streams = classified.keys.sorted().compactMap { id -> StreamInput? in
            guard let stream = classified[id], let node = graph.nodes[id] else { return nil }
            let isRunning = node.state == .running
            let sink = sinks[id]
            let output = roles.isActive ? sink.flatMap(roles.resolve) : sink
            return StreamInput(id: id, session: stream.session, appName: stream.appName,
                               direction: stream.facts.direction, classification: stream.classification,
                               isRunning: isRunning, output: stream.facts.direction == .playback ? output : nil,
                               isUnlinked: !isRunning && sink == nil && !linkedInputs.contains(id),
                               audibility: audibility[id])
        }
        return PolicyInput(now: now, streams: streams, outputs: OutputDetection.outputs(in: graph),
                           defaultOutput: OutputDetection.defaultOutput(in: graph), silentMode: silentMode,
                           silentModeReason: silentModeReason, resumeRequests: resumeRequests,
                           screenCasts: ScreenCastDetection.casts(in: graph), screenLocked: screenLocked,
                           endedSessions: endedSessions)
    }

    /// The node a playback stream's output ports are linked to (its sink);
    /// the agent's own meters listen beside it and are no sink.
    public static func linkedSink(of stream: UInt32, in graph: Graph) -> UInt32? {
        graph.links(from: stream).first { graph.nodes[$0.inputNode]?.isAgentsOwn != true }?.inputNode
    }

    /// `linkedSink` of every node at once, in one pass over the links (the
    /// oldest link names the sink, as there): for work over all streams.
    public static func linkedSinks(in graph: Graph) -> [UInt32: UInt32] {
        var oldest: [UInt32: Graph.Link] = [:]
        for link in graph.links.values where oldest[link.outputNode].map({ link.id < $0.id }) ?? true {
            if graph.nodes[link.inputNode]?.isAgentsOwn == true { continue }
            oldest[link.outputNode] = link
        }
        return oldest.mapValues(\.inputNode)
    }
}
