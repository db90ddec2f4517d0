/// Turns the observed graph and the classified streams into the engine's input.
public enum EngineInputBuilder {
    public static func build(graph: Graph, classified: [UInt32: ClassifiedStream], now: Double,
                             silentMode: Bool, resumeRequests: Set<UInt32>) -> PolicyInput {
        // One pass over the links for all streams, not one per stream; the
        // oldest link names the sink, as in `linkedSink`.
        var sinkOfOutput: [UInt32: (link: UInt32, sink: UInt32)] = [:]
        var linkedInputs = Set<UInt32>()
        for link in graph.links.values {
            if sinkOfOutput[link.outputNode].map({ link.id < $0.link }) ?? true {
                sinkOfOutput[link.outputNode] = (link.id, link.inputNode)
            }
            linkedInputs.insert(link.inputNode)
        }
        let streams = classified.keys.sorted().compactMap { id -> StreamInput? in
            guard let stream = classified[id], let node = graph.nodes[id] else { return nil }
            let isRunning = node.state == .running
            let sink = sinkOfOutput[id]?.sink
            return StreamInput(id: id, session: stream.session, appName: stream.appName,
                               direction: stream.facts.direction, classification: stream.classification,
                               isRunning: isRunning, output: stream.facts.direction == .playback ? sink : nil,
                               isUnlinked: !isRunning && sink == nil && !linkedInputs.contains(id))
        }
        return PolicyInput(now: now, streams: streams, outputs: OutputDetection.outputs(in: graph),
                           defaultOutput: OutputDetection.defaultOutput(in: graph), silentMode: silentMode,
                           resumeRequests: resumeRequests)
    }

    /// The node a playback stream's output ports are linked to (its sink).
    public static func linkedSink(of stream: UInt32, in graph: Graph) -> UInt32? {
        graph.links(from: stream).first?.inputNode
    }
}
