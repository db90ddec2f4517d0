import PolicyCore

// Ports and links as the registry announces them (`property`: a key of the
// global's properties → its value): the one reading of those keys, for the
// agent's mirror and for its thread's registry (`ThreadRegistry`).

extension Graph.Port {
    init?(id: UInt32, registryProperty property: (String) -> String?) {
        guard let nodeID = property("node.id").flatMap(UInt32.init) else { return nil }
        self.init(id: id, nodeID: nodeID, direction: property("port.direction") == "in" ? .input : .output,
                  channel: property("audio.channel"), isMonitor: property("port.monitor") == "true")
    }
}

extension Graph.Link {
    init?(id: UInt32, registryProperty property: (String) -> String?) {
        func node(_ key: String) -> UInt32? { property(key).flatMap(UInt32.init) }
        guard let outputNode = node("link.output.node"), let outputPort = node("link.output.port"),
              let inputNode = node("link.input.node"), let inputPort = node("link.input.port") else { return nil }
        self.init(id: id, outputNode: outputNode, outputPort: outputPort, inputNode: inputNode, inputPort: inputPort)
    }
}
