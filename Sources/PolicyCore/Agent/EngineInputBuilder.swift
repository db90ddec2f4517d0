/// Turns the observed graph and the classified streams into the engine's input.
public enum EngineInputBuilder {
    public static func build(graph: Graph, classified: [UInt32: ClassifiedStream], now: Double,
                             silentMode: Bool, resumeRequests: Set<UInt32>) -> PolicyInput {
        let streams = classified.keys.sorted().compactMap { id -> StreamInput? in
            guard let stream = classified[id], let node = graph.nodes[id] else { return nil }
            let isRunning = node.state == .running
            let output = stream.facts.direction == .playback ? linkedSink(of: id, in: graph) : nil
            return StreamInput(id: id, session: stream.session, appName: stream.appName,
                               direction: stream.facts.direction, classification: stream.classification,
                               isRunning: isRunning, output: output,
                               isUnlinked: !isRunning && graph.links(from: id).isEmpty && graph.links(to: id).isEmpty)
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
