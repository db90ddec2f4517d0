/// Which sinks are outputs, which of them are private to the user
/// (headphones, headsets, Bluetooth), whether they are available, and which
/// is the default — read off the graph.
public enum OutputDetection {
    /// `device.form-factor` values and route `port.type`s that put sound only in the user's ears.
    static let privateFormFactors: Set<String> = [
        "headphone", "headphones", "headset", "hands-free", "handsfree", "handset", "earbuds", "earpiece",
    ]

    public static func outputs(in graph: Graph) -> [OutputInput] {
        // A sink being destroyed loses its links and ports at once and its
        // node up to a graph cycle later; WirePlumber moves its streams to
        // the speakers in between. Without its ports it is already gone: an
        // unplug, not the stream moving away from a headphones sink.
        var withInputs = Set<UInt32>()
        for port in graph.ports.values where port.direction == .input { withInputs.insert(port.nodeID) }
        return graph.sinks.filter { !isVirtual($0) && !RoleLoopbacks.isLoopbackInput($0) }.map { sink in
            let route = activeOutputRoute(of: sink, in: graph)
            let ports = outputPorts(of: sink, in: graph)
            // A port unplugged plays to no one: not private, and the sink has
            // nowhere to play once every port is (a device that lists no
            // ports: once its active route is).
            let plugged = route?.available != .no
            let somewherePlugged = ports.isEmpty ? plugged : ports.contains { $0.available != .no }
            return OutputInput(id: sink.id, name: sink.name ?? "node \(sink.id)",
                               isPrivate: plugged && isPrivate(sink, route: route, in: graph),
                               isAvailable: somewherePlugged && withInputs.contains(sink.id),
                               props: sink.props, port: route?.name,
                               unpluggedPorts: ports.isEmpty ? nil : Set(ports.filter { $0.available == .no }.map(\.name)))
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
    /// WirePlumber's role loopbacks are left out whether or not they say
    /// `node.virtual` (RoleLoopbacks): a stream plays through them to the
    /// loopback's sink, which is its output.
    static func isVirtual(_ sink: Graph.Node) -> Bool {
        sink.props["node.virtual"] == "true"
    }

    /// The output route of the sink's own profile device; a route of the
    /// card's other sinks (HDMI next to analog) says nothing about this one.
    static func activeOutputRoute(of sink: Graph.Node, in graph: Graph) -> Graph.Route? {
        guard let deviceID = sink.deviceID, let device = graph.devices[deviceID] else { return nil }
        let outputs = device.routes.filter { $0.direction == .output }
        guard let profileDevice = sink.props["card.profile.device"] else {
            return outputs.count == 1 ? outputs.first : nil
        }
        return Int32(profileDevice).flatMap { wanted in outputs.first { $0.device == wanted } }
    }

    /// The output ports (EnumRoute) of the sink's own profile device.
    static func outputPorts(of sink: Graph.Node, in graph: Graph) -> [Graph.Route] {
        guard let deviceID = sink.deviceID, let device = graph.devices[deviceID] else { return [] }
        let wanted = sink.props["card.profile.device"].flatMap { Int32($0) }
        return device.ports.filter { port in
            port.direction == .output && (port.devices.isEmpty || wanted.map { port.devices.contains($0) } ?? true)
        }
    }

    static func isPrivate(_ sink: Graph.Node, route: Graph.Route?, in graph: Graph) -> Bool {
        let device = sink.deviceID.flatMap { graph.devices[$0] }
        let propSets = [sink.props, device?.props ?? [:]]
        // Bluetooth first: its routes say "portable", "hifi", "car"… which
        // tell nothing about whether the room hears it.
        if sink.name?.hasPrefix("bluez_output.") == true
            || propSets.contains(where: { $0["device.bus"] == "bluetooth" || $0["device.api"] == "bluez5" }) {
            return true
        }
        // The active route decides for jack-switched ALSA cards: the same sink
        // is private on the headphone port and public on the speakers. Other
        // port types (analog, line, hdmi…) leave it to the device's form factor.
        if let route {
            if let portType = route.portType?.lowercased() {
                if privateFormFactors.contains(portType) { return true }
                if portType == "speaker" { return false }
            }
            let name = route.name.lowercased()
            if name.containsText("headphone") || name.containsText("headset") { return true }
            if name.containsText("speaker") { return false }
        }
        return propSets.contains { props in
            props["device.form-factor"].map { privateFormFactors.contains($0.lowercased()) } ?? false
        }
    }
}
