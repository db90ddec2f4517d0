@testable import PolicyCore

// Small graphs built by hand for the agent-side tests: what the PipeWire
// layer would have mirrored, with no PipeWire.

extension Graph {
    /// The `default` metadata's id in these graphs.
    static let defaultMetadataID: UInt32 = 900
    /// The `pw-policy` metadata's id in these graphs.
    static let policyMetadataID: UInt32 = 901

    /// A sink node; `device`/`profileDevice` tie it to a device's route (card.profile.device).
    @discardableResult
    mutating func addSink(_ id: UInt32, name: String, props extra: [String: String] = [:],
                          device: UInt32? = nil, profileDevice: Int32? = nil,
                          mediaClass: String = "Audio/Sink") -> Graph.Node {
        var props = ["media.class": mediaClass, "node.name": name, "object.serial": String(1000 + id)]
        if let device { props["device.id"] = String(device) }
        if let profileDevice { props["card.profile.device"] = String(profileDevice) }
        props.merge(extra) { _, new in new }
        let node = Graph.Node(id: id, props: props, state: .idle, volume: 1)
        nodes[id] = node
        ports[id * 10] = Graph.Port(id: id * 10, nodeID: id, direction: .input, channel: "MONO")
        return node
    }

    mutating func addSource(_ id: UInt32, name: String) {
        nodes[id] = Graph.Node(id: id, props: ["media.class": "Audio/Source", "node.name": name,
                                              "object.serial": String(1000 + id)], state: .idle)
        ports[id * 10 + 1] = Graph.Port(id: id * 10 + 1, nodeID: id, direction: .output, channel: "MONO")
    }

    mutating func addDevice(_ id: UInt32, props: [String: String] = [:], routes: [Graph.Route] = []) {
        devices[id] = Graph.Device(id: id, props: props, routes: routes)
    }

    /// An application stream with one port each way it needs.
    mutating func addStream(_ id: UInt32, serial: UInt64? = nil, direction: StreamDirection = .playback,
                            volume: Float? = 1, state: Graph.NodeState = .running, props extra: [String: String] = [:]) {
        var props = ["media.class": direction == .playback ? "Stream/Output/Audio" : "Stream/Input/Audio",
                     "node.name": "stream-\(id)", "object.serial": String(serial ?? UInt64(5000 + id))]
        props.merge(extra) { _, new in new }
        nodes[id] = Graph.Node(id: id, props: props, state: state, volume: volume)
        ports[id * 10] = Graph.Port(id: id * 10, nodeID: id, direction: .input, channel: "MONO")
        ports[id * 10 + 1] = Graph.Port(id: id * 10 + 1, nodeID: id, direction: .output, channel: "MONO")
    }

    /// What the daemon (and WirePlumber) would do with a graph action;
    /// `target.object` requests are the caller's (they need the metadata).
    mutating func apply(_ action: AgentAction, nextLinkID: inout UInt32) {
        switch action {
        case .setGain(let node, let gain), .rampGain(let node, let gain, _): nodes[node]?.volume = Float(gain)
        case .destroyLink(let id): links[id] = nil
        case .link(let output, let input):
            addLink(nextLinkID, from: output, to: input)
            nextLinkID += 1
        case .suspend(let node): nodes[node]?.state = .suspended
        case .setTarget: break
        }
    }

    /// A link from `output`'s output port to `input`'s input port.
    mutating func addLink(_ id: UInt32, from output: UInt32, to input: UInt32) {
        links[id] = Graph.Link(id: id, outputNode: output, outputPort: output * 10 + 1, inputNode: input,
                               inputPort: input * 10, state: .active)
    }

    /// `default.audio.sink` (and source) as WirePlumber writes them: JSON `{"name":"…"}`.
    mutating func setDefaults(sink: String?, source: String? = nil, rawSink: String? = nil) {
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

    /// An entry of the `pw-policy` metadata, as the CLI or `pw-metadata` writes it.
    mutating func setPolicyEntry(subject: UInt32, key: String, value: String,
                                 type: String? = AgentProtocol.stringType) {
        var policy = metadata[Self.policyMetadataID]
            ?? Graph.Metadata(id: Self.policyMetadataID, name: AgentProtocol.metadataName)
        policy.entries[subject, default: [:]][key] = Graph.MetadataEntry(subject: subject, key: key, type: type, value: value)
        metadata[Self.policyMetadataID] = policy
    }
}

/// A classified stream as `classifyAll` would produce it.
func testClassified(_ id: UInt32, category: Category = .playback, direction: StreamDirection = .playback,
                    exempt: Bool = false, app: String = "app", options: Set<PolicyOption> = [],
                    warnings: [String] = []) -> ClassifiedStream {
    ClassifiedStream(
        facts: StreamFacts(nodeID: id, direction: direction, nodeProps: [:]),
        classification: Classification(category: category, options: options, exempt: exempt, source: .rule,
                                       reason: "test rule", warnings: warnings),
        session: SessionKey("\(app):\(category.rawValue)"), appKey: "app:\(app)", appName: app)
}
