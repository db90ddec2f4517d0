import PolicyCore

// Graphs built by hand for the tests and the engine bench: what the PipeWire
// layer would have mirrored, with no PipeWire. One builder for all of them.
// A node's ports are numbered from `id * 10`: channel c's input port is
// `id * 10 + 2c`, its output port `id * 10 + 2c + 1`.

extension Graph {
    /// The `default` metadata's id in these graphs.
    public static let defaultMetadataID: UInt32 = 900
    /// The `pw-policy` metadata's id in these graphs.
    public static let policyMetadataID: UInt32 = 901
    /// One channel, as the tests' nodes have.
    public static let mono = ["MONO"]

    private static func portID(of node: UInt32, channel: Int, _ direction: PortDirection) -> UInt32 {
        node * 10 + UInt32(channel) * 2 + (direction == .output ? 1 : 0)
    }

    private mutating func addPorts(of node: UInt32, _ direction: PortDirection, channels: [String]) {
        for (index, channel) in channels.enumerated() {
            let id = Self.portID(of: node, channel: index, direction)
            ports[id] = Port(id: id, nodeID: node, direction: direction, channel: channel)
        }
    }

    /// A sink node; `device`/`profileDevice` tie it to a device's route (card.profile.device).
    @discardableResult
    public mutating func addSink(_ id: UInt32, name: String, props extra: [String: String] = [:],
                                 device: UInt32? = nil, profileDevice: Int32? = nil,
                                 mediaClass: String = "Audio/Sink", state: NodeState = .idle,
                                 channels: [String] = mono) -> Graph.Node {
        var props = ["media.class": mediaClass, "node.name": name, "object.serial": String(1000 + id)]
        if let device { props["device.id"] = String(device) }
        if let profileDevice { props["card.profile.device"] = String(profileDevice) }
        props.merge(extra) { _, new in new }
        let node = Graph.Node(id: id, props: props, state: state, volume: 1)
        nodes[id] = node
        addPorts(of: id, .input, channels: channels)
        return node
    }

    public mutating func addSource(_ id: UInt32, name: String) {
        nodes[id] = Graph.Node(id: id, props: ["media.class": "Audio/Source", "node.name": name,
                                              "object.serial": String(1000 + id)], state: .idle)
        addPorts(of: id, .output, channels: Self.mono)
    }

    public mutating func addDevice(_ id: UInt32, props: [String: String] = [:], routes: [Graph.Route] = []) {
        devices[id] = Graph.Device(id: id, props: props, routes: routes)
    }

    /// An application stream with ports both ways, one per channel.
    public mutating func addStream(_ id: UInt32, serial: UInt64? = nil, direction: StreamDirection = .playback,
                                   volume: Float? = 1, state: Graph.NodeState = .running, props extra: [String: String] = [:],
                                   channels: [String] = mono) {
        var props = ["media.class": direction == .playback ? "Stream/Output/Audio" : "Stream/Input/Audio",
                     "node.name": "stream-\(id)", "object.serial": String(serial ?? UInt64(5000 + id))]
        props.merge(extra) { _, new in new }
        nodes[id] = Graph.Node(id: id, props: props, state: state, volume: volume,
                               channelVolumes: channels.count > 1 ? Array(repeating: 1, count: channels.count) : [],
                               mute: channels.count > 1 ? false : nil)
        addPorts(of: id, .input, channels: channels)
        addPorts(of: id, .output, channels: channels)
    }

    /// A node gone, with its ports and links.
    public mutating func removeNode(_ id: UInt32) {
        nodes[id] = nil
        ports = ports.filter { $0.value.nodeID != id }
        links = links.filter { $0.value.outputNode != id && $0.value.inputNode != id }
    }

    /// A link from `output`'s first output port to `input`'s first input port.
    public mutating func addLink(_ id: UInt32, from output: UInt32, to input: UInt32) {
        links[id] = Graph.Link(id: id, outputNode: output, outputPort: Self.portID(of: output, channel: 0, .output),
                               inputNode: input, inputPort: Self.portID(of: input, channel: 0, .input), state: .active)
    }

