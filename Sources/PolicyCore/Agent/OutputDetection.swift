/// Which sinks are outputs, which of them are private to the user
/// (headphones, headsets, Bluetooth), whether they are available, and which
/// is the default — read off the graph.
public enum OutputDetection {
    /// `device.form-factor` values and route `port.type`s that put sound only in the user's ears.
    static let privateFormFactors: Set<String> = [
        "headphone", "headphones", "headset", "hands-free", "handsfree", "handset", "earbuds", "earpiece",
    ]

    public static func outputs(in graph: Graph) -> [OutputInput] {
        graph.sinks.filter { !isVirtual($0) }.map { sink in
            let route = activeOutputRoute(of: sink, in: graph)
            return OutputInput(id: sink.id, name: sink.name ?? "node \(sink.id)",
                               isPrivate: isPrivate(sink, route: route, in: graph),
                               isAvailable: route?.available != .no,
                               props: sink.props)
        }
    }

    /// The sink named by the `default` metadata's `default.audio.sink`, if present.
    public static func defaultOutput(in graph: Graph) -> UInt32? {
        defaultNodeName(in: graph, key: "default.audio.sink").flatMap { name in
            graph.sinks.first { $0.name == name }?.id
        }
    }

    /// The source (or sink monitor) named by `default.audio.source`, if present.
    public static func defaultInput(in graph: Graph) -> UInt32? {
        defaultNodeName(in: graph, key: "default.audio.source").flatMap { name in
            graph.nodes.values.first { $0.name == name && ($0.mediaClass == "Audio/Source" || $0.isAudioSink) }?.id
        }
    }

    /// `default.audio.sink` is JSON `{ "name": "…" }` (WirePlumber writes it).
    static func defaultNodeName(in graph: Graph, key: String) -> String? {
        guard let value = graph.metadata(named: "default")?.value(subject: 0, key: key) else { return nil }
        let parsed = try? SPAJSONParser.parseValue(value)
        return parsed?.members?.first { $0.key == "name" }?.value.string
    }

    /// Filter chains and loopbacks present sinks that are not devices; they
    /// are where streams play, but their privacy is their target's.
    static func isVirtual(_ sink: Graph.Node) -> Bool {
        sink.props["node.virtual"] == "true"
    }

    static func activeOutputRoute(of sink: Graph.Node, in graph: Graph) -> Graph.Route? {
        guard let deviceID = sink.deviceID, let device = graph.devices[deviceID] else { return nil }
        let profileDevice = sink.props["card.profile.device"].flatMap { Int32($0) }
        let outputs = device.routes.filter { $0.direction == .output }
        return outputs.first { $0.device == profileDevice } ?? (outputs.count == 1 ? outputs.first : nil)
    }

    static func isPrivate(_ sink: Graph.Node, route: Graph.Route?, in graph: Graph) -> Bool {
        let device = sink.deviceID.flatMap { graph.devices[$0] }
        // The active route decides for jack-switched ALSA cards: the same sink
        // is private on the headphone port and public on the speakers.
        if let route {
            if let portType = route.portType?.lowercased() { return privateFormFactors.contains(portType) }
            let name = route.name.lowercased()
            if name.contains("headphone") || name.contains("headset") { return true }
            if name.contains("speaker") { return false }
        }
        for props in [sink.props, device?.props ?? [:]] {
            if let formFactor = props["device.form-factor"]?.lowercased(), privateFormFactors.contains(formFactor) {
                return true
            }
            if props["device.bus"] == "bluetooth" || props["device.api"] == "bluez5" { return true }
        }
        return sink.name?.hasPrefix("bluez_output.") == true
    }
}
