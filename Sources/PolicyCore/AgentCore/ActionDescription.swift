/// Graph actions as the log says them, with the app each node belongs to.
public enum ActionDescription {
    public static func describe(_ action: AgentAction, in graph: Graph) -> String {
        func name(_ id: UInt32) -> String {
            let node = graph.nodes[id]
            return "\(id) (\(node?.props["application.name"] ?? node?.name ?? "?"))"
        }
        switch action {
        case .setGain(let node, let gain): return "set gain of \(name(node)) to \(gain.fixedDecimal(places: 3))"
        case .rampGain(let node, let gain, let milliseconds):
            return "ramp gain of \(name(node)) to \(gain.fixedDecimal(places: 3)) over \(milliseconds) ms"
        case .destroyLink(let link): return "destroy link \(link)"
        case .link(let output, let input): return "link \(name(output)) to \(name(input))"
        case .setTarget(let stream, let serial): return "move \(name(stream)) to the node with serial \(serial)"
        case .suspend(let node): return "suspend \(name(node))"
        case .prime(let node, let gain):
            return "start \(name(node)) unlinked and set its gain to \(gain.fixedDecimal(places: 3))"
        }
    }
}