    /// `default.audio.sink` (and source) as WirePlumber writes them: JSON `{"name":"…"}`.
    public mutating func setDefaults(sink: String?, source: String? = nil, rawSink: String? = nil) {
        var entries: [String: Graph.MetadataEntry] = [:]
        if let value = rawSink ?? sink.map({ #"{"name":"\#($0)"}"# }) {
            entries["default.audio.sink"] = Graph.MetadataEntry(subject: 0, key: "default.audio.sink",
                                                                type: "Spa:String:JSON", value: value)
        }
        if let source {
            entries["default.audio.source"] = Graph.MetadataEntry(subject: 0, key: "default.audio.source",
                                                                  type: "Spa:String:JSON", value: #"{"name":"\#(source)"}"#)
        }
        metadata[Self.defaultMetadataID] = Graph.Metadata(id: Self.defaultMetadataID, name: "default",
                                                          entries: [0: entries])
    }

    /// The `sm-settings` metadata's id in these graphs.
    public static let settingsMetadataID: UInt32 = 903

    /// One of WirePlumber 0.5's role loopbacks as its example
    /// `media-role-nodes.conf` makes them: the sink streams are linked into
    /// (`input`), its playing side (`output`, Props `volume` = WirePlumber's
    /// duck) linked to `playsTo`.
    public mutating func addRoleLoopback(input: UInt32, output: UInt32, role: String, description: String,
                                         intendedRoles: [String], priority: Int, lowerPriority: String = "mix",
                                         samePriority: String = "mix", volume: Float = 1, playsTo: UInt32?,
                                         extra: [String: String] = [:], nextLinkID: inout UInt32) {
        let group = "loopback-4242-\(input)"
        let roles = "[ " + intendedRoles.map { "\"\($0)\"" }.joined(separator: ", ") + " ]"
        addSink(input, name: "input.loopback.sink.role.\(role)", props: [
            "node.description": description, "node.link-group": group, "node.virtual": "true",
            "policy.role-based.target": "true", "device.intended-roles": roles,
            "policy.role-based.priority": String(priority),
            "policy.role-based.action.same-priority": samePriority,
            "policy.role-based.action.lower-priority": lowerPriority,
        ].merging(extra) { $1 })
        addStream(output, volume: volume, props: [
            "node.name": "output.loopback.sink.role.\(role)", "node.link-group": group, "node.passive": "true",
            "media.role": "Loopback", "node.virtual": "true", "node.description": description,
        ])
        if let playsTo { addLinks(from: output, to: playsTo, nextID: &nextLinkID) }
    }

    /// WirePlumber 0.5's settings (`sm-settings`): the default media role
    /// and the role duck level, as JSON texts.
    public mutating func setWirePlumberSettings(defaultRole: String? = nil, duckLevel: String? = "0.3") {
        var entries: [String: Graph.MetadataEntry] = [:]
        for (key, value) in [("node.stream.default-media-role", defaultRole.map { "\"\($0)\"" }),
                             ("linking.role-based.duck-level", duckLevel)] {
            if let value { entries[key] = Graph.MetadataEntry(subject: 0, key: key, type: "Spa:String:JSON", value: value) }
        }
        metadata[Self.settingsMetadataID] = Graph.Metadata(id: Self.settingsMetadataID, name: "sm-settings",
                                                           entries: [0: entries])
    }

    /// An entry of the `pw-policy` metadata, as the CLI or `pw-metadata` writes it.
    public mutating func setPolicyEntry(subject: UInt32, key: String, value: String,
                                 type: String? = AgentProtocol.stringType) {
        var policy = metadata[Self.policyMetadataID]
            ?? Graph.Metadata(id: Self.policyMetadataID, name: AgentProtocol.metadataName)
        policy.entries[subject, default: [:]][key] = Graph.MetadataEntry(subject: subject, key: key, type: type, value: value)
        metadata[Self.policyMetadataID] = policy
    }
}
